/**
 * A client that stops reading (its socket paused) fills its connection's outbound queue: past the
 * soft limit its requests get -32001, past the hard limit it is disconnected, and a second client
 * on the same listener is served throughout.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import type { Connection } from '../src/connection.js';
import type { RpcLogger } from '../src/transport/transport.js';
import { listenWebSocket, type WebSocketListener } from '../src/transport/websocket.js';
import { closeClient, inbox, openClient, serve, waitFor, within } from './helpers.js';

const SOFT = 4;
const HARD = 8;
const BLOB = 'z'.repeat(256 * 1024);

let listener: WebSocketListener;
let connections: Connection[];
let warnings: string[];
const clients: WebSocket[] = [];

beforeEach(async () => {
  warnings = [];
  const logger: RpcLogger = { info() {}, warn: (m) => warnings.push(m), error() {} };
  listener = await listenWebSocket({ host: '127.0.0.1', port: 0 });
  connections = serve(listener, { outboundSoftLimit: SOFT, outboundHardLimit: HARD, logger });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map(closeClient));
  await listener.close();
});

async function connect(): Promise<WebSocket> {
  const ws = await openClient(listener.url);
  clients.push(ws);
  return ws;
}

/** Queues big notifications, one per timer turn so the writer can flush, until `done()`; bounded by a count. */
async function floodUntil(connection: Connection, done: () => boolean): Promise<number> {
  let sent = 0;
  while (!done()) {
    if (sent > 2000) throw new Error('the outbound queue never grew: is the client really not reading?');
    connection.notify('flood', { n: sent, blob: BLOB });
    sent += 1;
    await new Promise((r) => setTimeout(r, 1));
  }
  return sent;
}

async function roundTrip(ws: WebSocket, messages: Record<string, unknown>[], id: string): Promise<Record<string, unknown>> {
  ws.send(JSON.stringify({ id, method: 'ping' }));
  await waitFor(() => messages.some((m) => m.id === id), 5000, `answer to ${id}`);
  return messages.find((m) => m.id === id) as Record<string, unknown>;
}

describe('slow consumer backpressure', () => {
  it('answers -32001 past the soft limit, then serves the client again once it reads', async () => {
    const fast = await connect();
    const fastInbox = inbox(fast);
    await waitFor(() => connections.length === 1);
    const slow = await connect();
    const slowInbox = inbox(slow);
    await waitFor(() => connections.length === 2);
    const slowConnection = connections[1] as Connection;

    slow.pause();
    const sent = await floodUntil(slowConnection, () => slowConnection.outboundQueueLength >= SOFT);
    // The OS socket buffers absorbed the first messages; only then did the queue grow.
    expect(sent).toBeGreaterThan(SOFT);
    expect(await roundTrip(fast, fastInbox, 'fast-1')).toEqual({ id: 'fast-1', result: { method: 'ping', params: null } });

    slow.send(JSON.stringify({ id: 'slow-1', method: 'ping' }));
    await waitFor(() => warnings.includes('answered a request with overloaded'), 5000, 'overload answer');
    expect(slowConnection.isClosed).toBe(false);

    slow.resume();
    await waitFor(() => slowInbox.some((m) => m.id === 'slow-1'), 10_000, 'overload response');
    expect(slowInbox.find((m) => m.id === 'slow-1')).toEqual({
      error: { code: -32001, message: 'Server overloaded; retry later.' },
      id: 'slow-1',
    });
    await within(slowConnection.flush(), 10_000, 'queue drained');
    expect(await roundTrip(slow, slowInbox, 'slow-2')).toEqual({ id: 'slow-2', result: { method: 'ping', params: null } });
  });

  it('disconnects a client that stays unread past the hard limit while another client keeps working', async () => {
    const fast = await connect();
    const fastInbox = inbox(fast);
    await waitFor(() => connections.length === 1);
    const slow = await connect();
    await waitFor(() => connections.length === 2);
    const slowConnection = connections[1] as Connection;
    const slowClosed = new Promise<void>((resolve) => slow.once('close', () => resolve()));

    slow.pause();
    await floodUntil(slowConnection, () => slowConnection.isClosed);
    await within(slowConnection.closed, 5000, 'server-side close');
    expect(warnings).toContain('disconnecting a slow connection: outbound queue is full');
    expect(await roundTrip(fast, fastInbox, 'fast-2')).toMatchObject({ id: 'fast-2' });
    expect(connections[0]?.isClosed).toBe(false);

    slow.resume();
    await within(slowClosed, 10_000, 'client sees the close');
  });
});
