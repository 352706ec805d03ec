/** Shared test helpers: bounded waits (`waitFor` comes from test-support) and small WebSocket clients. */
import { request, type RequestOptions } from 'node:http';
import WebSocket from 'ws';
import { Connection, type ConnectionOptions, type IncomingHandler } from '../src/connection.js';
import type { Listener } from '../src/transport/transport.js';

/** The shared bounded poll, re-exported for the many tests that import it from here. */
export { waitFor } from '@deputy/test-support';

/** Rejects if `promise` has not settled within `timeoutMs`. */
export function within<T>(promise: Promise<T>, timeoutMs = 5000, what = 'promise'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Opens a ws client; resolves once open, rejects with the HTTP status on a refused upgrade. */
export function openClient(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
}

/** Collects parsed text frames a client receives. */
export function inbox(ws: WebSocket): Record<string, unknown>[] {
  const received: Record<string, unknown>[] = [];
  ws.on('message', (data, isBinary) => {
    if (!isBinary) received.push(JSON.parse(data.toString()) as Record<string, unknown>);
  });
  return received;
}

/** Closes a client and waits for its close event (terminates after a bounded wait). */
export async function closeClient(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return;
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.close();
  const timer = setTimeout(() => ws.terminate(), 1000);
  await closed;
  clearTimeout(timer);
}

/** Sends a plain HTTP request and resolves with its status and body. */
export function httpRequest(options: RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Accepts every connection of a listener as a `Connection` with the given options. */
export function serve(listener: Listener, options: Omit<ConnectionOptions, 'handler'> & { handler?: IncomingHandler } = {}): Connection[] {
  const connections: Connection[] = [];
  const handler: IncomingHandler = options.handler ?? {
    handleRequest: (r) => ({ method: r.method, params: r.params ?? null }),
  };
  void (async () => {
    for await (const transport of listener.connections()) connections.push(new Connection(transport, { ...options, handler }));
  })();
  return connections;
}
