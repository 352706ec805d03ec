/**
 * The one error that is serialized (`RpcError`) and the one mapping into it (`toRpcError`). Engine
 * errors, zod errors and plain exceptions never cross the wire as they are: handlers throw what
 * they like, and the connection answers with `toRpcError(e)`. The wording follows the reference
 * (docs/app-server.md "Envelope and errors") because clients match on it; the factories on
 * `RpcError` spell the common texts once. This module does not log and does not know any method
 * table.
 */
import { ZodError } from 'zod';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  SERVER_OVERLOADED,
  SERVER_OVERLOADED_MESSAGE,
  type JsonRpcErrorObject,
} from '@deputy/protocol/jsonrpc';
import { formatZodIssue, summarizeIssues } from './zod-messages.js';

/**
 * Which error codes and prefixes to use. `codex` (default) copies the reference: -32600 and
 * `Invalid request: …` for unknown methods and bad params alike, and never -32601 or -32602
 * (docs/app-server.md "Envelope and errors"). `jsonrpc` uses the JSON-RPC 2.0 codes -32601
 * `Method not found` and -32602 `Invalid params: …`.
 */
export type ErrorDialect = 'codex' | 'jsonrpc';

/** A JSON-RPC error with its wire code; the only error the connection serializes. */
export class RpcError extends Error {
  /**
   * @param code the wire code (see the constants in `@deputy/protocol`)
   * @param message the wire message; keep the reference's wording
   * @param data optional structured detail, sent as `error.data`
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  /** The `error` member of a response. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** -32600 with the text as is, e.g. `Not initialized` or `thread not found: <id>`. */
  static invalidRequest(message: string, data?: unknown): RpcError {
    return new RpcError(INVALID_REQUEST, message, data);
  }

  /** ``Invalid request: missing field `name` ``, the reference's text for an absent field. */
  static missingField(name: string): RpcError {
    return new RpcError(INVALID_REQUEST, `Invalid request: missing field \`${name}\``);
  }

  /** `<kind> not found: <id>`, e.g. `thread not found: 01…` (reference: -32600). */
  static notFound(kind: string, id: string): RpcError {
    return new RpcError(INVALID_REQUEST, `${kind} not found: ${id}`);
  }

  /** `Not initialized`: a request before a successful `initialize`. */
  static notInitialized(): RpcError {
    return new RpcError(INVALID_REQUEST, 'Not initialized');
  }

  /** `Already initialized`: a second successful `initialize`. */
  static alreadyInitialized(): RpcError {
    return new RpcError(INVALID_REQUEST, 'Already initialized');
  }

  /** `<descriptor> requires experimentalApi capability`, e.g. `thread/resume.excludeTurns`. */
  static experimentalRequired(descriptor: string): RpcError {
    return new RpcError(INVALID_REQUEST, `${descriptor} requires experimentalApi capability`);
  }

  /**
   * An unknown method. `codex`: ``Invalid request: unknown variant `m`, expected one of `a`, … ``
   * listing every accepted name; `jsonrpc`: -32601 `Method not found: m`.
   */
  static unknownMethod(method: string, accepted: readonly string[], dialect: ErrorDialect = 'codex'): RpcError {
    if (dialect === 'jsonrpc') return new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    const list = accepted.map((m) => `\`${m}\``).join(', ');
    return new RpcError(INVALID_REQUEST, `Invalid request: unknown variant \`${method}\`, expected one of ${list}`);
  }

  /** -32001 `Server overloaded; retry later.`; clients retry with backoff. */
  static overloaded(): RpcError {
    return new RpcError(SERVER_OVERLOADED, SERVER_OVERLOADED_MESSAGE);
  }

  /** -32603 with the given text (the reference sends the OS or library text as is). */
  static internal(message: string, data?: unknown): RpcError {
    return new RpcError(INTERNAL_ERROR, message, data);
  }
}

/**
 * String `code`s of engine errors (`EngineError.code`) and the wire code each maps to. The
 * reference answers every client-side failure, not-found included, with -32600.
 */
export const ERROR_CODE_TABLE: Readonly<Record<string, number>> = {
  thread_not_found: INVALID_REQUEST,
  turn_in_progress: INVALID_REQUEST,
  no_active_turn: INVALID_REQUEST,
  turn_mismatch: INVALID_REQUEST,
  turn_not_steerable: INVALID_REQUEST,
  invalid_input: INVALID_REQUEST,
  not_found: INVALID_REQUEST,
  not_initialized: INVALID_REQUEST,
  already_initialized: INVALID_REQUEST,
  experimental_required: INVALID_REQUEST,
  unsupported: INVALID_REQUEST,
  overloaded: SERVER_OVERLOADED,
};

/** Longest message `toRpcError` passes through for an unexpected error. */
const MAX_INTERNAL_MESSAGE = 300;

/** Options of {@link toRpcError}. */
export interface ToRpcErrorOptions {
  /** See {@link ErrorDialect}; defaults to `codex`. */
  dialect?: ErrorDialect;
}

function shortMessage(e: unknown): string {
  const text = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  if (firstLine === '') return 'Internal error';
  return firstLine.length > MAX_INTERNAL_MESSAGE ? `${firstLine.slice(0, MAX_INTERNAL_MESSAGE)}…` : firstLine;
}

/** Builds the error for params that failed their schema: serde-like text plus `data.issues`. */
export function invalidParamsError(error: ZodError, dialect: ErrorDialect = 'codex'): RpcError {
  const first = error.issues[0];
  const detail = first ? formatZodIssue(first) : 'invalid params';
  const data = { issues: summarizeIssues(error.issues) };
  return dialect === 'jsonrpc'
    ? new RpcError(INVALID_PARAMS, `Invalid params: ${detail}`, data)
    : new RpcError(INVALID_REQUEST, `Invalid request: ${detail}`, data);
}

/**
 * Maps anything thrown by a handler to an `RpcError`:
 * - an `RpcError` is returned as is;
 * - a `ZodError` becomes ``Invalid request: <serde text>`` (-32600, or -32602 in the `jsonrpc`
 *   dialect) with `data.issues`;
 * - an error with a numeric `rpcCode`, or an integer `code` in the JSON-RPC error range, keeps
 *   its code and message;
 * - an error with a string `code` listed in {@link ERROR_CODE_TABLE} gets that code and keeps
 *   its message (e.g. `thread not found: <id>`);
 * - anything else is -32603 with the first line of its message (or `Internal error`).
 */
export function toRpcError(e: unknown, options: ToRpcErrorOptions = {}): RpcError {
  if (e instanceof RpcError) return e;
  if (e instanceof ZodError) return invalidParamsError(e, options.dialect);
  if (typeof e === 'object' && e !== null) {
    const { rpcCode, code, data } = e as { rpcCode?: unknown; code?: unknown; data?: unknown };
    const message = shortMessage(e);
    if (typeof rpcCode === 'number' && Number.isInteger(rpcCode)) return new RpcError(rpcCode, message, data);
    if (typeof code === 'number' && Number.isInteger(code) && code >= -32768 && code <= -32000) {
      return new RpcError(code, message, data);
    }
    if (typeof code === 'string' && Object.hasOwn(ERROR_CODE_TABLE, code)) {
      return new RpcError(ERROR_CODE_TABLE[code] ?? INTERNAL_ERROR, message);
    }
  }
  return new RpcError(INTERNAL_ERROR, shortMessage(e));
}
