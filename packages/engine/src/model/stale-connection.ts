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
 * Whether a request went out on a reused connection is read from undici's diagnostics channels
 * (the documented `undici:request:create` and `undici:client:sendHeaders`), tied to the call
 * through an AsyncLocalStorage; when they say nothing (another dispatcher), nothing is retried.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { innermostMessage } from './errors.js';

/** At most this many sends of one request (stale pooled connections are each tried once). */
const MAX_SENDS = 4;
/** Error codes of a connection the peer closed or reset. */
const PEER_CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** What the diagnostics channels said about one send. */
interface Send {
  /** True when the request was written on a connection that had carried a request before. */
  reusedConnection: boolean | null;
}

const sends = new AsyncLocalStorage<Send>();
const sendOfRequest = new WeakMap<object, Send>();
const requestsOnSocket = new WeakMap<object, number>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:create', (message) => {
    const send = sends.getStore();
    const request = (message as { request?: object }).request;
    if (send !== undefined && request !== undefined) sendOfRequest.set(request, send);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request?: object; socket?: object };
    if (socket === undefined) return;
    const before = requestsOnSocket.get(socket) ?? 0;
    requestsOnSocket.set(socket, before + 1);
    const send = request === undefined ? undefined : sendOfRequest.get(request);
    if (send !== undefined) send.reusedConnection = before > 0;
  });
}

/** Whether `error` (a rejected fetch) says the peer closed or reset the connection. */
export function isPeerClosed(error: unknown): boolean {
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
    const send: Send = { reusedConnection: null };
    try {
      return await sends.run(send, () => fetch(input, init));
    } catch (error) {
      const stale = send.reusedConnection === true && isPeerClosed(error);
      if (!stale || !replayable || init?.signal?.aborted === true || sent >= MAX_SENDS) throw error;
      if (process.env.DEPUTY_LOG?.trim().toLowerCase() === 'debug') {
        process.stderr.write(`deputy debug: model request failed on a reused connection (${innermostMessage(error)}); sending it again\n`);
      }
    }
  }
}
