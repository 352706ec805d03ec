/**
 * The parts loaded on first need, in process with a real engine, store and model server and the
 * server set up as the process runs it (no output validation, so the full method tables load
 * lazily; the clients' wire validator still checks every message): the handshake is answered
 * from its own table without loading the configuration, the first request after it opens the
 * engine once, requests that arrive meanwhile are handled in arrival order, configuration
 * warnings loaded late still precede every waiting response, and a configuration that fails to
 * load is reported and retried by the next request.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@deputy/engine';
import { isJsonRpcNotification, type JsonRpcMessage } from '@deputy/protocol';
import { createMemoryTransportPair, type Transport } from '@deputy/rpc';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { createLogger } from '../src/logger.js';
import { DeputyAppServer, type AppServerOptions, type DeferredConfig } from '../src/server.js';
import { testConfigToml, type HarnessOptions } from './support/config-toml.js';
import { referenceScript } from './support/mock-model.js';
import { WireClient } from './support/wire-client.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: DeputyAppServer | undefined;
const clients: WireClient[] = [];
/** Releases of held configuration loads, so a failed test still lets the server close. */
const releases: Array<() => void> = [];

beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeTempHome('deputy-as-lazy-');
});
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await server?.close();
  server = undefined;
  await model.close();
  await temp.cleanup();
});

/** A deferred configuration of the temp home that counts its loads and can be held back. */
function deferredConfig(hold?: Promise<void>): { config: DeferredConfig; loads: () => number; started: Promise<void> } {
  let loads = 0;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const config: DeferredConfig = {
    home: temp.home,
    async load() {
      loads += 1;
      markStarted();
      await hold;
      return loadConfig({ home: temp.home, cwd: temp.cwd, overrides: [], env: {} });
    },
  };
  return { config, loads: () => loads, started };
}

async function startServer(config: DeferredConfig, toml: HarnessOptions = {}, extra: Partial<AppServerOptions> = {}): Promise<DeputyAppServer> {
  await writeFile(join(temp.home, 'config.toml'), testConfigToml(model.url, toml));
  server = await DeputyAppServer.start({ config, cwd: temp.cwd, logger: createLogger('error'), ...extra });
  return server;
}

/** Connects a client; `onDispatched` sees each inbound message once the server has handed it on. */
function connect(onDispatched: (message: JsonRpcMessage) => void = () => undefined): WireClient {
  const [serverSide, clientSide] = createMemoryTransportPair();
  const observed: Transport = {
    description: serverSide.description,
    closed: serverSide.closed,
    send: (message) => serverSide.send(message),
    close: (reason) => serverSide.close(reason),
    async *messages() {
      for await (const message of serverSide.messages()) {
        yield message;
        onDispatched(message);
      }
    },
  };
  (server as DeputyAppServer).accept(observed, 'memory');
  const client = new WireClient(clientSide);
  clients.push(client);
  return client;
}

/** Position of the response to `id` among everything the client received. */
function responseIndex(client: WireClient, id: string): number {
  return client.received.findIndex((m) => !isJsonRpcNotification(m) && 'id' in m && m.id === id && !('method' in m));
}

describe('the handshake before anything else is loaded', () => {
  it('answers initialize and its errors from the handshake table', async () => {
    const { config, loads } = deferredConfig();
    await startServer(config);
    const client = connect();
    expect((await client.request('initialize')).error).toEqual({ code: -32600, message: 'Invalid request: missing field `params`' });
    expect((await client.request('initialize', {})).error?.message).toBe('Invalid request: missing field `clientInfo`');
    expect(await client.initialize()).toMatchObject({ codexHome: temp.home });
    expect((await client.request('initialize', { clientInfo: { name: 'x', version: '1' } })).error?.message).toBe('Already initialized');
    expect(loads()).toBe(0);
    expect(server?.isEngineOpen).toBe(false);
  });

  it('answers requests before the handshake from the full tables without opening the engine', async () => {
    const { config, loads } = deferredConfig();
    await startServer(config);
    const client = connect();
    const early = client.request('thread/list', {});
    const unknown = client.request('thread/explode', {});
    const init = client.initialize();
    expect((await early).error).toEqual({ code: -32600, message: 'Not initialized' });
    expect((await unknown).error?.message).toMatch(/^Invalid request: unknown variant `thread\/explode`, expected one of `initialize`, `thread\/start`, /);
    expect(await init).toMatchObject({ codexHome: temp.home });
    expect(loads()).toBe(0);
    expect(server?.isEngineOpen).toBe(false);
  });
});

describe('the engine opened on first need', () => {
  it('answers initialize without loading the configuration, then opens the engine once for the requests after it', async () => {
    const { config, loads } = deferredConfig();
    await startServer(config);
    const client = connect();
    const result = await client.initialize();
    expect(result).toMatchObject({ codexHome: temp.home, platformFamily: 'unix' });
    await client.waitForNotification('remoteControl/status/changed');
    expect(loads()).toBe(0);
    expect(server?.isEngineOpen).toBe(false);
    expect(await client.call('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
    const { thread } = await client.call<{ thread: { id: string } }>('thread/start', {});
    expect(await client.call('thread/loaded/list', {})).toEqual({ data: [thread.id], nextCursor: null });
    expect(loads()).toBe(1);
    expect(server?.isEngineOpen).toBe(true);
  });

  it('holds every request that arrives while the engine opens, then handles them in arrival order', async () => {
    let release!: () => void;
    const { config, started } = deferredConfig(new Promise<void>((resolve) => (release = resolve)));
    releases.push(release);
    await startServer(config);
    let dispatched = 0;
    let allDispatched!: () => void;
    const handedOn = new Promise<void>((resolve) => (allDispatched = resolve));
    const client = connect(() => {
      dispatched += 1;
      // initialize, initialized, then the four requests below.
      if (dispatched === 6) allDispatched();
    });
    await client.initialize();
    const ids = ['first', 'again', 'second', 'third'];
    const responses = ids.map((id) =>
      id === 'again' ? client.request('initialize', { clientInfo: { name: 'again', version: '1' } }, id) : client.request('thread/loaded/list', {}, id),
    );
    await Promise.all([started, handedOn]);
    // Give any response that was not held the turns it would need to arrive.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(ids.map((id) => responseIndex(client, id))).toEqual([-1, -1, -1, -1]);
    release();
    const [first, again, second, third] = await Promise.all(responses);
    expect(again?.error).toEqual({ code: -32600, message: 'Already initialized' });
    for (const response of [first, second, third]) expect(response).toMatchObject({ result: { data: [], nextCursor: null } });
    const order = ['first', 'second', 'third'].map((id) => responseIndex(client, id));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('sends the configuration warnings before any response that waited for the configuration', async () => {
    const { config } = deferredConfig();
    await startServer(config, { approvalPolicy: 'on-failure' });
    const client = connect();
    await client.initialize();
    await client.waitForNotification('remoteControl/status/changed');
    expect(client.notifications('configWarning')).toEqual([]);
    await client.request('thread/loaded/list', {}, 'after-handshake');
    const warning = client.received.findIndex((m) => isJsonRpcNotification(m) && m.method === 'configWarning');
    expect(warning).toBeGreaterThan(-1);
    expect(warning).toBeLessThan(responseIndex(client, 'after-handshake'));
    expect(client.notifications('configWarning')[0]?.params).toEqual({ summary: expect.stringContaining('on-failure'), details: null });
    // A client that connects later gets them right after its own handshake.
    const late = connect();
    await late.initialize();
    await late.waitForNotification('configWarning');
  });

  it('reports a configuration that does not load, answers the waiting request with an error and tries again on the next request', async () => {
    const { config, loads } = deferredConfig();
    const failures: unknown[] = [];
    let reported!: () => void;
    const firstReport = new Promise<void>((resolve) => (reported = resolve));
    await startServer(config, {}, {
      onEngineError: (error) => {
        failures.push(error);
        reported();
      },
    });
    await writeFile(join(temp.home, 'config.toml'), 'model = [broken\n');
    const client = connect();
    await client.initialize();
    const failed = await client.request('thread/loaded/list', {});
    expect(failed.error?.message).toContain('config.toml');
    await firstReport;
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('config.toml');
    expect(server?.isEngineOpen).toBe(false);
    await writeFile(join(temp.home, 'config.toml'), testConfigToml(model.url));
    expect(await client.call('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
    expect(loads()).toBe(2);
    expect(failures).toHaveLength(1);
  });
});
