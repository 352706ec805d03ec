/**
 * `EngineRuntime.setStoredApiKey`: an API-key login or logout while the engine runs. Real files
 * in a temp home, the real scripted model server, the real openai SDK; the key a request carried
 * is read from the recorded `Authorization` header.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { readAuthFile, readStoredApiKey } from '../../src/config/auth.js';
import { MissingApiKeyError } from '../../src/config/errors.js';
import { EngineRuntime } from '../../src/thread/runtime.js';
import { ThreadManager } from '../../src/thread/thread-manager.js';
import { openOnConfig } from '../helpers/engine.js';

interface Setup {
  server: ScriptedModelServer;
  temp: TempHome;
  runtime: EngineRuntime;
  manager: ThreadManager;
}

let setup: Setup | null = null;
afterEach(async () => {
  await setup?.manager.close();
  await setup?.server.close();
  await setup?.temp.cleanup();
  setup = null;
});

/** A runtime on a `mock` provider that takes the OpenAI key, with `storedKey` in auth.json. */
async function start(options: { storedKey?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Setup> {
  const server = await startScriptedModelServer({ handler: () => ({ output: [text('ok')] }) });
  const temp = await makeTempHome('deputy-key-');
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${server.url}"`,
    'requires_openai_auth = true',
    'request_max_retries = 0',
    'stream_max_retries = 0',
  ];
  try {
    const { runtime, manager } = await openOnConfig(temp, toml, options);
    setup = { server, temp, runtime, manager };
    return setup;
  } catch (e) {
    await server.close();
    await temp.cleanup();
    throw e;
  }
}

/** The bearer token of the last model request. */
function lastBearer(server: ScriptedModelServer): string | undefined {
  return server.requests.filter((r) => r.wire !== 'models').at(-1)?.headers.authorization as string | undefined;
}

describe('EngineRuntime.setStoredApiKey', () => {
  it('stores the key in auth.json (mode 0600, Codex layout) and uses it for the next request of a loaded thread', async () => {
    const { server, temp, runtime, manager } = await start({ storedKey: 'sk-old' });
    const thread = await manager.start({ cwd: temp.cwd });
    expect((await thread.startTurn([{ type: 'text', text: 'one' }]).done).status).toBe('completed');
    expect(lastBearer(server)).toBe('Bearer sk-old');

    await runtime.setStoredApiKey('sk-new');
    const file = join(temp.home, 'auth.json');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-new' });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.readdir(temp.home)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(runtime.config.provider.apiKey).toBe('sk-new');
    expect(runtime.config.sources.storedOpenaiKey).toBe('sk-new');
    expect(await readStoredApiKey(temp.home)).toBe('sk-new');

    expect((await thread.startTurn([{ type: 'text', text: 'two' }]).done).status).toBe('completed');
    expect(lastBearer(server)).toBe('Bearer sk-new');
  });

  it('forgets the key on null: the file goes, and the next request fails naming the missing key', async () => {
    const { server, temp, runtime, manager } = await start({ storedKey: 'sk-old' });
    await runtime.setStoredApiKey(null);
    await expect(fs.stat(join(temp.home, 'auth.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(runtime.config.provider.apiKey).toBeNull();
    await expect(runtime.setStoredApiKey(null)).resolves.toBeUndefined();

    const thread = await manager.start({ cwd: temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    expect(turn.status).toBe('failed');
    expect(turn.error?.message).toMatch(/^model provider "mock" needs an API key/);
    expect(server.requests.filter((r) => r.wire !== 'models')).toHaveLength(0);

    await runtime.setStoredApiKey('sk-again');
    expect((await thread.startTurn([{ type: 'text', text: 'hi again' }]).done).status).toBe('completed');
    expect(lastBearer(server)).toBe('Bearer sk-again');
  });

  it('keeps an OPENAI_API_KEY from the environment ahead of the stored key', async () => {
    const { server, temp, runtime, manager } = await start({ env: { OPENAI_API_KEY: 'sk-env' } });
    await runtime.setStoredApiKey('sk-stored');
    expect(runtime.config.provider.apiKey).toBe('sk-env');
    expect(await readStoredApiKey(temp.home)).toBe('sk-stored');
    const thread = await manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'x' }]).done;
    expect(lastBearer(server)).toBe('Bearer sk-env');
    await runtime.setStoredApiKey(null);
    expect(runtime.config.provider.apiKey).toBe('sk-env');
  });

  it('stores an empty key as given but treats it as no key', async () => {
    const { temp, runtime } = await start({ storedKey: 'sk-old' });
    await runtime.setStoredApiKey('');
    expect((await readAuthFile(temp.home))?.OPENAI_API_KEY).toBe('');
    expect(runtime.config.provider.apiKey).toBeNull();
  });

  it('applies concurrent changes one at a time, in call order', async () => {
    const { temp, runtime } = await start({ storedKey: 'sk-old' });
    await Promise.all([runtime.setStoredApiKey('sk-a'), runtime.setStoredApiKey(null), runtime.setStoredApiKey('sk-b')]);
    expect(await readStoredApiKey(temp.home)).toBe('sk-b');
    expect(runtime.config.provider.apiKey).toBe('sk-b');
  });

  it('still refuses to start on a provider whose key is missing', async () => {
    await expect(start()).rejects.toBeInstanceOf(MissingApiKeyError);
  });
});
