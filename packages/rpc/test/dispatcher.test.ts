/** The dispatcher over linked memory transports, with a wire sniffer checking every frame both ways. */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INTERNAL_ERROR, INVALID_REQUEST, decodeMessage } from '@deputy/protocol';
import { Connection, ConnectionClosedError, type IncomingHandler } from '../src/connection.js';
import { createDispatcher, sendTypedNotification, sendTypedRequest, type DispatcherTables, type MethodHandlers } from '../src/dispatcher.js';
import { RpcError } from '../src/errors.js';
import { createMemoryTransportPair } from '../src/transport/memory.js';
import type { RpcLogger } from '../src/transport/transport.js';
import { waitFor } from './helpers.js';

const methods = {
  'thread/read': {
    params: z.object({ threadId: z.string(), includeTurns: z.boolean().optional() }),
    result: z.object({ thread: z.object({ id: z.string() }) }),
  },
  'thread/wait': { params: z.object({}), result: z.object({}) },
  'thread/boom': { params: z.object({ kind: z.string() }), result: z.object({}) },
  'thread/badResult': { params: z.object({}), result: z.object({ data: z.array(z.string()) }) },
  'model/list': { params: z.object({}), result: z.object({}) },
  // Shaped like the app-server table rows: all-optional params that are still required, and a no-params method.
  'config/read': { params: z.object({ cwd: z.string().nullish() }).nullish(), result: z.object({}), paramsRequired: true },
  'configRequirements/read': { params: z.object({}).nullish(), result: z.object({ ok: z.boolean() }), paramsRequired: false },
} as const;
const clientNotifications = { initialized: z.object({}).nullish(), 'client/ping': z.object({ n: z.number() }) } as const;
const serverRequests = {
  'item/commandExecution/requestApproval': {
    params: z.object({ command: z.string() }),
    result: z.object({ decision: z.enum(['accept', 'decline']) }),
  },
};
const serverNotifications = { 'thread/started': z.object({ threadId: z.string() }) };

interface Harness {
  client: Connection;
  server: Connection;
  frames: { direction: string; text: string }[];
  pings: number[];
  waiting: { signal?: AbortSignal };
  warnings: string[];
  initialized: { value: boolean };
}

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close('test over')));
});

function harness(clientHandler: IncomingHandler = { handleRequest: () => null }): Harness {
  const frames: Harness['frames'] = [];
  const [clientSide, serverSide] = createMemoryTransportPair({ sniff: (direction, text) => frames.push({ direction, text }) });
  const pings: number[] = [];
  const waiting: Harness['waiting'] = {};
  const warnings: string[] = [];
  const initialized = { value: true };
  const logger: RpcLogger = { info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const handlers: MethodHandlers<typeof methods> = {
    'thread/read': (params) => {
      if (params.threadId === 'missing') throw RpcError.notFound('thread', params.threadId);
      return { thread: { id: params.threadId } };
    },
    'thread/wait': (_params, ctx) =>
      new Promise((_resolve, reject) => {
        waiting.signal = ctx.signal;
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
      }),
    'thread/boom': (params) => {
      if (params.kind === 'engine') throw Object.assign(new Error('thread t1 is busy'), { code: 'turn_in_progress' });
      throw new Error('disk on fire\nstack line');
    },
    // Deliberately wrong to exercise validateResults.
    'thread/badResult': () => ({ data: [1, 2] }) as unknown as { data: string[] },
    'config/read': () => ({}),
    'configRequirements/read': () => ({ ok: true }),
  };
  const dispatcher = createDispatcher(methods, handlers, {
    validateResults: true,
    logger,
    guard: () => {
      if (!initialized.value) throw RpcError.notInitialized();
    },
    notifications: { table: clientNotifications, handlers: { 'client/ping': (p) => void pings.push(p.n) } },
  });
  const server = new Connection(serverSide, { handler: dispatcher, logger });
  const client = new Connection(clientSide, { handler: clientHandler });
  open.push(client, server);
  return { client, server, frames, pings, waiting, warnings, initialized };
}

async function rpcFailure(p: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) };
    throw e;
  }
  throw new Error('expected an error response');
}

describe('createDispatcher', () => {
  it('answers a valid request with the handler result and every frame is a valid envelope without jsonrpc', async () => {
    const h = harness();
    await expect(h.client.request('thread/read', { threadId: 't1', extra: 'ignored' })).resolves.toEqual({ thread: { id: 't1' } });
    expect(h.frames.map((f) => f.text)).toEqual([
      '{"method":"thread/read","id":0,"params":{"threadId":"t1","extra":"ignored"}}',
      '{"id":0,"result":{"thread":{"id":"t1"}}}',
    ]);
    for (const frame of h.frames) {
      expect(decodeMessage(frame.text).ok).toBe(true);
      expect(frame.text).not.toContain('"jsonrpc"');
    }
  });

  it('answers an unknown method with -32600 listing the accepted names', async () => {
    const h = harness();
    expect(await rpcFailure(h.client.request('no/such/method', {}))).toEqual({
      code: INVALID_REQUEST,
      message:
        'Invalid request: unknown variant `no/such/method`, expected one of `thread/read`, `thread/wait`, `thread/boom`, `thread/badResult`, `model/list`, `config/read`, `configRequirements/read`',
    });
    expect(await rpcFailure(h.client.request('toString'))).toMatchObject({ code: INVALID_REQUEST });
  });

  it('answers bad params with the serde-like text and the zod issues', async () => {
    const h = harness();
    expect(await rpcFailure(h.client.request('thread/read', {}))).toEqual({
      code: INVALID_REQUEST,
      message: 'Invalid request: missing field `threadId`',
      data: { issues: [{ code: 'invalid_type', path: ['threadId'], message: expect.any(String) }] },
    });
    expect((await rpcFailure(h.client.request('thread/read', { threadId: 42 }))).message).toBe(
      'Invalid request: invalid type: integer `42`, expected a string',
    );
    expect((await rpcFailure(h.client.request('thread/read'))).message).toBe('Invalid request: missing field `params`');
    expect((await rpcFailure(h.client.request('thread/read', null))).message).toBe('Invalid request: missing field `params`');
  });

  it('refuses absent params for a row marked paramsRequired even when the schema allows them', async () => {
    const h = harness();
    expect((await rpcFailure(h.client.request('config/read'))).message).toBe('Invalid request: missing field `params`');
    await expect(h.client.request('config/read', {})).resolves.toEqual({});
    await expect(h.client.request('configRequirements/read')).resolves.toEqual({ ok: true });
  });

  it('maps what handlers throw: RpcError as is, engine codes to -32600, the rest to -32603', async () => {
    const h = harness();
    expect(await rpcFailure(h.client.request('thread/read', { threadId: 'missing' }))).toEqual({
      code: INVALID_REQUEST,
      message: 'thread not found: missing',
    });
    expect(await rpcFailure(h.client.request('thread/boom', { kind: 'engine' }))).toEqual({
      code: INVALID_REQUEST,
      message: 'thread t1 is busy',
    });
    expect(await rpcFailure(h.client.request('thread/boom', { kind: 'other' }))).toEqual({
      code: INTERNAL_ERROR,
      message: 'disk on fire',
    });
    expect(h.warnings).toContain('request handler failed');
  });

  it('answers a table method without a handler as not supported', async () => {
    const h = harness();
    expect(await rpcFailure(h.client.request('model/list', {}))).toEqual({
      code: INVALID_REQUEST,
      message: 'Invalid request: `model/list` is not supported by this server',
    });
  });

  it('runs the guard after params are parsed and before the handler', async () => {
    const h = harness();
    h.initialized.value = false;
    expect((await rpcFailure(h.client.request('thread/read', {}))).message).toBe('Invalid request: missing field `threadId`');
    expect((await rpcFailure(h.client.request('thread/read', { threadId: 't' }))).message).toBe('Not initialized');
  });

  it('reports a result that fails its schema as an internal error when validateResults is on', async () => {
    const h = harness();
    expect(await rpcFailure(h.client.request('thread/badResult', {}))).toEqual({
      code: INTERNAL_ERROR,
      message: 'Internal error: the result of thread/badResult failed validation',
    });
  });

  it('delivers known client notifications and drops unknown or invalid ones without answering', async () => {
    const h = harness();
    h.client.notify('no/such/notification', {});
    h.client.notify('client/ping', { n: 'not a number' });
    h.client.notify('client/ping', { n: 1 });
    h.client.notify('initialized');
    await waitFor(() => h.pings.length === 1);
    await expect(h.client.request('thread/read', { threadId: 'after' })).resolves.toEqual({ thread: { id: 'after' } });
    expect(h.pings).toEqual([1]);
    expect(h.warnings).toEqual(['dropped an unknown notification', 'dropped a notification with invalid params']);
    expect(h.frames.filter((f) => f.direction === 'b->a')).toHaveLength(1);
  });

  it('aborts a running handler when the connection closes', async () => {
    const h = harness();
    const call = h.client.request('thread/wait', {});
    await waitFor(() => h.waiting.signal !== undefined);
    await h.server.close('shutting down');
    expect(h.waiting.signal?.aborted).toBe(true);
    expect(h.waiting.signal?.reason).toBeInstanceOf(ConnectionClosedError);
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('a table loaded on first need', () => {
  const handshake = { hello: { params: z.object({ name: z.string() }), result: z.string() } } as const;
  const full: DispatcherTables = {
    requests: { ...handshake, 'thread/read': methods['thread/read'] },
    acceptedMethods: ['hello', 'thread/read', 'plugin/list'],
    notifications: { 'client/ping': z.object({ n: z.number() }) },
  };

  function lazyHarness() {
    const [clientSide, serverSide] = createMemoryTransportPair();
    const admitted: string[] = [];
    const guarded: string[] = [];
    const pings: number[] = [];
    let loaded: Promise<DispatcherTables> | null = null;
    let finishLoad!: () => void;
    const dispatcher = createDispatcher(
      handshake,
      { hello: (p) => `hello ${p.name}`, 'thread/read': (p: { threadId: string }) => ({ thread: { id: p.threadId } }) } as MethodHandlers<typeof handshake>,
      {
        admit: (request) => {
          admitted.push(request.method);
          if (request.method === 'hello' && loaded === null) return null;
          loaded ??= new Promise((resolve) => (finishLoad = () => resolve(full)));
          return loaded;
        },
        guard: (method) => void guarded.push(method),
        notifications: { table: {}, handlers: { 'client/ping': (p: { n: number }) => void pings.push(p.n) } },
      },
    );
    const server = new Connection(serverSide, { handler: dispatcher });
    const client = new Connection(clientSide, { handler: { handleRequest: () => null } });
    open.push(client, server);
    return { client, dispatcher, admitted, guarded, pings, load: () => finishLoad() };
  }

  it('serves its own table until admission hands over the loaded one, which then serves every message', async () => {
    const h = lazyHarness();
    await expect(h.client.request('hello', { name: 'a' })).resolves.toBe('hello a');
    expect(h.dispatcher.methods).toEqual(['hello']);
    const read = h.client.request('thread/read', { threadId: 't1' });
    const hello = h.client.request('hello', { name: 'b' });
    await waitFor(() => h.admitted.length === 3);
    h.load();
    await expect(read).resolves.toEqual({ thread: { id: 't1' } });
    await expect(hello).resolves.toBe('hello b');
    expect(h.dispatcher.methods).toEqual(['hello', 'thread/read']);
    h.client.notify('client/ping', { n: 1 });
    await waitFor(() => h.pings.length === 1);
  });

  it('guards an accepted name the table does not serve, then answers it as not supported', async () => {
    const h = lazyHarness();
    const unserved = h.client.request('plugin/list', {});
    const unknown = h.client.request('no/such', {});
    await waitFor(() => h.admitted.length === 2);
    h.load();
    // Both failures are awaited together: the second may arrive before the first is read.
    const [unservedFailure, unknownFailure] = await Promise.all([rpcFailure(unserved), rpcFailure(unknown)]);
    expect(unservedFailure).toEqual({ code: INVALID_REQUEST, message: 'Invalid request: `plugin/list` is not supported by this server' });
    expect(unknownFailure.message).toBe('Invalid request: unknown variant `no/such`, expected one of `hello`, `thread/read`, `plugin/list`');
    expect(h.guarded).toEqual(['plugin/list']);
  });
});

describe('typed calls to the peer', () => {
  it('sends a server request from a table and parses the client result with its schema', async () => {
    const answers: unknown[] = [{ decision: 'accept' }, { decision: 'maybe' }];
    const h = harness({ handleRequest: (req) => (req.method.endsWith('requestApproval') ? answers.shift() : null) });
    const method = 'item/commandExecution/requestApproval';
    await expect(sendTypedRequest(h.server, serverRequests, method, { command: 'ls' })).resolves.toEqual({ decision: 'accept' });
    await expect(sendTypedRequest(h.server, serverRequests, method, { command: 'ls' })).rejects.toBeInstanceOf(z.ZodError);
    expect(h.frames.filter((f) => f.direction === 'b->a').map((f) => JSON.parse(f.text).id)).toEqual([0, 1]);
  });

  it('validates an outgoing notification when asked and refuses to send a bad one', async () => {
    const h = harness();
    const seen: unknown[] = [];
    const h2 = harness({ handleRequest: () => null, handleNotification: (n) => void seen.push(n) });
    sendTypedNotification(h2.server, serverNotifications, 'thread/started', { threadId: 't' }, { validate: true });
    expect(() =>
      sendTypedNotification(h.server, serverNotifications, 'thread/started', { threadId: 1 } as never, { validate: true }),
    ).toThrow(z.ZodError);
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([{ method: 'thread/started', params: { threadId: 't' } }]);
  });
});
