/** `Connection` over memory transports: outbound ids, responses, timeouts, aborts, limits, closing. */
import { afterEach, describe, expect, it } from 'vitest';
import { INTERNAL_ERROR, SERVER_OVERLOADED, type JsonRpcMessage } from '@deputy/protocol';
import { Connection, ConnectionClosedError, RequestTimeoutError, type IncomingHandler } from '../src/connection.js';
import { RpcError } from '../src/errors.js';
import { createMemoryTransportPair } from '../src/transport/memory.js';
import type { RpcLogger, Transport } from '../src/transport/transport.js';
import { waitFor, within } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

/** A connection under test, and the raw transport of its peer (we speak the wire by hand). */
function connected(handler: IncomingHandler, options: { maxInFlightRequests?: number; outboundSoftLimit?: number; logger?: RpcLogger } = {}) {
  const [ours, theirs] = createMemoryTransportPair();
  const connection = new Connection(ours, { handler, ...options });
  const received: JsonRpcMessage[] = [];
  void (async () => {
    for await (const m of theirs.messages()) received.push(m);
  })();
  cleanup.push(() => connection.close());
  return { connection, peer: theirs as Transport, received };
}

const answerNothing: IncomingHandler = { handleRequest: () => null };

describe('Connection', () => {
  it('numbers outbound requests from 0 and resolves each with its own response', async () => {
    const { connection, peer, received } = connected(answerNothing);
    const first = connection.request('a', { n: 1 });
    const second = connection.request('b');
    await waitFor(() => received.length === 2);
    expect(received).toEqual([
      { method: 'a', id: 0, params: { n: 1 } },
      { method: 'b', id: 1 },
    ]);
    await peer.send({ id: 1, result: 'second' });
    await peer.send({ id: 0, error: { code: -32000, message: 'nope', data: { why: 1 } } });
    await expect(second).resolves.toBe('second');
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32000, message: 'nope', data: { why: 1 } });
  });

  it('does not match a response whose id has another JSON type, and drops it with a log line', async () => {
    const warnings: string[] = [];
    const logger: RpcLogger = { info() {}, warn: (m) => warnings.push(m), error() {} };
    const { connection, peer, received } = connected(answerNothing, { logger });
    const call = connection.request('a', undefined, { timeoutMs: 2000 });
    await waitFor(() => received.length === 1);
    await peer.send({ id: '0', result: 'wrong type' });
    await peer.send({ id: 0, result: 'right' });
    await expect(call).resolves.toBe('right');
    expect(warnings).toEqual(['dropped a response to an unknown request id']);
  });

  it('rejects a call that times out and drops its late response', async () => {
    const warnings: string[] = [];
    const logger: RpcLogger = { info() {}, warn: (m) => warnings.push(m), error() {} };
    const { connection, peer, received } = connected(answerNothing, { logger });
    await expect(connection.request('slow', undefined, { timeoutMs: 20 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await peer.send({ id: 0, result: 'late' });
    const next = connection.request('next');
    await waitFor(() => received.length === 2);
    await peer.send({ id: 1, result: 'on time' });
    await expect(next).resolves.toBe('on time');
    expect(warnings).toEqual(['dropped a response to an unknown request id']);
  });

  it('rejects a call with the reason of its abort signal', async () => {
    const { connection } = connected(answerNothing);
    const controller = new AbortController();
    const call = connection.request('x', undefined, { signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow('user gave up');
    await expect(connection.request('y', undefined, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already');
  });

  it('rejects pending calls and aborts its signal when the peer goes away', async () => {
    const { connection, peer } = connected(answerNothing);
    const call = connection.request('x');
    await peer.close();
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    await within(connection.closed, 2000, 'connection close');
    expect(connection.signal.aborted).toBe(true);
    await expect(connection.request('after')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('answers duplicate client ids each time, echoing the id with its type', async () => {
    const { peer, received } = connected({ handleRequest: (r) => ({ echo: r.params }) });
    await peer.send({ id: 1015, method: 'm', params: 1 });
    await peer.send({ id: 1015, method: 'm', params: 2 });
    await peer.send({ id: '1015', method: 'm', params: 3 });
    await waitFor(() => received.length === 3);
    expect(received).toEqual(
      expect.arrayContaining([
        { id: 1015, result: { echo: 1 } },
        { id: 1015, result: { echo: 2 } },
        { id: '1015', result: { echo: 3 } },
      ]),
    );
  });

  it('answers -32001 once the in-flight limit is reached, and serves again when handlers finish', async () => {
    const release: (() => void)[] = [];
    const { connection, peer, received } = connected(
      { handleRequest: () => new Promise<string>((resolve) => release.push(() => resolve('done'))) },
      { maxInFlightRequests: 2 },
    );
    for (const id of [1, 2, 3]) await peer.send({ id, method: 'work' });
    await waitFor(() => received.length === 1);
    expect(received[0]).toEqual({ error: { code: SERVER_OVERLOADED, message: 'Server overloaded; retry later.' }, id: 3 });
    expect(connection.inFlightRequests).toBe(2);
    for (const r of release.splice(0)) r();
    await waitFor(() => received.length === 3);
    await peer.send({ id: 4, method: 'work' });
    await waitFor(() => release.length === 1);
    release[0]?.();
    await waitFor(() => received.length === 4);
    expect(received[3]).toEqual({ id: 4, result: 'done' });
  });

  it('answers -32603 for a result that cannot be encoded and keeps the connection usable', async () => {
    const { peer, received } = connected({ handleRequest: (r) => (r.method === 'big' ? { n: 10n } : 'fine') });
    await peer.send({ id: 1, method: 'big' });
    await peer.send({ id: 2, method: 'ok' });
    await waitFor(() => received.length === 2);
    expect(received).toEqual([
      { id: 1, error: { code: INTERNAL_ERROR, message: 'Internal error' } },
      { id: 2, result: 'fine' },
    ]);
  });

  it('runs afterResponse work right after the response, for results and errors, and logs a throw', async () => {
    const errors: string[] = [];
    const logger: RpcLogger = { info() {}, warn() {}, error: (m) => errors.push(m) };
    const { connection, peer, received } = connected(
      {
        handleRequest: async (r, ctx) => {
          ctx.afterResponse(() => connection.notify('after', { id: r.id }));
          ctx.afterResponse(() => {
            throw new Error('post-response bug');
          });
          ctx.afterResponse(() => connection.notify('after again', { id: r.id }));
          await new Promise((resolve) => setImmediate(resolve));
          connection.notify('before', { id: r.id });
          if (r.method === 'fail') throw RpcError.invalidRequest('no');
          return 'ok';
        },
      },
      { logger },
    );
    await peer.send({ id: 1, method: 'work' });
    await waitFor(() => received.length === 4);
    await peer.send({ id: 2, method: 'fail' });
    await waitFor(() => received.length === 8);
    expect(received).toEqual([
      { method: 'before', params: { id: 1 } },
      { id: 1, result: 'ok' },
      { method: 'after', params: { id: 1 } },
      { method: 'after again', params: { id: 1 } },
      { method: 'before', params: { id: 2 } },
      { id: 2, error: { code: -32600, message: 'no' } },
      { method: 'after', params: { id: 2 } },
      { method: 'after again', params: { id: 2 } },
    ]);
    expect(errors).toEqual(['post-response work failed', 'post-response work failed']);
  });

  it('answers a burst of requests before the work they scheduled fills the write queue', async () => {
    const { connection, peer, received } = connected(
      {
        handleRequest: async (r, ctx) => {
          ctx.afterResponse(() => {
            for (let i = 0; i < 5; i++) connection.notify('progress', { id: r.id, i });
          });
          return 'ok';
        },
      },
      { outboundSoftLimit: 10 },
    );
    await Promise.all(Array.from({ length: 20 }, (_, i) => peer.send({ id: i + 1, method: 'work' })));
    await waitFor(() => received.length === 20 * 6);
    const answers = received.filter((m) => 'id' in m);
    expect(answers).toHaveLength(20);
    expect(answers.every((m) => 'result' in m)).toBe(true);
  });

  it('runs afterResponse work at once when the response is already queued', async () => {
    let late!: (fn: () => void) => void;
    const { connection, peer, received } = connected({
      handleRequest: (_r, ctx) => {
        late = (fn) => ctx.afterResponse(fn);
        return 'ok';
      },
    });
    await peer.send({ id: 1, method: 'work' });
    await waitFor(() => received.length === 1);
    late(() => connection.notify('late'));
    await waitFor(() => received.length === 2);
    expect(received[1]).toEqual({ method: 'late' });
  });

  it('flushes queued notifications before a caller closes', async () => {
    const { connection, received } = connected(answerNothing);
    for (let i = 0; i < 5; i++) connection.notify('tick', { i });
    await connection.flush();
    await waitFor(() => received.length === 5);
    expect(received.map((m) => ('params' in m ? m.params : null))).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
  });
});
