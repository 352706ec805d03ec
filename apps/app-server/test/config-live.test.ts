/**
 * Contract tests of config writes taking effect without a restart: after `config/value/write` or
 * `config/batchWrite`, new threads (start, fork) get the written defaults, model and provider,
 * while a loaded thread keeps its settings and its provider; `config/read`, `model/list`,
 * `account/read` and `hooks/list` follow; a write the engine cannot use is refused; the offline
 * demo provider keeps serving across a write, and a write that chooses it puts new threads on
 * the demo model the engine runs itself. A second scripted model server stands for a second
 * provider; which server a turn reached is read from their recorded requests.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@deputy/engine';
import { createMemoryTransportPair } from '@deputy/rpc';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer } from '@deputy/test-support';
import { createLogger } from '../src/logger.js';
import { DeputyAppServer } from '../src/server.js';
import { testConfigToml } from './support/config-toml.js';
import { harnessPerTest, type Harness } from './support/harness.js';
import { referenceScript } from './support/mock-model.js';
import { runTurn, startThread } from './support/turns.js';
import { WireClient } from './support/wire-client.js';
import { WireValidator } from './support/wire-validator.js';

const harness = harnessPerTest();

let second: ScriptedModelServer | null = null;
afterEach(async () => {
  await second?.close();
  second = null;
});

/** A second model server, listing its own models. */
async function secondServer(): Promise<ScriptedModelServer> {
  second = await startScriptedModelServer({ handler: referenceScript, models: ['second-model', 'second-mini'] });
  return second;
}

/** The models a server was asked for, in order (`GET /models` left out). */
function modelsAsked(server: ScriptedModelServer): unknown[] {
  return server.requests.filter((r) => r.wire === 'responses').map((r) => r.body.model);
}

interface Session {
  thread: { id: string };
  model: string;
  modelProvider: string;
  approvalPolicy: string;
  sandbox: { type: string };
  reasoningEffort: string | null;
}

const replace = (keyPath: string, value: unknown) => ({ keyPath, value, mergeStrategy: 'replace' });

/** Writes `edits` in one batch; resolves with the write result. */
function batchWrite(client: WireClient, edits: Array<ReturnType<typeof replace>>): Promise<{ status: string }> {
  return client.call('config/batchWrite', { edits });
}

/** The second provider's table and the keys that select it. */
function secondProviderEdits(server: ScriptedModelServer): Array<ReturnType<typeof replace>> {
  return [
    replace('model_providers.second', { name: 'Second', base_url: server.url, request_max_retries: 0, stream_max_retries: 0 }),
    replace('model_provider', 'second'),
    replace('model', 'second-model'),
  ];
}

describe('config writes reach new threads', () => {
  it('thread/start shows the written approval policy, sandbox, model and effort; the first turn asks for the written model', async () => {
    const server = await harness();
    const client = await server.connect();
    const loaded = await client.call<Session>('thread/start', {});
    expect(loaded).toMatchObject({ model: 'mock-model', approvalPolicy: 'never', sandbox: { type: 'dangerFullAccess' }, reasoningEffort: null });

    await batchWrite(client, [
      replace('model', 'gpt-4.1'),
      replace('approval_policy', 'on-request'),
      replace('sandbox_mode', 'read-only'),
      replace('model_reasoning_effort', 'high'),
    ]);
    const fresh = await client.call<Session>('thread/start', {});
    expect(fresh).toMatchObject({ model: 'gpt-4.1', modelProvider: 'mock', approvalPolicy: 'on-request', sandbox: { type: 'readOnly' }, reasoningEffort: 'high' });
    await runTurn(client, fresh.thread.id, 'new thread');
    expect(modelsAsked(server.model)).toEqual(['gpt-4.1']);

    // The loaded thread keeps what it started with.
    await runTurn(client, loaded.thread.id, 'loaded thread');
    expect(modelsAsked(server.model)).toEqual(['gpt-4.1', 'mock-model']);
    const resumed = await client.call<Session>('thread/resume', { threadId: loaded.thread.id });
    expect(resumed).toMatchObject({ model: 'mock-model', approvalPolicy: 'never', sandbox: { type: 'dangerFullAccess' }, reasoningEffort: null });
  });

  it('a single config/value/write is enough, and thread/fork takes the new defaults too', async () => {
    const server = await harness();
    const client = await server.connect();
    const source = await startThread(client);
    await client.call('config/value/write', { keyPath: 'approval_policy', value: 'untrusted', mergeStrategy: 'replace' });
    expect((await client.call<Session>('thread/start', {})).approvalPolicy).toBe('untrusted');
    expect((await client.call<Session>('thread/fork', { threadId: source.id })).approvalPolicy).toBe('untrusted');
    expect((await client.call<Session>('thread/resume', { threadId: source.id })).approvalPolicy).toBe('never');
  });
});

describe('a model_provider switch', () => {
  it('puts new threads on the new provider while a loaded thread stays on its own', async () => {
    const server = await harness();
    const other = await secondServer();
    const client = await server.connect();
    const loaded = await startThread(client);

    expect(await batchWrite(client, secondProviderEdits(other))).toMatchObject({ status: 'ok' });
    const fresh = await client.call<Session>('thread/start', {});
    expect(fresh).toMatchObject({ model: 'second-model', modelProvider: 'second' });
    await runTurn(client, fresh.thread.id, 'on second');
    expect(modelsAsked(other)).toEqual(['second-model']);

    await runTurn(client, loaded.id, 'still on mock');
    expect(modelsAsked(server.model)).toEqual(['mock-model']);
    expect(modelsAsked(other)).toEqual(['second-model']);

    const fork = await client.call<Session>('thread/fork', { threadId: loaded.id });
    expect(fork).toMatchObject({ modelProvider: 'second', model: 'mock-model' });
    expect((await client.request('thread/start', { modelProvider: 'mock' })).error?.message).toBe('model provider `mock` is not available: this server runs `second`');
    expect((await client.call<Session>('thread/start', { modelProvider: 'second' })).modelProvider).toBe('second');
  });

  it('is what config/read, model/list and account/read report', async () => {
    const server = await harness();
    const other = await secondServer();
    const client = await server.connect();
    const before = await client.call<{ data: Array<{ id: string }> }>('model/list', {});
    expect(before.data[0]?.id).toBe('mock-model');

    await batchWrite(client, secondProviderEdits(other));
    const read = await client.call<{ config: Record<string, unknown> }>('config/read', {});
    expect(read.config).toMatchObject({ model: 'second-model', model_provider: 'second', model_providers: { second: { name: 'Second' } } });
    const models = await client.call<{ data: Array<{ id: string; isDefault: boolean; description: string }> }>('model/list', {});
    expect(models.data.map((m) => [m.id, m.isDefault])).toEqual([
      ['second-model', true],
      ['second-mini', false],
    ]);
    expect(models.data[0]?.description).toMatch(/ via Second/);
    expect(await client.call('account/read', {})).toEqual({ account: null, requiresOpenaiAuth: false });

    // A provider that takes the OpenAI key, with none stored: reported at once, and only new threads fail.
    const loaded = await startThread(client);
    await client.call('config/value/write', { keyPath: 'model_providers.second.requires_openai_auth', value: true, mergeStrategy: 'replace' });
    expect(await client.call('account/read', {})).toEqual({ account: null, requiresOpenaiAuth: true });
    const failed = await runTurn(client, (await startThread(client)).id, 'no key');
    expect(failed.params.turn).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/^model provider "second" needs an API key/) } });
    const fine = await runTurn(client, loaded.id, 'loaded before');
    expect(fine.params.turn).toMatchObject({ status: 'completed' });
  });
});

describe('other readers of the config', () => {
  it('hooks/list lists hooks written to config.toml', async () => {
    const server = await harness();
    const client = await server.connect();
    const hooks = [{ matcher: '^Bash$', hooks: [{ type: 'command', command: './check.sh' }] }];
    await client.call('config/value/write', { keyPath: 'hooks.PreToolUse', value: hooks, mergeStrategy: 'replace' });
    const listed = await client.call<{ data: Array<{ hooks: Array<Record<string, unknown>> }> }>('hooks/list', {});
    expect(listed.data[0]?.hooks.map((hook) => [hook.eventName, hook.command, hook.matcher])).toEqual([['preToolUse', './check.sh', '^Bash$']]);
  });

  it('a config/read that finds config.toml edited on disk applies it to new threads', async () => {
    const server = await harness();
    const client = await server.connect();
    await startThread(client);
    const file = join(server.temp.home, 'config.toml');
    await writeFile(file, testConfigToml(server.model.url, { approvalPolicy: 'untrusted' }));
    expect((await client.call<Session>('thread/start', {})).approvalPolicy).toBe('never');
    expect((await client.call<{ config: Record<string, unknown> }>('config/read', {})).config.approval_policy).toBe('untrusted');
    expect((await client.call<Session>('thread/start', {})).approvalPolicy).toBe('untrusted');
  });
});

describe('a write the engine cannot use', () => {
  it('is refused with configValidationError; new threads keep the previous configuration and the server keeps serving', async () => {
    const server: Harness = await harness();
    const client = await server.connect();
    await client.call('config/value/write', { keyPath: 'approval_policy', value: 'on-request', mergeStrategy: 'replace' });
    const refused = await client.request('config/batchWrite', {
      edits: [replace('approval_policy', 'untrusted'), replace('shell_environment_policy', { inherit: 'some' })],
    });
    expect(refused.error).toMatchObject({ code: -32600, data: { config_write_error_code: 'configValidationError' } });
    expect(refused.error?.message).toMatch(/^Invalid configuration: .*config\.toml: shell_environment_policy\.inherit: /);
    // Refused before the file was touched: neither edit of the batch is there.
    const file = await readFile(join(server.temp.home, 'config.toml'), 'utf8');
    expect(file).not.toContain('shell_environment_policy');
    expect(file).toContain('approval_policy = "on-request"');
    expect((await client.call<Session>('thread/start', {})).approvalPolicy).toBe('on-request');
    await client.call('config/value/write', { keyPath: 'approval_policy', value: 'untrusted', mergeStrategy: 'replace' });
    expect((await client.call<Session>('thread/start', {})).approvalPolicy).toBe('untrusted');
  });
});

describe('the offline demo model', () => {
  it('keeps serving new threads after a write', async () => {
    const demo = await startScriptedModelServer({ handler: referenceScript });
    const temp = await makeTempHome('deputy-live-demo-');
    const validator = new WireValidator();
    let app: DeputyAppServer | null = null;
    let client: WireClient | null = null;
    try {
      // The demo provider's table points it at this test's scripted server (no provider chosen, no key).
      await writeFile(join(temp.home, 'config.toml'), `approval_policy = "on-request"\n\n[model_providers.demo]\nbase_url = "${demo.url}"\n`);
      const config = await loadConfig({ home: temp.home, cwd: temp.cwd, env: {} });
      expect(config).toMatchObject({ modelProviderId: 'demo', usingDemoFallback: true });
      app = await DeputyAppServer.start({ config, cwd: temp.cwd, validateOutput: true, logger: createLogger('error') });
      const [serverSide, clientSide] = createMemoryTransportPair();
      app.accept(serverSide, 'memory');
      client = new WireClient(clientSide, { validator, name: 'demo client' });
      await client.initialize({});

      await client.call('config/value/write', { keyPath: 'approval_policy', value: 'never', mergeStrategy: 'replace' });
      const started = await client.call<Session>('thread/start', {});
      expect(started).toMatchObject({ modelProvider: 'demo', model: 'demo-scripted', approvalPolicy: 'never' });
      const done = await runTurn(client, started.thread.id, 'hello');
      expect(done.params.turn).toMatchObject({ status: 'completed' });
      expect(modelsAsked(demo)).toEqual(['demo-scripted']);
      expect(validator.problems).toEqual([]);
    } finally {
      await client?.close().catch(() => undefined);
      await app?.close();
      await demo.close();
      await temp.cleanup();
    }
  });

  it('serves new threads from the built-in demo model once a write chooses it', async () => {
    const server = await harness();
    const client = await server.connect();
    const before = await client.call<Session>('thread/start', {});
    expect(before.modelProvider).toBe('mock');

    await client.call('config/value/write', { keyPath: 'model_provider', value: 'demo', mergeStrategy: 'replace' });
    const started = await client.call<Session>('thread/start', {});
    expect(started).toMatchObject({ modelProvider: 'demo' });
    const asked = server.model.requests.length;
    const done = await runTurn(client, started.thread.id, 'what is in this folder?');
    expect(done.params.turn).toMatchObject({ status: 'completed' });
    const items = client.notifications('item/completed').map((n) => n.params.item as { type: string; text?: string; command?: string });
    expect(items.find((i) => i.type === 'commandExecution')?.command).toContain('ls -la');
    expect(items.filter((i) => i.type === 'agentMessage').at(-1)?.text).toMatch(/offline demo model/);
    expect(server.model.requests).toHaveLength(asked);
  });
});
