/**
 * The model client's `fetch` (the openai SDK's `fetch` option): the request goes out through
 * `node:http` / `node:https` on keep-alive agents, and the response body is the Node stream itself.
 *
 * Why not the global `fetch`: a model turn is two or more streamed requests, and Node's fetch
 * builds the whole WHATWG machinery for each (a `Request`, `Headers` twice, an `AbortSignal` chain,
 * a web `ReadableStream` with a transferable controller per body, a `DOMException` per abort
 * check). With 200 turns at once that was a fifth of the server's event loop, measured
 * (docs/performance.md "The model client's fetch"). The SDK only needs what it reads: `ok`,
 * `status`, `headers`, `url`, a body it can iterate (`for await`) or cancel, and `text()`/`json()`.
 *
 * What fetch did and this keeps: redirects are followed (at most 20; 301/302 turn a POST into a
 * GET, 303 turns anything but HEAD into a GET, 307/308 send the same body again; `Authorization`
 * is dropped when the origin changes), `gzip`/`deflate`/`br` bodies are decompressed (the request
 * says it accepts them, as fetch's does), idle pooled connections close after
 * {@link IDLE_SOCKET_MS} (undici's default), the caller's `AbortSignal` ends the request or the
 * body with its reason (an `AbortError`), and a network failure rejects with a `TypeError('fetch
 * failed')` whose `cause` is the socket's error, as fetch reports it.
 *
 * And one thing an HTTP client owes its callers: a keep-alive connection idle in the pool can be
 * closed by the server at the moment it is reused (the server's idle timer fires as the request
 * goes out); the request then fails with a reset or a hang-up before any response byte, although
 * the provider is fine and never saw it. Such a request is sent again on another connection, at
 * once and whatever `request_max_retries` says, as long as the connection that failed was a
 * reused one (`req.reusedSocket`; hyper, the reference's HTTP client, does the same:
 * `retry_canceled_requests`). A request that fails on a fresh connection (refused, reset,
 * unreachable) is not retried here: that is an outage, and the retry loop (retry.ts) decides.
 *
 * Anything else (a `Request` object, a streamed or form body, a scheme other than http/https) goes
 * to the global `fetch` unchanged; the model client never sends such requests.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** Idle pooled connections are closed after this long (undici's default keep-alive timeout). */
export const IDLE_SOCKET_MS = 4_000;
/** Redirects followed for one request, as fetch does. */
const MAX_REDIRECTS = 20;
/** At most this many sends of one request (stale pooled connections are each tried once). */
const MAX_SENDS = 4;
/** Error codes of a connection the peer closed or reset. */
const PEER_CLOSED = new Set(['ECONNRESET', 'EPIPE']);
/** What the request says it accepts, as Node's fetch does. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The agents one `fetch` function sends on. */
interface Agents {
  'http:': http.Agent;
  'https:': https.Agent;
}

function makeAgents(idleSocketMs: number): Agents {
  // `timeout` closes a pooled socket idle that long; a socket carrying a request is not closed by
  // it (the request listens too, and the agent then leaves the socket alone).
  return {
    'http:': new http.Agent({ keepAlive: true, timeout: idleSocketMs }),
    'https:': new https.Agent({ keepAlive: true, timeout: idleSocketMs }),
  };
}

/** A `fetch` with its own connection pool; `idleSocketMs` is for tests. */
export function createModelFetch(options: { idleSocketMs?: number } = {}): typeof fetch {
  let agents: Agents | undefined;
  return async (input, init) => {
    const body = init?.body;
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : null;
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || !isPlainBody(body)) return fetch(input, init);
    agents ??= makeAgents(options.idleSocketMs ?? IDLE_SOCKET_MS);
    return send(agents, url, init ?? {});
  };
}

/** The model client's `fetch`. */
export const modelFetch: typeof fetch = createModelFetch();

type PlainBody = string | ArrayBuffer | ArrayBufferView | URLSearchParams | null | undefined;

function isPlainBody(body: unknown): body is PlainBody {
  return body === null || body === undefined || typeof body === 'string' || body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof URLSearchParams;
}

function bodyBytes(body: PlainBody): Buffer | null {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The request's headers as lower-case name → value (repeated names joined, as `Headers` does). */
function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined || init === null) return out;
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  };
  if (init instanceof Headers) init.forEach((value, name) => add(name, value));
  else if (Array.isArray(init)) for (const [name, value] of init) add(String(name), String(value));
  else for (const [name, value] of Object.entries(init)) if (value !== undefined && value !== null) add(name, String(value));
  return out;
}

async function send(agents: Agents, firstUrl: URL, init: RequestInit): Promise<Response> {
  const signal = init.signal ?? undefined;
  let url = firstUrl;
  let method = (init.method ?? 'GET').toUpperCase();
  let body = bodyBytes(init.body as PlainBody);
  const headers = headerRecord(init.headers);
  headers['accept-encoding'] ??= ACCEPT_ENCODING;
  if (init.body instanceof URLSearchParams) headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
  for (let redirects = 0; ; redirects += 1) {
    const res = await sendWithStaleRetry(agents, { url, method, headers, body, signal });
    const location = res.headers.location;
    const status = res.statusCode ?? 0;
    if (![301, 302, 303, 307, 308].includes(status) || location === undefined || init.redirect === 'manual') return toResponse(res, url, signal, redirects > 0);
    res.resume();
    if (init.redirect === 'error') throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect to ${location}`) });
    if (redirects >= MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
    const next = new URL(location, url);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`redirect to a ${next.protocol} URL`) });
    if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
      method = 'GET';
      body = null;
      for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) delete headers[name];
    }
    if (next.origin !== url.origin) delete headers.authorization;
    url = next;
  }
}

/** One request as it goes out (after redirects so far). */
interface Outgoing {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
  signal: AbortSignal | undefined;
}

/** One request; sent again on a new connection when a reused one turns out to be closed. */
async function sendWithStaleRetry(agents: Agents, request: Outgoing): Promise<IncomingMessage> {
  const { signal } = request;
  for (let sent = 1; ; sent += 1) {
    try {
      return await sendOnce(agents, request);
    } catch (error) {
      const failure = error as { reused?: boolean };
      if (failure.reused !== true || signal?.aborted === true || sent >= MAX_SENDS) throw error;
      if (process.env.DEPUTY_LOG?.trim().toLowerCase() === 'debug') {
        process.stderr.write(`deputy debug: model request failed on a reused connection (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : ''}); sending it again\n`);
      }
    }
  }
}

/** The signal's reason, or the `AbortError` fetch uses when there is none. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function sendOnce(agents: Agents, { url, method, headers, body, signal }: Outgoing): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const outgoing = body === null ? headers : { ...headers, 'content-length': String(body.length) };
    const agent = agents[url.protocol as keyof Agents];
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers: outgoing, agent });
    let answered = false;
    const onAbort = (): void => {
      if (!answered) req.destroy(abortReason(signal!) as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('response', (res) => {
      answered = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(res);
    });
    // `on`, not `once`: a socket can fail more than once, and an unheard 'error' would crash.
    req.on('error', (error: Error & { code?: string }) => {
      if (answered) return; // the response carries it from here
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(abortReason(signal));
      reject(networkError(error, req.reusedSocket && !answered && PEER_CLOSED.has(error.code ?? '')));
    });
    req.end(body ?? undefined);
  });
}

/** fetch's shape for a network failure: `TypeError('fetch failed')`, the socket's error as `cause`. */
function networkError(error: Error & { code?: string }, reused: boolean): Error {
  // Node says "socket hang up" when the connection closed before any response byte.
  const cause = error.message === 'socket hang up' ? Object.assign(new Error('other side closed'), { code: error.code ?? 'ECONNRESET' }) : error;
  return Object.assign(new TypeError('fetch failed', { cause }), { reused });
}

/** The body as the caller reads it: decompressed. */
function decodedBody(res: IncomingMessage): Readable {
  const encodings = (res.headers['content-encoding'] ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  // An error before the caller reads is kept by the stream and thrown when it does; unheard here,
  // it would crash the process.
  res.on('error', () => undefined);
  let body: Readable = res;
  // Lenient like fetch: a stream cut short yields what arrived, then the connection's error.
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  for (const encoding of encodings.reverse()) {
    const decoder =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? zlib.createGunzip(lenient)
        : encoding === 'deflate'
          ? zlib.createInflate(lenient)
          : encoding === 'br'
            ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
            : null;
    if (decoder === null) break; // unknown coding: hand over the bytes as they came, as fetch does
    const source = body;
    source.on('error', (error) => decoder.destroy(error));
    decoder.on('error', () => undefined);
    decoder.once('close', () => {
      if (!source.readableEnded) source.destroy();
    });
    body = source.pipe(decoder);
  }
  return body;
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * The body as the SDK iterates it. A reader that stops early, or aborts the request once it has
 * what it wanted (the SDK does both at `response.completed`, before the stream's last bytes are
 * read), leaves the connection in the pool when the whole response has already arrived, as fetch
 * does; only a response still arriving is cut (its connection cannot be reused). After an abort,
 * reading throws the signal's reason.
 */
class ResponseBody implements AsyncIterable<Uint8Array> {
  #aborted: { reason: unknown } | null = null;
  /** The reader's iterator over the stream, while there is one. */
  #inner: AsyncIterator<Uint8Array> | null = null;

  constructor(
    readonly stream: Readable,
    readonly res: IncomingMessage,
    signal: AbortSignal | undefined,
  ) {
    if (signal === undefined) return;
    const onAbort = (): void => this.#abort(abortReason(signal));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      stream.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }

  #abort(reason: unknown): void {
    this.#aborted = { reason };
    if (this.res.complete) {
      // The reader's iterator holds the stream; the rest can drain once it let go.
      const inner = this.#inner;
      this.#inner = null;
      if (inner === null) this.release();
      else void Promise.resolve(inner.return?.()).finally(() => this.release());
    } else {
      this.stream.destroy(reason as Error);
      if (this.stream !== this.res) this.res.destroy();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const inner = this.stream.iterator({ destroyOnReturn: false }) as AsyncIterator<Uint8Array>;
    this.#inner = inner;
    return {
      next: () => (this.#aborted === null ? inner.next() : Promise.reject(this.#aborted.reason)),
      return: async (value?: unknown) => {
        if (this.#inner === inner) this.#inner = null;
        await inner.return?.();
        this.release();
        return { done: true, value: value as Uint8Array };
      },
    };
  }

  /** Lets a response that fully arrived end (its connection goes back to the pool); cuts any other. */
  release(): void {
    if (this.stream.readableEnded || this.stream.destroyed) return;
    if (this.res.complete) {
      this.stream.resume();
      return;
    }
    this.stream.destroy();
    if (this.stream !== this.res) this.res.destroy();
  }
}

/** What the openai SDK reads of a fetch `Response`, over the Node response. */
class NodeResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = 'basic';
  /** The body: bytes, async-iterable as the SDK reads it. */
  readonly body: ResponseBody;
  #used = false;

  constructor(res: IncomingMessage, url: URL, redirected: boolean, signal: AbortSignal | undefined) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.headers = new Headers();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      try {
        this.headers.append(raw[i]!, raw[i + 1]!);
      } catch {
        // a header value Headers refuses (fetch drops the response; the SDK never needs it)
      }
    }
    this.url = url.href;
    this.redirected = redirected;
    this.body = new ResponseBody(decodedBody(res), res, signal);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return new Uint8Array(await readAll(this.body.stream));
  }

  async text(): Promise<string> {
    return Buffer.from(await this.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }
}

function toResponse(res: IncomingMessage, url: URL, signal: AbortSignal | undefined, redirected: boolean): Response {
  return new NodeResponse(res, url, redirected, signal) as unknown as Response;
}
