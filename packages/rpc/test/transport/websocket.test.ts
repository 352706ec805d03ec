/** The ws:// listener on 127.0.0.1: round trips, health probes, Origin refusal, framing, and closing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { listenWebSocket, type WebSocketListener } from '../../src/transport/websocket.js';
import type { Connection } from '../../src/connection.js';
import type { RpcLogger } from '../../src/transport/transport.js';
import { closeClient, httpRequest, inbox, openClient, serve, waitFor, within } from '../helpers.js';

let listener: WebSocketListener;
let connections: Connection[];
let warnings: string[];
const clients: WebSocket[] = [];

beforeEach(async () => {
  warnings = [];
  const logger: RpcLogger = { info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  listener = await listenWebSocket({ host: '127.0.0.1', port: 0, logger });
  connections = serve(listener);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map(closeClient));
  await listener.close();
});

async function client(options?: WebSocket.ClientOptions): Promise<WebSocket> {
  const ws = await openClient(listener.url, options);
  clients.push(ws);
  return ws;
}

describe('WebSocket listener', () => {
  it('binds the asked host and a real port, and reports its URL', () => {
    expect(listener.address.host).toBe('127.0.0.1');
    expect(listener.address.port).toBeGreaterThan(0);
    expect(listener.url).toBe(`ws://127.0.0.1:${listener.address.port}`);
  });

  it('answers a request sent as one text frame with one text frame, without the jsonrpc member', async () => {
    const ws = await client();
    const frames: string[] = [];
    ws.on('message', (d) => frames.push(d.toString()));
    ws.send('{"jsonrpc":"2.0","id":"r1","method":"thread/list","params":{"limit":1}}');
    await waitFor(() => frames.length === 1);
    expect(frames[0]).toBe('{"id":"r1","result":{"method":"thread/list","params":{"limit":1}}}');
    await waitFor(() => connections.length === 1);
    connections[0]?.notify('thread/started', { threadId: 't' });
    await waitFor(() => frames.length === 2);
    expect(frames[1]).toBe('{"method":"thread/started","params":{"threadId":"t"}}');
  });

  it('accepts any request path', async () => {
    const ws = await client();
    await closeClient(ws);
    const other = await openClient(`${listener.url}/some/path?x=1`);
    clients.push(other);
    expect(other.readyState).toBe(WebSocket.OPEN);
  });

  it('answers GET /readyz and GET /healthz with 200 and an empty body', async () => {
    for (const path of ['/readyz', '/healthz']) {
      expect(await httpRequest({ host: '127.0.0.1', port: listener.address.port, path })).toEqual({ status: 200, body: '' });
    }
  });

  it('answers a plain GET / with 400 and the reference body', async () => {
    expect(await httpRequest({ host: '127.0.0.1', port: listener.address.port, path: '/' })).toEqual({
      status: 400,
      body: "Connection header did not include 'upgrade'",
    });
  });

  it('refuses any request carrying an Origin header with 403, probe or upgrade', async () => {
    const probe = await httpRequest({
      host: '127.0.0.1',
      port: listener.address.port,
      path: '/readyz',
      headers: { Origin: 'http://evil.example' },
    });
    expect(probe.status).toBe(403);
    await expect(openClient(listener.url, { origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
    expect(connections).toHaveLength(0);
  });

  it('accepts a client that offers permessage-deflate without negotiating it', async () => {
    const ws = await client({ perMessageDeflate: true });
    expect(ws.extensions).toBe('');
    const messages = inbox(ws);
    ws.send(JSON.stringify({ id: 1, method: 'x' }));
    await waitFor(() => messages.length === 1);
    expect(messages[0]).toEqual({ id: 1, result: { method: 'x', params: null } });
  });

  it('ignores binary frames and undecodable text without closing the connection', async () => {
    const ws = await client();
    const messages = inbox(ws);
    ws.send(Buffer.from('{"id":1,"method":"binary"}'), { binary: true });
    ws.send('{not json');
    ws.send('[{"id":2,"method":"batch"}]');
    ws.send('{"id":3,"method":"real"}');
    await waitFor(() => messages.length === 1);
    expect(messages[0]).toEqual({ id: 3, result: { method: 'real', params: null } });
    expect(warnings).toEqual(['ignored a binary frame', 'dropped an invalid message', 'dropped an invalid message']);
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });

  it('echoes a client close with a normal close and closes the server connection', async () => {
    const ws = await client();
    await waitFor(() => connections.length === 1);
    const code = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    ws.close(1000);
    expect(await within(code, 3000, 'close')).toBe(1000);
    await within(connections[0]!.closed, 3000, 'server side close');
  });

  it('closes open connections and stops accepting when the listener closes', async () => {
    const ws = await client();
    const closed = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    await waitFor(() => connections.length === 1);
    await listener.close();
    expect(await within(closed, 3000, 'client close')).toBe(1000);
    await expect(openClient(listener.url)).rejects.toThrow();
  });
});
