/**
 * The model client's fetch (node:http under the openai SDK), against real HTTP servers on
 * 127.0.0.1 that count their connections: bodies stream as they arrive, a reader that stops early
 * leaves a fully arrived response's connection in the pool (and cuts one still arriving), aborts
 * reject with the signal's reason, bodies are decompressed, redirects are followed as fetch
 * follows them, a refused connection rejects as fetch does, and idle pooled connections close
 * while a quiet stream in progress is left alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { createModelFetch } from '../../src/model/model-fetch.js';
import { closedPort } from '../helpers/engine.js';

interface TestServer {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Connections the client closed so far. */
  closed: number;
  /** Requests seen, with their bodies. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<TestServer> {
  const state: TestServer = { url: '', connections: 0, closed: 0, requests: [], close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.once('close', () => {
      state.closed += 1;
      sockets.delete(socket);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return state;
}

const until = async (check: () => boolean, ms = 5_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Reads a response body the way the openai SDK does (`for await`), as text. */
async function readBody(response: Response, stopAfter = Infinity): Promise<string> {
  let text = '';
  let n = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += Buffer.from(chunk).toString('utf8');
    if (++n >= stopAfter) break;
  }
  return text;
}

describe('model fetch', () => {
  it('hands over each chunk as it arrives, before the response ends', async () => {
    let finish: () => void = () => undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    });
    const response = await createModelFetch()(`${server.url}/v1/responses`, { method: 'POST', body: '{"stream":true}', headers: { 'content-type': 'application/json' } });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.url).toBe(`${server.url}/v1/responses`);
    const iterator = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    // The server has not ended the response: the first event is here anyway.
    expect(Buffer.from((await iterator.next()).value as Uint8Array).toString()).toBe('data: one\n\n');
    finish();
    expect(Buffer.from((await iterator.next()).value as Uint8Array).toString()).toBe('data: two\n\n');
    expect((await iterator.next()).done).toBe(true);
    expect(server.requests[0]).toMatchObject({ method: 'POST', body: '{"stream":true}' });
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(server.requests[0]!.headers['content-length']).toBe('15');
    expect(server.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('keeps the connection of a response that fully arrived when the reader stops early or aborts', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: a\n\n');
      setTimeout(() => res.end('data: b\n\n'), 20);
    });
    const modelFetch = createModelFetch();
    // Stops after the first chunk, once the whole response is in (as the SDK stops at `response.completed`).
    const first = await modelFetch(server.url, { method: 'POST', body: 'x' });
    const iterator = (first.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    expect(Buffer.from((await iterator.next()).value as Uint8Array).toString()).toBe('data: a\n\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await iterator.return?.();
    // The rest drains on the next turns of the loop; the connection is back in the pool after that.
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Aborts once it has what it wanted, as the SDK does when its reader stops.
    const controller = new AbortController();
    const second = await modelFetch(server.url, { method: 'POST', body: 'y', signal: controller.signal });
    const reader = (second.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    expect(Buffer.from((await reader.next()).value as Uint8Array).toString()).toBe('data: a\n\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await expect(reader.next()).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await (await modelFetch(server.url, { method: 'POST', body: 'z' })).text()).toBe('data: a\n\ndata: b\n\n');
    expect(server.requests.map((r) => r.body)).toEqual(['x', 'y', 'z']);
    expect(server.connections).toBe(1);
  });

  it('cuts a response still arriving when the reader stops, and the next request gets a new connection', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: a\n\n');
      if (req.url === '/short') res.end();
    });
    const modelFetch = createModelFetch();
    expect(await readBody(await modelFetch(`${server.url}/long`, { method: 'POST', body: '1' }), 1)).toBe('data: a\n\n');
    await until(() => server.closed === 1);
    expect(await (await modelFetch(`${server.url}/short`, { method: 'POST', body: '2' })).text()).toBe('data: a\n\n');
    expect(server.connections).toBe(2);
  });

  it('rejects with the signal’s reason when aborted before the response, and while the body arrives', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/silent') return; // never answers
      res.writeHead(200);
      res.write('part');
    });
    const modelFetch = createModelFetch();
    const early = new AbortController();
    const pending = modelFetch(`${server.url}/silent`, { method: 'POST', body: '{}', signal: early.signal });
    await until(() => server.requests.length === 1);
    early.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const late = new AbortController();
    const response = await modelFetch(`${server.url}/partial`, { method: 'POST', body: '{}', signal: late.signal });
    const iterator = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    expect(Buffer.from((await iterator.next()).value as Uint8Array).toString()).toBe('part');
    const next = iterator.next();
    late.abort(new DOMException('stop now', 'AbortError'));
    await expect(next).rejects.toMatchObject({ name: 'AbortError', message: 'stop now' });
    // Both connections were cut: the server saw each one close.
    await until(() => server.closed === 2);

    const already = new AbortController();
    already.abort();
    await expect(modelFetch(`${server.url}/partial`, { signal: already.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(2);
  });

  it('decompresses gzip and brotli bodies, streamed and read whole', async () => {
    const payload = 'data: {"type":"response.completed"}\n\n'.repeat(50);
    const server = await serve((req, res) => {
      const br = req.url === '/br';
      res.writeHead(503, { 'content-encoding': br ? 'br' : 'gzip', 'content-type': 'application/json' });
      res.end(br ? brotliCompressSync(payload) : gzipSync(payload));
    });
    const modelFetch = createModelFetch();
    const gz = await modelFetch(`${server.url}/gz`);
    expect(gz.ok).toBe(false);
    expect(gz.status).toBe(503);
    expect(await gz.text()).toBe(payload);
    expect(await readBody(await modelFetch(`${server.url}/br`))).toBe(payload);
  });

  it('follows redirects as fetch does: 307 sends the body again, 303 becomes a GET, another origin gets no Authorization', async () => {
    const other = await serve((_req, res) => res.end('elsewhere'));
    const server = await serve((req, res) => {
      if (req.url === '/307') return res.writeHead(307, { location: '/final' }).end();
      if (req.url === '/303') return res.writeHead(303, { location: '/final' }).end();
      if (req.url === '/away') return res.writeHead(302, { location: `${other.url}/landed` }).end();
      res.end(`${req.method} ${req.headers.authorization ?? 'no-auth'}`);
    });
    const modelFetch = createModelFetch();
    const init = { method: 'POST', body: '{"a":1}', headers: { authorization: 'Bearer k', 'content-type': 'application/json' } };

    const kept = await modelFetch(`${server.url}/307`, init);
    expect(await kept.text()).toBe('POST Bearer k');
    expect(kept.redirected).toBe(true);
    expect(kept.url).toBe(`${server.url}/final`);
    expect(server.requests[1]).toMatchObject({ method: 'POST', url: '/final', body: '{"a":1}' });

    expect(await (await modelFetch(`${server.url}/303`, init)).text()).toBe('GET Bearer k');
    expect(server.requests[3]).toMatchObject({ method: 'GET', url: '/final', body: '' });
    expect(server.requests[3]!.headers['content-type']).toBeUndefined();

    expect(await (await modelFetch(`${server.url}/away`, init)).text()).toBe('elsewhere');
    expect(other.requests[0]).toMatchObject({ method: 'GET', url: '/landed' });
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('rejects a refused connection as fetch does, with the socket error as the cause', async () => {
    const port = await closedPort();
    const failure = await createModelFetch()(`http://127.0.0.1:${port}/v1/responses`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  });

  it('closes pooled connections left idle, and leaves a quiet stream in progress alone', async () => {
    let finish: () => void = () => undefined;
    const server = await serve((req, res) => {
      res.writeHead(200);
      if (req.url === '/quick') return res.end('done');
      res.write('start');
      finish = () => res.end('end');
    });
    const modelFetch = createModelFetch({ idleSocketMs: 150 });
    expect(await (await modelFetch(`${server.url}/quick`)).text()).toBe('done');
    await until(() => server.closed === 1);

    const stream = await modelFetch(`${server.url}/quiet`);
    const iterator = (stream.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    expect(Buffer.from((await iterator.next()).value as Uint8Array).toString()).toBe('start');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.closed).toBe(1);
    finish();
    expect(Buffer.from((await iterator.next()).value as Uint8Array).toString()).toBe('end');
    expect((await iterator.next()).done).toBe(true);
  });
});
