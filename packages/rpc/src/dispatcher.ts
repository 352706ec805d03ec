/**
 * Routes inbound requests through a method table: admission → name → params schema → optional
 * guard → handler → optional result check. The table is any `Record<method, { params, result }>`
 * of zod schemas (the app-server's lives in `@deputy/protocol`), so handler params and results are
 * typed from it and the method list is never repeated here. The table can be loaded on first
 * need: an `admit` hook runs first for every request, may wait, and hands over the loaded tables,
 * which replace the dispatcher's own from then on (a server answers its handshake from a few rows
 * and loads the rest with the first other request). Unknown methods and bad params get the
 * reference's -32600 texts by default (docs/app-server.md, "Envelope and errors"); every thrown
 * error goes through `toRpcError`. Client notifications use a second table; unknown or invalid
 * ones are logged and dropped. The helpers at the bottom do the same for calls in the other
 * direction (server → client).
 */
import type { z } from 'zod';
import { INVALID_PARAMS, type JsonRpcNotification, type JsonRpcRequest, type RequestId } from '@deputy/protocol/jsonrpc';
import type { Connection, IncomingContext, IncomingHandler, RequestContext, RequestOptions } from './connection.js';
import { RpcError, invalidParamsError, type ErrorDialect } from './errors.js';
import { NOOP_LOGGER, type RpcLogger } from './transport/transport.js';

/** One request method: what its params and its result must look like. */
export interface MethodSpec {
  /** Parses the request's `params` (absent params are `undefined`). */
  readonly params: z.ZodType;
  /** Describes the handler's result; checked when `validateResults` is on. */
  readonly result: z.ZodType;
  /**
   * When true, a request without params is refused with ``missing field `params` `` before the
   * schema runs, even if the schema would accept `undefined` (the reference does this for every
   * method it defines with params). When absent, the schema alone decides.
   */
  readonly paramsRequired?: boolean;
}

/** A request table: wire method name → specs (extra members per row are allowed and ignored). */
export type MethodTable = Readonly<Record<string, MethodSpec>>;

/** A notification table: wire method name → schema of its params (absent params are `undefined`). */
export type NotificationTable = Readonly<Record<string, z.ZodType>>;

/** What a request handler gets besides its params (`afterResponse` included). */
export interface HandlerContext extends RequestContext {
  /** The wire method name. */
  method: string;
  /** The client's request id, as sent. */
  id: RequestId;
}

/** Handles one method: parsed params in, a value of the result schema's input type out. */
export type MethodHandler<S extends MethodSpec> = (
  params: z.output<S['params']>,
  ctx: HandlerContext,
) => z.input<S['result']> | Promise<z.input<S['result']>>;

/** Handlers for some or all methods of a table; a listed method without a handler is "not supported". */
export type MethodHandlers<T extends MethodTable> = { [M in keyof T]?: MethodHandler<T[M]> };

/** Handles one client notification. */
export type NotificationHandler<S extends z.ZodType> = (
  params: z.output<S>,
  ctx: IncomingContext & { method: string },
) => void | Promise<void>;

/** Handlers for some or all notifications of a table. */
export type NotificationHandlers<N extends NotificationTable> = { [M in keyof N]?: NotificationHandler<N[M]> };

/** Tables loaded on first need; see `DispatcherOptions.admit`. */
export interface DispatcherTables {
  /** Replaces the dispatcher's request table. */
  readonly requests: MethodTable;
  /** Replaces `acceptedMethods`; defaults to the keys of `requests`. */
  readonly acceptedMethods?: readonly string[];
  /** Replaces the table of client notifications (their handlers stay those of the options). */
  readonly notifications?: NotificationTable;
}

/** Options of {@link createDispatcher}. */
export interface DispatcherOptions<N extends NotificationTable> {
  /** Check each result against the table (tests and dev mode); a mismatch is -32603. */
  validateResults?: boolean;
  /** Error codes and wording; defaults to the reference's (`codex`). */
  dialect?: ErrorDialect;
  /**
   * Names the peer may send, listed in the unknown-method error; defaults to the table's keys in
   * order. A listed name missing from the table is guarded (with `undefined` params), then
   * answered as `unsupported`.
   */
  acceptedMethods?: readonly string[];
  /**
   * Runs first for every request, before its method is looked up. It may wait, for the rest of
   * the table or for anything else the request needs first (requests that wait for the same
   * promise resume in the order they arrived), and returns the loaded tables, which serve this
   * and every later message, or null while the current ones serve it. A throw is the request's
   * error. Return a value, not a promise, to skip the wait once everything is loaded.
   */
  admit?: (request: JsonRpcRequest, ctx: RequestContext) => DispatcherTables | null | Promise<DispatcherTables | null>;
  /**
   * Runs after params parsed and before the handler; throw to refuse (e.g. `Not initialized`,
   * experimental gates), or wait for what the handler needs. The reference deserializes params
   * before these checks.
   */
  guard?: (method: string, params: unknown, ctx: HandlerContext) => void | Promise<void>;
  /** The error for a table method that has no handler; defaults to a -32600 "not supported". */
  unsupported?: (method: string) => RpcError;
  /** Client → server notifications. */
  notifications?: { table: N; handlers: NotificationHandlers<N> };
  /** Receives dropped notifications and result mismatches. */
  logger?: RpcLogger;
}

/** An `IncomingHandler` built from tables, to pass to `new Connection(...)`. */
export interface Dispatcher extends IncomingHandler {
  /** The request methods it knows, in table order (those of the loaded tables once loaded). */
  readonly methods: readonly string[];
}

/** The default answer for a method in the table that has no handler. */
export function unsupportedMethodError(method: string): RpcError {
  return RpcError.invalidRequest(`Invalid request: \`${method}\` is not supported by this server`);
}

/** ``missing field `params` ``, in the dialect's code and prefix. */
function missingParamsError(dialect: ErrorDialect | undefined): RpcError {
  return dialect === 'jsonrpc'
    ? new RpcError(INVALID_PARAMS, 'Invalid params: missing field `params`')
    : RpcError.missingField('params');
}

async function parseParams(schema: z.ZodType, params: unknown, dialect: ErrorDialect | undefined): Promise<unknown> {
  const parsed = await schema.safeParseAsync(params, { reportInput: true });
  if (!parsed.success) throw invalidParamsError(parsed.error, dialect);
  return parsed.data;
}

/**
 * Builds a dispatcher over a method table; see the module comment. `handlers` is read at each
 * request, so handlers added to it later (once what they need is open) serve from then on.
 */
export function createDispatcher<T extends MethodTable, N extends NotificationTable = NotificationTable>(
  table: T,
  handlers: MethodHandlers<T>,
  options: DispatcherOptions<N> = {},
): Dispatcher {
  const logger = options.logger ?? NOOP_LOGGER;
  const unsupported = options.unsupported ?? unsupportedMethodError;
  const notificationHandlers = (options.notifications?.handlers ?? {}) as Partial<Record<string, NotificationHandler<z.ZodType>>>;
  let loaded: DispatcherTables | null = null;
  let requests: MethodTable = table;
  let accepted = options.acceptedMethods ?? Object.keys(table);
  let acceptedSet = new Set(accepted);
  let notificationTable: NotificationTable | undefined = options.notifications?.table;

  function use(tables: DispatcherTables): void {
    if (tables === loaded) return;
    loaded = tables;
    requests = tables.requests;
    accepted = tables.acceptedMethods ?? Object.keys(tables.requests);
    acceptedSet = new Set(accepted);
    notificationTable = tables.notifications ?? notificationTable;
  }

  async function handleRequest(request: JsonRpcRequest, base: RequestContext): Promise<unknown> {
    if (options.admit) {
      const admitted = options.admit(request, base);
      const tables = admitted instanceof Promise ? await admitted : admitted;
      if (tables) use(tables);
    }
    const { method } = request;
    const ctx: HandlerContext = { ...base, method, id: request.id };
    if (!Object.hasOwn(requests, method)) {
      if (!acceptedSet.has(method)) throw RpcError.unknownMethod(method, accepted, options.dialect);
      await options.guard?.(method, undefined, ctx);
      throw unsupported(method);
    }
    const spec = requests[method] as MethodSpec;
    if (spec.paramsRequired === true && request.params === undefined) {
      throw missingParamsError(options.dialect);
    }
    const params = await parseParams(spec.params, request.params, options.dialect);
    await options.guard?.(method, params, ctx);
    const handler = Object.hasOwn(handlers, method) ? (handlers[method] as MethodHandler<MethodSpec> | undefined) : undefined;
    if (!handler) throw unsupported(method);
    const result: unknown = await handler(params, ctx);
    if (options.validateResults) {
      const checked = await spec.result.safeParseAsync(result);
      if (!checked.success) {
        logger.error('handler returned a result that fails its schema', { method, issues: checked.error.issues });
        throw RpcError.internal(`Internal error: the result of ${method} failed validation`);
      }
    }
    return result;
  }

  async function handleNotification(notification: JsonRpcNotification, base: IncomingContext): Promise<void> {
    const { method } = notification;
    if (!notificationTable || !Object.hasOwn(notificationTable, method)) {
      logger.warn('dropped an unknown notification', { method });
      return;
    }
    const parsed = await (notificationTable[method] as z.ZodType).safeParseAsync(notification.params);
    if (!parsed.success) {
      logger.warn('dropped a notification with invalid params', { method, issues: parsed.error.issues });
      return;
    }
    const handler = Object.hasOwn(notificationHandlers, method) ? notificationHandlers[method] : undefined;
    await handler?.(parsed.data, { ...base, method });
  }

  return {
    get methods() {
      return Object.keys(requests);
    },
    handleRequest,
    handleNotification,
  };
}

/**
 * Sends a request from a table to the peer (e.g. an approval request to the client) and parses
 * the response's result with the table's schema, since it is inbound data. A result that fails
 * the schema rejects with the `ZodError`.
 */
export async function sendTypedRequest<T extends MethodTable, M extends keyof T & string>(
  connection: Connection,
  table: T,
  method: M,
  params: z.input<T[M]['params']>,
  options?: RequestOptions,
): Promise<z.output<T[M]['result']>> {
  const result = await connection.request(method, params, options);
  return (await (table[method] as MethodSpec).result.parseAsync(result)) as z.output<T[M]['result']>;
}

/**
 * Queues a notification from a table. With `validate` (tests, dev mode) the params are parsed
 * first and a mismatch throws the `ZodError` instead of sending.
 */
export function sendTypedNotification<N extends NotificationTable, M extends keyof N & string>(
  connection: Connection,
  table: N,
  method: M,
  params: z.input<N[M]>,
  options: { validate?: boolean } = {},
): void {
  if (options.validate) (table[method] as z.ZodType).parse(params);
  connection.notify(method, params);
}
