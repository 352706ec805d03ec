/**
 * The JSON-RPC envelope: request ids, the four message shapes, the named error codes, and the codec
 * that turns one frame of text into one message and back. `decodeMessage()` is the only place where
 * inbound text is `JSON.parse`d. The codec knows nothing about methods or params (those belong to
 * the method tables) and does no I/O. The app-server dialect leaves `"jsonrpc":"2.0"` out on output
 * and ignores it on input (`versionField: 'omit'`, reference: codex-rs/app-server-protocol
 * `jsonrpc_lite.rs`); a strict JSON-RPC 2.0 peer uses `versionField: 'require'`.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Error codes. JSON-RPC 2.0 reserves -32768..-32000: -32700 and -32600..-32603 are defined by the
// specification, and -32099..-32000 is left to implementations for server errors.
// ---------------------------------------------------------------------------------------------

/** Invalid JSON was received (JSON-RPC 2.0). The app-server drops such input without answering. */
export const PARSE_ERROR = -32700;
/** The message is not a valid request. The Codex app-server also uses it for every client-side failure. */
export const INVALID_REQUEST = -32600;
/** The method does not exist (JSON-RPC 2.0). The Codex app-server answers -32600 instead. */
export const METHOD_NOT_FOUND = -32601;
/** The params are invalid (JSON-RPC 2.0). The Codex app-server answers -32600 instead. */
export const INVALID_PARAMS = -32602;
/** An internal failure: OS, I/O, spawn or network errors, and anything unexpected. */
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error (-32099..-32000): the inbound queue is full; retryable. */
export const SERVER_OVERLOADED = -32001;
/** The exact message the reference sends with {@link SERVER_OVERLOADED}. */
export const SERVER_OVERLOADED_MESSAGE = 'Server overloaded; retry later.';

/** Lowest code of the range JSON-RPC 2.0 reserves for itself. */
export const JSONRPC_RESERVED_MIN = -32768;
/** Highest code of the range JSON-RPC 2.0 reserves for itself. */
export const JSONRPC_RESERVED_MAX = -32000;

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

/**
 * A request id: a string or an integer (negatives allowed). It is echoed back with its JSON type,
 * so `"1"` and `1` are different ids. `null`, fractions and objects are not ids. An integer beyond
 * ±(2^53−1), which a JavaScript number would round, is decoded from its token's text as a `bigint`
 * and encoded back digit for digit, so a client sending 9223372036854775807 gets exactly that back.
 */
export const RequestIdSchema = z.union([z.string(), z.number().int(), z.bigint()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

/** A call that expects a response. */
export const JsonRpcRequestSchema = z.object({
  /** The method name, e.g. `thread/start`. */
  method: z.string(),
  /** Chosen by the sender; the response carries the same value. */
  id: RequestIdSchema,
  /** Method-specific; validated later by the method table. `null` is normalized to absent. */
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** A one-way message: no id and no response. */
export const JsonRpcNotificationSchema = z.object({
  /** The notification name, e.g. `turn/started`. */
  method: z.string(),
  /** Method-specific payload. */
  params: z.unknown().optional(),
  /** Never present on a notification (a message with an id is a request). */
  id: z.never().optional(),
});
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;

/** The `error` member of an error response. */
export const JsonRpcErrorObjectSchema = z.object({
  /** One of the codes above, or an application code. */
  code: z.number().int(),
  /** A short description; some clients match on it, so keep the reference's wording. */
  message: z.string(),
  /** Optional structured detail (e.g. zod issues, `config_write_error_code`). */
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

/** A successful response to a request. */
export const JsonRpcSuccessResponseSchema = z.object({
  /** The id of the request being answered. */
  id: RequestIdSchema,
  /** The method's result. Always present on the wire (`null` when there is nothing to say). */
  result: z.unknown(),
  /** Never present together with `result`. */
  error: z.never().optional(),
});
export type JsonRpcSuccessResponse = z.infer<typeof JsonRpcSuccessResponseSchema>;

/** A failed response to a request. */
export const JsonRpcErrorResponseSchema = z.object({
  /** The id of the request being answered. */
  id: RequestIdSchema,
  /** What went wrong. */
  error: JsonRpcErrorObjectSchema,
});
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

/** Any message that can cross the wire, in either direction. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** True for a request (has `method` and `id`). */
export function isJsonRpcRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return 'method' in m && m.id !== undefined;
}

/** True for a notification (has `method`, no `id`). */
export function isJsonRpcNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return 'method' in m && m.id === undefined;
}

/** True for a response of either kind (no `method`). */
export function isJsonRpcResponse(m: JsonRpcMessage): m is JsonRpcResponse {
  return !('method' in m);
}

/** True for an error response. */
export function isJsonRpcErrorResponse(m: JsonRpcMessage): m is JsonRpcErrorResponse {
  return !('method' in m) && 'error' in m && m.error !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Codec
// ---------------------------------------------------------------------------------------------

/**
 * How the `"jsonrpc"` member is treated. `omit`: never written, ignored on input whatever its
 * value (the Codex app-server). `require`: always written as `"2.0"`, and input without it is an
 * invalid request (strict JSON-RPC 2.0).
 */
export const VersionFieldSchema = z.enum(['omit', 'require']);
export type VersionField = z.infer<typeof VersionFieldSchema>;

/** Options of {@link decodeMessage} and {@link encodeMessage}. */
export interface CodecOptions {
  /** Defaults to `omit`, the app-server dialect. */
  versionField?: VersionField;
}

/** Why a frame could not be decoded. */
export interface DecodeError {
  /** {@link PARSE_ERROR} for text that is not one JSON value, {@link INVALID_REQUEST} otherwise. */
  code: number;
  /** A short, log-friendly description. */
  message: string;
}

/**
 * The outcome of {@link decodeMessage}. On failure, `id` is set when the frame carried a valid
 * request id, so a strict JSON-RPC peer can answer; the app-server drops every failure silently.
 */
export type DecodeResult =
  | { ok: true; message: JsonRpcMessage }
  | { ok: false; error: DecodeError; id?: RequestId };

function fail(code: number, message: string, id?: RequestId): DecodeResult {
  return id === undefined ? { ok: false, error: { code, message } } : { ok: false, error: { code, message }, id };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON integer literal: no fraction, no exponent, no leading zeros. */
const INTEGER_TOKEN = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * The index just past the string whose opening quote is at `open` in JSON text that `JSON.parse`
 * accepted. The closing quote is found with `indexOf`, not character by character, so a
 * megabyte-long string costs microseconds: a quote is escaped only when an odd run of
 * backslashes precedes it.
 */
function endOfString(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote > 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/**
 * The index just past the object or array that opens at `open`: a tight loop over the characters
 * outside strings (brackets of deep nesting, numbers, punctuation), each string skipped whole.
 */
function endOfContainer(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = endOfString(text, i);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return text.length;
}

/**
 * The source text of the top-level object's `key` member in `text`, which `JSON.parse` already
 * accepted (so only valid JSON is walked); the last one wins, as in `JSON.parse`. Strings are
 * skipped with `indexOf`, so the walk over a frame with megabytes of string data stays far below
 * a millisecond, and nesting is walked by a tight loop over character codes.
 */
export function topLevelMemberText(text: string, key: string): string | undefined {
  let i = 0;
  const n = text.length;
  const skipSpace = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const skipValue = (): void => {
    const c = text[i];
    if (c === '"') i = endOfString(text, i);
    else if (c === '{' || c === '[') i = endOfContainer(text, i);
    else while (i < n && !',}] \t\n\r'.includes(text[i] as string)) i++;
  };
  let found: string | undefined;
  skipSpace();
  if (text[i] !== '{') return undefined;
  i++;
  for (;;) {
    skipSpace();
    if (i >= n || text[i] === '}') return found;
    const keyStart = i;
    i = endOfString(text, i);
    const name = JSON.parse(text.slice(keyStart, i)) as string;
    skipSpace();
    i++; // the colon
    skipSpace();
    const valueStart = i;
    skipValue();
    if (name === key) found = text.slice(valueStart, i);
    skipSpace();
    if (text[i] === ',') i++;
  }
}

/**
 * `value.id` as `JSON.parse` gave it, or a `bigint` read from the id token's text when that token is
 * an integer literal beyond ±(2^53−1) (a number would have rounded it).
 */
export function losslessId(text: string, rawId: unknown): unknown {
  if (typeof rawId !== 'number' || Number.isSafeInteger(rawId) || !Number.isFinite(rawId)) return rawId;
  const token = topLevelMemberText(text, 'id');
  return token !== undefined && INTEGER_TOKEN.test(token) ? BigInt(token) : rawId;
}

/** A top-level id among a frame's first members (only string members before it). */
const ID_IN_HEAD = /^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*)*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*[,}]/;
/** A top-level id as a frame's last member (a nested one would be followed by two braces). */
const ID_IN_TAIL = /,\s*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The request id of a frame too large to parse, read from its first and last bytes (`head`,
 * `tail`) when it is unambiguous there; undefined otherwise.
 */
export function readIdOfTruncated(head: string, tail: string): RequestId | undefined {
  const token = ID_IN_HEAD.exec(head)?.[1] ?? ID_IN_TAIL.exec(tail)?.[1];
  if (token === undefined) return undefined;
  try {
    if (!token.startsWith('"')) return INTEGER_TOKEN.test(token) && !Number.isSafeInteger(Number(token)) ? BigInt(token) : Number(token);
    return JSON.parse(token) as string;
  } catch {
    return undefined;
  }
}

/** The JSON text of an id; a `bigint` keeps every digit. */
export function requestIdJson(id: RequestId | null): string {
  return typeof id === 'bigint' ? id.toString() : JSON.stringify(id);
}

function describeId(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return `non-integer number ${v}`;
  return Array.isArray(v) ? 'array' : typeof v;
}

/**
 * Decodes one frame (one NDJSON line or one WebSocket text message) into a message.
 * Classification: an object with `method` is a request when it has an `id`, else a notification;
 * an object without `method` is a response and needs an `id` and exactly one of `result`/`error`.
 * Batches (arrays), bad ids (`null`, fractions, objects) and anything else are -32600.
 */
export function decodeMessage(text: string, options: CodecOptions = {}): DecodeResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return fail(PARSE_ERROR, `Parse error: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (Array.isArray(value)) return fail(INVALID_REQUEST, 'Invalid request: batches are not supported');
  if (!isPlainObject(value)) return fail(INVALID_REQUEST, 'Invalid request: a message must be a JSON object');

  const rawId = losslessId(text, value.id);
  const hasId = rawId !== undefined;
  const id = hasId ? RequestIdSchema.safeParse(rawId) : undefined;
  const validId = id?.success ? id.data : undefined;
  if ((options.versionField ?? 'omit') === 'require' && value.jsonrpc !== '2.0') {
    return fail(INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"', validId);
  }
  if (hasId && validId === undefined) {
    return fail(INVALID_REQUEST, `Invalid request: id must be a string or an integer, got ${describeId(rawId)}`);
  }
  // `params: null` counts as missing (docs/app-server.md "Envelope and errors"): the method table
  // then decides whether that is allowed.
  const params = value.params === null ? undefined : value.params;

  if ('method' in value) {
    if (typeof value.method !== 'string') {
      return fail(INVALID_REQUEST, 'Invalid request: method must be a string', validId);
    }
    const base = params === undefined ? { method: value.method } : { method: value.method, params };
    return { ok: true, message: validId === undefined ? base : { ...base, id: validId } };
  }

  if (validId === undefined) return fail(INVALID_REQUEST, 'Invalid request: not a request, response or notification');
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult === hasError) {
    return fail(INVALID_REQUEST, 'Invalid request: a response needs exactly one of "result" and "error"', validId);
  }
  if (hasResult) return { ok: true, message: { id: validId, result: value.result } };
  const error = JsonRpcErrorObjectSchema.safeParse(value.error);
  if (!error.success) return fail(INVALID_REQUEST, 'Invalid request: malformed "error" object', validId);
  return { ok: true, message: { id: validId, error: error.data } };
}

/**
 * Encodes a message as compact JSON, without a trailing newline. Keys come out in the reference's
 * order: `{method, id, params}`, `{method, params}`, `{id, result}`, `{error, id}`; with
 * `versionField: 'require'`, `"jsonrpc":"2.0"` comes first and errors are `{id, error}`.
 * Absent params are left out; an absent result is written as `null`.
 */
export function encodeMessage(message: JsonRpcMessage, options: CodecOptions = {}): string {
  const strict = (options.versionField ?? 'omit') === 'require';
  const head: Record<string, unknown> = strict ? { jsonrpc: '2.0' } : {};
  let body: Record<string, unknown>;
  if ('method' in message) {
    body = { method: message.method };
    if (message.id !== undefined) body.id = message.id;
    if (message.params !== undefined) body.params = message.params;
  } else if (message.error !== undefined) {
    const { code, message: text, data } = message.error;
    const error = data === undefined ? { code, message: text } : { code, message: text, data };
    body = strict ? { id: message.id, error } : { error, id: message.id };
  } else {
    body = { id: message.id, result: message.result ?? null };
  }
  const envelope = { ...head, ...body };
  if (typeof envelope.id !== 'bigint') return JSON.stringify(envelope);
  // JSON.stringify cannot write a bigint: write each member, the id from its digits.
  const members = Object.entries(envelope).map(([k, v]) => `${JSON.stringify(k)}:${k === 'id' ? requestIdJson(v as bigint) : JSON.stringify(v)}`);
  return `{${members.join(',')}}`;
}
