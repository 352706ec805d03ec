/**
 * Typed failures of the model client. Every way a model call can fail ends as one
 * `ModelApiError` subclass with a `TurnError` code, an HTTP status when there was one, and a
 * `retryable` flag the retry loop obeys; an abort is the separate `ModelAbortedError`. This
 * module turns openai SDK errors, HTTP error bodies and stream failure events into those
 * classes, with short messages meant for people (no stack traces, no raw JSON).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { TurnError } from '@deputy/protocol';

/** The `TurnError` code a model failure reports. */
export type ModelErrorCode = TurnError['code'];

/** Longest provider detail quoted in a message. */
const MAX_DETAIL = 300;

/** Headers as the SDK (`Headers`) or a test (`Record`) provides them. */
export type HeadersLike = Headers | Record<string, string | undefined> | null | undefined;

interface ErrorOptions {
  httpStatus?: number | null;
  retryable: boolean;
  retryAfterMs?: number | null;
  cause?: unknown;
}

/** Base of all model API failures. Subclasses fix `code` and `retryable`. */
export abstract class ModelApiError extends Error {
  /** The turn-level error code front doors show (Codex `CodexErrorInfo`). */
  abstract readonly code: ModelErrorCode;
  /** The HTTP status of the failed response, or null (connection and stream failures). */
  readonly httpStatus: number | null;
  /** Whether trying the same request again may succeed. */
  readonly retryable: boolean;
  /** How long the provider asked us to wait before retrying, when it said so. */
  readonly retryAfterMs: number | null;

  protected constructor(message: string, options: ErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.httpStatus = options.httpStatus ?? null;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }

  /** The error as front doors report it. */
  toTurnError(): TurnError {
    return { message: this.message, code: this.code, httpStatus: this.httpStatus };
  }

  /** Classifies an HTTP error response from its status, JSON body and headers. */
  static fromResponse(status: number, body: unknown, headers?: HeadersLike): ModelApiError {
    return classifyHttpError(status, readErrorBody(body), parseRetryAfter(headers));
  }

  /** Classifies a failure reported inside a stream (`response.failed`, `error` event, chat `error` frame). */
  static fromStreamError(error: unknown): ModelApiError {
    return classifyStreamError(readErrorBody(error));
  }

  /** Classifies anything the openai SDK (or fetch underneath it) threw. */
  static fromSdkError(e: unknown): ModelApiError {
    if (e instanceof ModelApiError) return e;
    if (e instanceof APIConnectionTimeoutError) return new ConnectionError('The model provider did not answer in time.', e);
    // Only an abort we did not ask for gets here (the retry loop checks the caller's signal first).
    if (e instanceof APIUserAbortError) return new ConnectionError('The request to the model provider was cancelled.', e);
    if (e instanceof APIConnectionError) return new ConnectionError(`Could not reach the model provider: ${causeText(e)}.`, e);
    if (e instanceof APIError) {
      if (e.status !== undefined) return ModelApiError.fromResponse(e.status, { error: e.error ?? { message: e.message } }, e.headers);
      return ModelApiError.fromStreamError(e.error ?? { message: e.message });
    }
    // fetch reports a body cut mid-stream as a TypeError ("terminated"); treat every other
    // unknown failure the same way: the connection broke.
    return new ConnectionError(`The connection to the model provider broke: ${causeText(e)}.`, e);
  }
}

/** The provider rejected the credentials (401) or the key lacks access (403). Not retried. */
export class UnauthorizedError extends ModelApiError {
  readonly code = 'unauthorized';
  constructor(status: number) {
    const what = status === 403 ? 'refused access for this API key' : 'rejected the API key';
    super(`The model provider ${what} (${status}). Set OPENAI_API_KEY, or the env_key of the configured provider, to a valid key.`, {
      httpStatus: status,
      retryable: false,
    });
  }
}

/** 429: too many requests for now. Retried, honouring `retryAfterMs`. */
export class RateLimitedError extends ModelApiError {
  readonly code = 'usageLimitExceeded';
  constructor(detail: string | null, retryAfterMs: number | null, status: number | null = 429) {
    super(`The model provider is rate limiting requests${status === null ? '' : ` (${status})`}${suffix(detail)}`, {
      httpStatus: status,
      retryable: true,
      retryAfterMs,
    });
  }
}

/** 429 `insufficient_quota`: the account is out of credit. Not retried. */
export class QuotaExceededError extends ModelApiError {
  readonly code = 'usageLimitExceeded';
  constructor(detail: string | null, status: number | null = 429) {
    super(`The model provider says this account has no quota left${status === null ? '' : ` (${status})`}${suffix(detail)}`, {
      httpStatus: status,
      retryable: false,
    });
  }
}

/** The input is longer than the model's context window. Not retried; the caller may compact. */
export class ContextTooLongError extends ModelApiError {
  readonly code = 'contextWindowExceeded';
  constructor(status: number | null = 400) {
    super("The conversation no longer fits in the model's context window. Compact it or start a new thread.", {
      httpStatus: status,
      retryable: false,
    });
  }
}

/** 5xx (or an overload signal in the stream). Retried. */
export class ServerError extends ModelApiError {
  readonly code: ModelErrorCode;
  constructor(status: number | null, detail: string | null, retryAfterMs: number | null = null, isOverloaded = false) {
    const what = isOverloaded ? 'is overloaded' : 'had a server error';
    super(`The model provider ${what}${status === null ? '' : ` (${status})`}${suffix(detail)}`, {
      httpStatus: status,
      retryable: true,
      retryAfterMs,
    });
    this.code = isOverloaded ? 'serverOverloaded' : 'internalServerError';
  }
}

/** Any other 4xx: the request itself is wrong (unknown model, bad parameter). Not retried. */
export class BadRequestError extends ModelApiError {
  readonly code = 'badRequest';
  constructor(status: number | null, detail: string | null) {
    super(`The model provider rejected the request${status === null ? '' : ` (${status})`}${suffix(detail)}`, {
      httpStatus: status,
      retryable: false,
    });
  }
}

/** The connection failed, or the stream broke before `response.completed`. Retried. */
export class ConnectionError extends ModelApiError {
  readonly code = 'connectionFailed';
  constructor(message: string, cause?: unknown) {
    super(message, { retryable: true, cause });
  }
}

/** No stream event arrived within the idle timeout; that attempt was abandoned. Retried. */
export class StreamIdleTimeoutError extends ModelApiError {
  readonly code = 'connectionFailed';
  constructor(readonly idleTimeoutMs: number) {
    super(`The model stream went quiet for ${formatSeconds(idleTimeoutMs)}; the attempt was abandoned.`, { retryable: true });
  }
}

/** The provider reported the response as failed or incomplete inside the stream. */
export class ModelResponseFailedError extends ModelApiError {
  readonly code: ModelErrorCode = 'other';
  /** The provider's own error code or incomplete reason (`server_error`, `max_output_tokens`, …). */
  readonly providerCode: string | null;
  constructor(message: string, options: { retryable: boolean; providerCode?: string | null; retryAfterMs?: number | null }) {
    super(message, { retryable: options.retryable, retryAfterMs: options.retryAfterMs ?? null });
    this.providerCode = options.providerCode ?? null;
  }
}

/** The caller's AbortSignal fired. Not a `ModelApiError`: nothing failed, the caller stopped. */
export class ModelAbortedError extends Error {
  constructor(message = 'The model request was aborted.') {
    super(message);
    // Matches the DOM convention so generic `name === 'AbortError'` checks also recognise it.
    this.name = 'AbortError';
  }
}

/** What an error body says, whatever shape it came in. */
interface ErrorInfo {
  code: string | null;
  type: string | null;
  message: string | null;
}

function readErrorBody(body: unknown): ErrorInfo {
  const outer = isRecord(body) ? body : {};
  const inner = isRecord(outer['error']) ? outer['error'] : outer;
  const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  return { code: text(inner['code']), type: text(inner['type']), message: text(inner['message']) ?? (typeof body === 'string' ? text(body) : null) };
}

function isContextOverflow(info: ErrorInfo): boolean {
  return info.code === 'context_length_exceeded' || /context (length|window)|maximum context/i.test(info.message ?? '');
}

function classifyHttpError(status: number, info: ErrorInfo, retryAfterMs: number | null): ModelApiError {
  if (status === 401 || status === 403) return new UnauthorizedError(status);
  if (isContextOverflow(info)) return new ContextTooLongError(status);
  if (status === 429) {
    return info.code === 'insufficient_quota' ? new QuotaExceededError(info.message, status) : new RateLimitedError(info.message, retryAfterMs ?? parseRetryHint(info.message), status);
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new ServerError(status, info.message, retryAfterMs, status === 503 || status === 529 || info.code === 'server_is_overloaded');
  }
  return new BadRequestError(status, info.message);
}

function classifyStreamError(info: ErrorInfo): ModelApiError {
  if (isContextOverflow(info)) return new ContextTooLongError(null);
  switch (info.code) {
    case 'insufficient_quota':
      return new QuotaExceededError(info.message, null);
    case 'rate_limit_exceeded':
      return new RateLimitedError(info.message, parseRetryHint(info.message), null);
    case 'server_is_overloaded':
    case 'slow_down':
      return new ServerError(null, info.message, null, true);
    case 'invalid_prompt':
    case 'invalid_request_error':
      return new BadRequestError(null, info.message);
  }
  const code = info.code === null ? '' : ` (${info.code})`;
  return new ModelResponseFailedError(`The model response failed${code}${suffix(info.message)}`, {
    retryable: true,
    providerCode: info.code,
  });
}

/**
 * Reads `retry-after-ms` (milliseconds), or `retry-after` as seconds or an HTTP date. Returns
 * null when absent or unreadable.
 */
export function parseRetryAfter(headers: HeadersLike, now = Date.now()): number | null {
  const get = (name: string): string | null => {
    if (headers === null || headers === undefined) return null;
    if (headers instanceof Headers) return headers.get(name);
    const hit = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
    return hit?.[1] ?? null;
  };
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = get('retry-after')?.trim();
  if (raw === undefined || raw === '') return null;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number.parseFloat(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Reads OpenAI's "Please try again in 1.5s" / "in 20ms" hint from an error message. */
export function parseRetryHint(message: string | null): number | null {
  const match = /try again in\s+(\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message ?? '');
  if (match === null) return null;
  const value = Number.parseFloat(match[1] ?? '');
  return Math.round(match[2]?.toLowerCase() === 'ms' ? value : value * 1000);
}

function suffix(detail: string | null): string {
  if (detail === null) return '.';
  const trimmed = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail;
  return `: ${trimmed.replace(/\.$/, '')}.`;
}

/** The message of the innermost cause (`read ECONNRESET` under fetch's `fetch failed`). */
export function innermostMessage(error: unknown): string {
  let inner: unknown = error;
  for (let depth = 0; inner instanceof Error && inner.cause instanceof Error && depth < 5; depth++) inner = inner.cause;
  return inner instanceof Error ? inner.message : String(inner);
}

function causeText(e: unknown): string {
  return innermostMessage(e).replace(/\.$/, '').slice(0, MAX_DETAIL);
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
