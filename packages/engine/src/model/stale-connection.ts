/**
 * The model client's `fetch`: Node's own, plus one thing an HTTP client owes its callers. A
 * keep-alive connection idle in the pool can be closed by the server at the moment it is reused
 * (the server's idle timer fires as the request goes out); the request then fails with a reset
 * or "other side closed" before any response byte, although the provider is fine and never saw
 * it. Such a request is sent again on another connection, at once and whatever
 * `request_max_retries` says, as long as the connection that failed was a reused one (hyper, the
 * reference's HTTP client, does the same: `retry_canceled_requests`). A request that fails on a
 * fresh connection (refused, reset, unreachable) is not retried here: that is an outage, and the
 * retry loop (retry.ts) decides what happens with it.
 *
 * Whether a request went out on a reused connection is read from undici's documented diagnostics
 * channels: `undici:client:sendHeaders` says which connection each request was written on, and
 * `undici:request:error` hands over the very error object that fetch then reports as the cause
 * of its `fetch failed`. When they say nothing (another dispatcher), nothing is retried.
 */
import { subscribe } from 'node:diagnostics_channel';
import { innermostMessage } from './errors.js';

/** At most this many sends of one request (stale pooled connections are each tried once). */
const MAX_SENDS = 4;
/** Error codes of a connection the peer closed or reset. */
const PEER_CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Per undici request: whether it was written on a connection that had carried a request before. */
const reusedByRequest = new WeakMap<object, boolean>();
/** Per error undici failed a request with: whether that request was on a reused connection. */
const reusedByError = new WeakMap<object, boolean>();
/** Requests written so far, per connection. */
const requestsOnSocket = new WeakMap<object, number>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request?: object; socket?: object };
    if (request === undefined || socket === undefined) return;
    const before = requestsOnSocket.get(socket) ?? 0;
    requestsOnSocket.set(socket, before + 1);
    reusedByRequest.set(request, before > 0);
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request?: object; error?: unknown };
    const reused = request === undefined ? undefined : reusedByRequest.get(request);
    if (reused !== undefined && typeof error === 'object' && error !== null) reusedByError.set(error, reused);
  });
}

/** Whether the failed fetch's request had been written on a reused connection (false when unknown). */
function failedOnReusedConnection(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (reusedByError.get(cause) === true) return true;
  }
  return false;
}

/** Whether `error` (a rejected fetch) says the peer closed or reset the connection. */
function isPeerClosed(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && PEER_CLOSED.has(code)) return true;
  }
  return false;
}

/** Whether a request body can be sent a second time (a stream cannot). */
function isReplayable(body: RequestInit['body']): boolean {
  return body === null || body === undefined || typeof body === 'string' || body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof URLSearchParams || body instanceof Blob;
}

/**
 * `fetch`, sending the request again when it failed on a reused keep-alive connection that the
 * server had closed, before any response arrived.
 */
export async function fetchWithStaleConnectionRetry(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  listen();
  const replayable = !(input instanceof Request) && isReplayable(init?.body);
  for (let sent = 1; ; sent += 1) {
    try {
      return await fetch(input, init);
    } catch (error) {
      const stale = isPeerClosed(error) && failedOnReusedConnection(error);
      if (!stale || !replayable || init?.signal?.aborted === true || sent >= MAX_SENDS) throw error;
      if (process.env.DEPUTY_LOG?.trim().toLowerCase() === 'debug') {
        process.stderr.write(`deputy debug: model request failed on a reused connection (${innermostMessage(error)}); sending it again\n`);
      }
    }
  }
}
