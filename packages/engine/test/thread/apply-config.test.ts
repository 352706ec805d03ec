/**
 * `EngineRuntime.applyConfig`: a config written while the engine runs reaches new threads (their
 * defaults, their provider, their shell environment) while loaded threads keep what they were
 * built with; stored-key changes reach every provider client; the demo model the runtime runs
 * itself serves every config that chooses it, without any config being edited; an unusable
 * config is refused whole. Real files in a temp home, real
 * scripted model servers, the real openai SDK; the config changes through `writeUserConfig`, as
 * the app-server writes it.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { writeUserConfig, type ConfigEdit } from '../../src/config/config-write.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ResolvedConfig } from '../../src/config/resolve-config.js';
import type { LocalProvider } from '../../src/model/local-providers.js';
import { EngineRuntime } from '../../src/thread/runtime.js';
import { ThreadManager } from '../../src/thread/thread-manager.js';
import type { Thread } from '../../src/thread/thread.js';
import { openOnConfig, RecordingApprovals } from '../helpers/engine.js';

interface Setup {
  first: ScriptedModelServer;
  second: ScriptedModelServer;
  temp: TempHome;
  runtime: EngineRuntime;
  manager: ThreadManager;
}

let setup: Setup | null = null;
afterEach(async () => {
  await setup?.manager.close();
  await setup?.first.close();
  await setup?.second.close();
  await setup?.temp.cleanup();
  setup = null;
});

/** A provider table pointing at `server` (no retries, so a failure shows at once). */
function providerToml(id: string, server: ScriptedModelServer, extra: string[] = []): string[] {
  return [`[model_providers.${id}]`, `name = "${id}"`, `base_url = "${server.url}"`, 'request_max_retries = 0', 'stream_max_retries = 0', ...extra];
}

/** Two scripted servers; the home's config.toml is `toml(first, second)`, its auth.json holds `storedKey` if given. */
async function start(
  toml: (first: ScriptedModelServer, second: ScriptedModelServer) => string[],
  options: { env?: NodeJS.ProcessEnv; storedKey?: string } = {},
): Promise<Setup> {
  const first = await startScriptedModelServer({ handler: () => ({ output: [text('from first')] }) });
  const second = await startScriptedModelServer({ handler: () => ({ output: [text('from second')] }) });
  const temp = await makeTempHome('deputy-apply-');
  try {
    const { runtime, manager } = await openOnConfig(temp, toml(first, second), options);
    setup = { first, second, temp, runtime, manager };
    return setup;
  } catch (e) {
    await Promise.all([first.close(), second.close()]);
    await temp.cleanup();
    throw e;
  }
}

const BASE = (first: ScriptedModelServer, second: ScriptedModelServer): string[] => [
  'model = "gpt-5.2-codex"',
  'model_provider = "first"',
  'approval_policy = "on-request"',
  'sandbox_mode = "read-only"',
  ...providerToml('first', first),
  ...providerToml('second', second),
];

/** Writes `edits` to the runtime's config.toml and returns the resolved result (not yet applied). */
async function written(runtime: EngineRuntime, edits: Array<[string, unknown]>): Promise<ResolvedConfig> {
  const list: ConfigEdit[] = edits.map(([keyPath, value]) => ({ keyPath, value, mergeStrategy: 'replace' }));
  return (await writeUserConfig(runtime.config, { edits: list, versionOf: () => 'v' })).config;
}

/** The model requests a server received (not `GET /models`). */
function modelRequests(server: ScriptedModelServer) {
  return server.requests.filter((r) => r.wire !== 'models');
}

/** A local provider that serves from `server` (left open: the test closes it) and counts starts and stops. */
function countedLocal(server: ScriptedModelServer): LocalProvider & { starts: number; closes: number } {
  const counted = {
    starts: 0,
    closes: 0,
    start: async () => {
      counted.starts += 1;
      return { url: server.url, close: async () => void (counted.closes += 1) };
    },
  };
  return counted;
}

async function runTurn(thread: Thread, input = 'hi'): Promise<{ status: string; error?: { message: string } | null }> {
  return (await thread.startTurn([{ type: 'text', text: input }]).done) as { status: string; error?: { message: string } | null };
}

describe('EngineRuntime.applyConfig', () => {
  it('gives new threads the written defaults and model while a loaded thread keeps its settings', async () => {
    const { first, temp, runtime, manager } = await start(BASE);
    const loaded = await manager.start({ cwd: temp.cwd });
    const before = { ...loaded.settings };

    runtime.applyConfig(
      await written(runtime, [
        ['model', 'gpt-4.1'],
        ['approval_policy', 'never'],
        ['sandbox_mode', 'workspace-write'],
        ['model_reasoning_effort', 'high'],
        ['developer_instructions', 'be brief'],
      ]),
    );
    expect(runtime.config).toMatchObject({ model: 'gpt-4.1', approvalPolicy: 'never', sandboxMode: 'workspace-write', reasoningEffort: 'high' });

    const fresh = await manager.start({ cwd: temp.cwd });
    expect(fresh.settings).toMatchObject({ model: 'gpt-4.1', approvalPolicy: 'never', reasoningEffort: 'high', developerInstructions: 'be brief' });
    expect(fresh.settings.sandboxPolicy.type).toBe('workspace-write');
    expect(loaded.settings).toEqual(before);

    expect((await runTurn(fresh)).status).toBe('completed');
    expect(modelRequests(first).at(-1)?.body.model).toBe('gpt-4.1');
    expect((await runTurn(loaded)).status).toBe('completed');
    expect(modelRequests(first).at(-1)?.body.model).toBe('gpt-5.2-codex');
  });

  it('puts new threads on a newly chosen provider and keeps loaded threads on theirs', async () => {
    const { first, second, temp, runtime, manager } = await start(BASE);
    const loaded = await manager.start({ cwd: temp.cwd });
    const stored = await manager.start({ cwd: temp.cwd });
    expect((await runTurn(stored)).status).toBe('completed');
    await manager.unload(stored.id);

    runtime.applyConfig(await written(runtime, [['model_provider', 'second']]));
    expect(runtime.providerId).toBe('second');

    const fresh = await manager.start({ cwd: temp.cwd });
    expect(fresh.meta.modelProvider).toBe('second');
    expect((await runTurn(fresh)).status).toBe('completed');
    expect(modelRequests(second)).toHaveLength(1);

    const firstCount = modelRequests(first).length;
    expect((await runTurn(loaded)).status).toBe('completed');
    expect(modelRequests(first)).toHaveLength(firstCount + 1);
    expect(modelRequests(second)).toHaveLength(1);

    // A thread loaded after the change (resumed from its rollout, or forked) runs on the new provider.
    const resumed = await manager.resume(stored.id);
    expect((await runTurn(resumed, 'again')).status).toBe('completed');
    const forked = await manager.fork(loaded.id);
    expect(forked.meta.modelProvider).toBe('second');
    expect((await runTurn(forked, 'fork')).status).toBe('completed');
    expect(modelRequests(second)).toHaveLength(3);
    expect(modelRequests(first)).toHaveLength(firstCount + 1);
  });

  it('switches new threads to an edited provider table (same id, other URL)', async () => {
    const { first, second, temp, runtime, manager } = await start(BASE);
    const loaded = await manager.start({ cwd: temp.cwd });
    runtime.applyConfig(await written(runtime, [['model_providers.first.base_url', second.url]]));
    expect(runtime.providerId).toBe('first');
    expect((await runTurn(await manager.start({ cwd: temp.cwd }))).status).toBe('completed');
    expect(modelRequests(second)).toHaveLength(1);
    expect((await runTurn(loaded)).status).toBe('completed');
    expect(modelRequests(first)).toHaveLength(1);
  });

  it('applies a stored-key change to every provider client, including the one a loaded thread keeps', async () => {
    const auth = ['requires_openai_auth = true'];
    const { first, second, temp, runtime, manager } = await start((a, b) => [
      'model = "gpt-5.2-codex"',
      'model_provider = "first"',
      ...providerToml('first', a, auth),
      ...providerToml('second', b, auth),
    ], { storedKey: 'sk-one' });
    const loaded = await manager.start({ cwd: temp.cwd });
    runtime.applyConfig(await written(runtime, [['model_provider', 'second']]));
    const fresh = await manager.start({ cwd: temp.cwd });

    await runtime.setStoredApiKey('sk-two');
    expect(runtime.config.provider.apiKey).toBe('sk-two');
    await runTurn(loaded);
    await runTurn(fresh);
    expect(modelRequests(first).at(-1)?.headers.authorization).toBe('Bearer sk-two');
    expect(modelRequests(second).at(-1)?.headers.authorization).toBe('Bearer sk-two');
  }, 20_000);

  it('keeps a key stored while the applied config was being resolved', async () => {
    const { runtime } = await start((a, b) => [...BASE(a, b).slice(0, 2), ...providerToml('first', a, ['requires_openai_auth = true']), ...providerToml('second', b)], {
      storedKey: 'sk-old',
    });
    const next = await written(runtime, [['approval_policy', 'never']]);
    await runtime.setStoredApiKey('sk-stored');
    runtime.applyConfig(next);
    expect(runtime.config.approvalPolicy).toBe('never');
    expect(runtime.config.sources.storedOpenaiKey).toBe('sk-stored');
    expect(runtime.config.provider.apiKey).toBe('sk-stored');
  });

  it('accepts a provider without its key, failing only the requests of threads built on it', async () => {
    const { second, temp, runtime, manager } = await start((a, b) => [...BASE(a, b), 'env_key = "DEPUTY_TEST_NO_SUCH_KEY"']);
    const loaded = await manager.start({ cwd: temp.cwd });
    runtime.applyConfig(await written(runtime, [['model_provider', 'second']]));
    const turn = await runTurn(await manager.start({ cwd: temp.cwd }));
    expect(turn.status).toBe('failed');
    expect(turn.error?.message).toMatch(/^model provider "second" needs an API key: set the environment variable DEPUTY_TEST_NO_SUCH_KEY/);
    expect(modelRequests(second)).toHaveLength(0);
    expect((await runTurn(loaded)).status).toBe('completed');
  });

  it('serves the demo provider from its own local server across later configs, starting it once', async () => {
    const { second, temp } = await start(BASE);
    // The offline demo fallback: no provider, no key; the runtime runs the demo model itself.
    await fs.writeFile(join(temp.home, 'config.toml'), 'approval_policy = "on-request"\n');
    const demo = await loadConfig({ home: temp.home, cwd: temp.cwd, env: {} });
    expect(demo).toMatchObject({ modelProviderId: 'demo', usingDemoFallback: true });
    const demoBefore = JSON.stringify(demo);
    const local = countedLocal(second);
    const runtime = await EngineRuntime.create({ config: demo, approvals: new RecordingApprovals(), source: 'exec', localProviders: { demo: local } });
    const manager = await ThreadManager.open(runtime);
    try {
      runtime.applyConfig(await written(runtime, [['approval_policy', 'never']]));
      expect(runtime.config).toMatchObject({ modelProviderId: 'demo', approvalPolicy: 'never', provider: { baseUrl: null } });
      expect(local.starts).toBe(0);
      const thread = await manager.start({ cwd: temp.cwd });
      expect(thread.settings.approvalPolicy).toBe('never');
      expect((await runTurn(thread)).status).toBe('completed');
      expect((await runTurn(await manager.start({ cwd: temp.cwd }))).status).toBe('completed');
      expect(modelRequests(second).map((r) => r.body.model)).toEqual(['demo-scripted', 'demo-scripted']);
      expect(local.starts).toBe(1);
      expect(JSON.stringify(demo)).toBe(demoBefore);
    } finally {
      await manager.close();
      await runtime.close();
    }
    expect(local.closes).toBe(1);
  });

  it('starts the demo model when a write switches to the demo provider; the loaded thread stays on its provider', async () => {
    const { first, second, temp, runtime, manager } = await start(BASE);
    const local = countedLocal(second);
    const onDemo = await EngineRuntime.create({ config: runtime.config, approvals: new RecordingApprovals(), source: 'exec', localProviders: { demo: local } });
    const demoManager = await ThreadManager.open(onDemo);
    try {
      const loaded = await demoManager.start({ cwd: temp.cwd });
      onDemo.applyConfig(await written(onDemo, [['model_provider', 'demo'], ['model', 'demo-scripted']]));
      const fresh = await demoManager.start({ cwd: temp.cwd });
      expect(fresh.settings.model).toBe('demo-scripted');
      expect(await runTurn(fresh)).toMatchObject({ status: 'completed' });
      expect(modelRequests(second).at(-1)?.body.model).toBe('demo-scripted');
      expect((await runTurn(loaded)).status).toBe('completed');
      expect(modelRequests(first)).toHaveLength(1);
      expect(local.starts).toBe(1);
    } finally {
      await demoManager.close();
      await onDemo.close();
    }
    void manager;
  });

  it('builds the shell environment of new threads from the new policy; older threads keep theirs', async () => {
    const { runtime } = await start(BASE);
    const older = runtime.createThreadServices();
    runtime.applyConfig(await written(runtime, [['shell_environment_policy', { inherit: 'none', set: { DEPUTY_LIVE: '1' } }]]));
    const newer = runtime.createThreadServices();
    try {
      expect(newer.services.childEnv().DEPUTY_LIVE).toBe('1');
      expect(newer.services.childEnv().PATH).toBeUndefined();
      expect(older.services.childEnv().DEPUTY_LIVE).toBeUndefined();
    } finally {
      older.close();
      newer.close();
    }
  });

  it('refuses a config whose shell_environment_policy does not parse, or of another home, applying nothing', async () => {
    const { temp, runtime } = await start(BASE);
    const before = runtime.config;
    const bad = await written(runtime, [['shell_environment_policy', { inherit: 'some' }]]);
    expect(() => runtime.applyConfig(bad)).toThrow(ConfigError);
    expect(() => runtime.applyConfig(bad)).toThrow(`${join(temp.home, 'config.toml')}: shell_environment_policy.inherit: `);
    expect(runtime.config).toBe(before);

    const other = await makeTempHome('deputy-apply-other-');
    try {
      const foreign = await loadConfig({ home: other.home, cwd: other.cwd, env: { OPENAI_API_KEY: 'sk-x' } });
      expect(() => runtime.applyConfig(foreign)).toThrow(`cannot apply the config of ${other.home}: this runtime serves ${temp.home}`);
      expect(runtime.config).toBe(before);
    } finally {
      await other.cleanup();
    }
  });
});
