/** Model provider choice (env key, auth.json, demo fallback) and provider resolution (headers, keys, retries). */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MissingApiKeyError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load-config.js';
import { resolveProvider } from '../../src/config/resolve-config.js';

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-home-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const writeConfig = (text: string): Promise<void> => fs.writeFile(path.join(home, 'config.toml'), text);
const writeAuth = (json: unknown): Promise<void> => fs.writeFile(path.join(home, 'auth.json'), JSON.stringify(json));
const load = (env: NodeJS.ProcessEnv, overrides: string[] = []) => loadConfig({ home, cwd: home, env, overrides });

describe('default provider choice', () => {
  it('uses openai with the key from OPENAI_API_KEY', async () => {
    const c = await load({ OPENAI_API_KEY: 'sk-env' });
    expect(c.modelProviderId).toBe('openai');
    expect(c.model).toBe('gpt-5.5');
    expect(c.provider).toMatchObject({ id: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-env', wireApi: 'responses' });
    expect(c.usingDemoFallback).toBe(false);
  });

  it('uses openai with the key from auth.json when the environment has none', async () => {
    await writeAuth({ OPENAI_API_KEY: 'sk-stored', tokens: null, last_refresh: null });
    const c = await load({});
    expect(c.modelProviderId).toBe('openai');
    expect(c.provider.apiKey).toBe('sk-stored');
  });

  it('prefers the environment key over auth.json', async () => {
    await writeAuth({ OPENAI_API_KEY: 'sk-stored' });
    const c = await load({ OPENAI_API_KEY: 'sk-env' });
    expect(c.provider.apiKey).toBe('sk-env');
  });

  it('falls back to the demo provider without any key, and says so', async () => {
    await writeConfig('model = "gpt-5.4"\n');
    await writeAuth({ OPENAI_API_KEY: null });
    const c = await load({ OPENAI_API_KEY: '' });
    expect(c.usingDemoFallback).toBe(true);
    expect(c.modelProviderId).toBe('demo');
    expect(c.model).toBe('demo-scripted');
    expect(c.provider).toMatchObject({ id: 'demo', baseUrl: null, apiKey: null, wireApi: 'responses' });
    expect(c.warnings[0]).toMatch(/no OpenAI API key found .* using the built-in demo model/);
    expect(c.warnings[1]).toBe('model "gpt-5.4" is ignored while the demo model is in use');
    expect(resolveProvider(c).apiKey).toBeNull();
  });

  it('keeps an explicitly chosen openai provider and fails only when it is used without a key', async () => {
    await writeConfig('model_provider = "openai"\n');
    const c = await load({});
    expect(c.usingDemoFallback).toBe(false);
    expect(c.provider.apiKey).toBeNull();
    expect(() => resolveProvider(c)).toThrow(MissingApiKeyError);
    expect(() => resolveProvider(c)).toThrow('model provider "openai" needs an API key: set the environment variable OPENAI_API_KEY or put OPENAI_API_KEY in auth.json');
  });

  it('moves the openai base URL with OPENAI_BASE_URL', async () => {
    const c = await load({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:7/v1' });
    expect(c.provider.baseUrl).toBe('http://127.0.0.1:7/v1');
  });
});

describe('configured providers', () => {
  it('resolves env_http_headers from the environment and skips unset ones', async () => {
    await writeConfig(
      'model_provider = "proxy"\n[model_providers.proxy]\nbase_url = "https://proxy/v1"\nhttp_headers = { "X-Fixed" = "1" }\nenv_http_headers = { "OpenAI-Organization" = "ORG_ID", "OpenAI-Project" = "PROJECT_ID" }\n',
    );
    const c = await load({ ORG_ID: 'org-9' });
    expect(c.provider.httpHeaders).toEqual({ 'X-Fixed': '1', 'OpenAI-Organization': 'org-9' });
  });

  it('sends no key for a provider without env_key, and the OpenAI key when requires_openai_auth is set', async () => {
    await writeConfig(
      'model_provider = "plain"\n[model_providers.plain]\nbase_url = "http://127.0.0.1:1/v1"\n[model_providers.gateway]\nbase_url = "https://gw/v1"\nrequires_openai_auth = true\n',
    );
    const c = await load({ OPENAI_API_KEY: 'sk-env' });
    expect(resolveProvider(c).apiKey).toBeNull();
    expect(resolveProvider(c, 'gateway').apiKey).toBe('sk-env');
  });

  it('defaults the retry settings and caps them at 100', async () => {
    await writeConfig('model_provider = "p"\n[model_providers.p]\nbase_url = "https://p/v1"\nstream_max_retries = 500\n');
    const c = await load({});
    expect(c.provider).toMatchObject({ requestMaxRetries: 4, streamMaxRetries: 100, streamIdleTimeoutMs: 300000, wireApi: 'responses', name: 'p' });
  });

  it('lists the built-in providers and the configured ones', async () => {
    await writeConfig('[model_providers.p]\nbase_url = "https://p/v1"\n');
    const c = await load({ OPENAI_API_KEY: 'k' });
    expect(Object.keys(c.modelProviders).sort()).toEqual(['demo', 'lmstudio', 'ollama', 'openai', 'p']);
    expect(c.modelProviders.lmstudio).toMatchObject({ baseUrl: 'http://localhost:1234/v1', wireApi: 'chat', envKey: null });
  });

  it('uses the ollama model from a -c override', async () => {
    const c = await load({}, ['model_provider=ollama', 'model=llama3.3']);
    expect(c.model).toBe('llama3.3');
    expect(c.provider).toMatchObject({ baseUrl: 'http://localhost:11434/v1', wireApi: 'chat', apiKey: null });
  });
});
