/** Every config error message: bad enums and types with key paths, TOML syntax, -c flags, profiles, providers, missing keys. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, MissingApiKeyError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load-config.js';
import { resolveProvider } from '../../src/config/resolve-config.js';

let home: string;
let configPath: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-home-'));
  configPath = path.join(home, 'config.toml');
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

async function loadError(text: string | null, extra: { overrides?: string[]; profile?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Error> {
  if (text !== null) await fs.writeFile(configPath, text);
  try {
    await loadConfig({ home, cwd: home, env: extra.env ?? { OPENAI_API_KEY: 'sk-test' }, overrides: extra.overrides, profile: extra.profile });
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected loadConfig to fail');
}

describe('config errors', () => {
  it('names the file, the key and the allowed values for a bad enum', async () => {
    const e = await loadError('approval_policy = "sometimes"\n');
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toBe(`${configPath}: approval_policy: expected one of untrusted, on-failure, on-request, never, got "sometimes"`);
  });

  it('names nested key paths inside profiles and providers', async () => {
    const e = await loadError('[profiles.fast]\nsandbox_mode = "yolo"\n[model_providers."my.host"]\nwire_api = "grpc"\n');
    expect(e.message).toBe(
      [
        `${configPath}: model_providers."my.host".wire_api: expected one of responses, chat, got "grpc"`,
        `${configPath}: profiles.fast.sandbox_mode: expected one of read-only, workspace-write, danger-full-access, got "yolo"`,
      ].join('\n'),
    );
  });

  it('describes wrong types', async () => {
    expect((await loadError('model = 5\n')).message).toBe(`${configPath}: model: expected a string, got 5`);
    expect((await loadError('model_context_window = "big"\n')).message).toBe(`${configPath}: model_context_window: expected an integer, got "big"`);
    expect((await loadError('model_context_window = 1.5\n')).message).toBe(`${configPath}: model_context_window: expected an integer, got 1.5`);
    expect((await loadError('sandbox_workspace_write = "yes"\n')).message).toBe(`${configPath}: sandbox_workspace_write: expected a table, got "yes"`);
    expect((await loadError('[sandbox_workspace_write]\nwritable_roots = ["/a", 2]\n')).message).toBe(
      `${configPath}: sandbox_workspace_write.writable_roots[1]: expected a string, got 2`,
    );
    expect((await loadError('[sandbox_workspace_write]\nnetwork_access = "on"\n')).message).toBe(
      `${configPath}: sandbox_workspace_write.network_access: expected a boolean (true or false), got "on"`,
    );
    expect((await loadError('[model_providers.x]\nrequest_max_retries = -1\n')).message).toBe(
      `${configPath}: model_providers.x.request_max_retries: expected a value of at least 0, got -1`,
    );
  });

  it('reports TOML syntax errors with the file, line and column', async () => {
    const e = await loadError('model = "a"\napproval_policy = = "never"\n');
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message.split('\n')[0]).toBe(`${configPath}:2:19: invalid TOML: invalid value`);
    expect(e.message).toContain('approval_policy = = "never"');
  });

  it('names the -c flag when an override has a bad value or no =', async () => {
    expect((await loadError(null, { overrides: ['sandbox_mode=open'] })).message).toBe(
      '-c sandbox_mode=open: sandbox_mode: expected one of read-only, workspace-write, danger-full-access, got "open"',
    );
    expect((await loadError(null, { overrides: ['model'] })).message).toBe('-c model: expected key=value, e.g. -c model_reasoning_effort=high');
    expect((await loadError(null, { overrides: ['a..b=1'] })).message).toBe('-c a..b=1: empty segment in key "a..b"');
  });

  it('rejects an unknown profile from the flag or from the file', async () => {
    expect((await loadError('[profiles.fast]\nmodel = "x"\n', { profile: 'slow' })).message).toBe(
      `--profile slow: no [profiles.slow] table in ${configPath} (known profiles: fast)`,
    );
    expect((await loadError('profile = "ghost"\n')).message).toBe(`${configPath}: profile: no [profiles.ghost] table in ${configPath} (no profiles are defined)`);
  });

  it('rejects an unknown model provider', async () => {
    const e = await loadError('model_provider = "nope"\n');
    expect(e.message).toBe(
      `${configPath}: model_provider: unknown provider "nope" (known: demo, lmstudio, ollama, openai; define others under [model_providers.<id>])`,
    );
  });

  it('requires a model for local providers', async () => {
    const e = await loadError('model_provider = "lmstudio"\n');
    expect(e.message).toContain(`${configPath}: model: required when model_provider is "lmstudio"`);
  });

  it('reports a missing env key when the provider is used, naming the variable and the instructions', async () => {
    await fs.writeFile(
      configPath,
      'model_provider = "azure"\n[model_providers.azure]\nbase_url = "https://x/openai"\nenv_key = "AZURE_OPENAI_API_KEY"\nenv_key_instructions = "Create a key in the Azure portal."\n',
    );
    const config = await loadConfig({ home, cwd: home, env: {} });
    expect(config.provider.apiKey).toBeNull();
    let error: unknown;
    try {
      resolveProvider(config);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as MissingApiKeyError).envKey).toBe('AZURE_OPENAI_API_KEY');
    expect((error as Error).message).toBe(
      'model provider "azure" needs an API key: set the environment variable AZURE_OPENAI_API_KEY. Create a key in the Azure portal.',
    );
  });

  it('ignores unknown keys and tables', async () => {
    await fs.writeFile(configPath, 'unknown_key = 1\nfile_opener = "vscode"\n[features]\nweb_search_request = true\n[profiles.p]\nsomething_new = "x"\n');
    const c = await loadConfig({ home, cwd: home, env: {} });
    expect(c.raw.unknown_key).toBe(1);
    expect(c.raw.features).toEqual({ web_search_request: true });
  });
});
