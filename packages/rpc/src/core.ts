/**
 * @deputy/rpc/core: the JSON-RPC runtime without the socket listeners. `Connection` (id
 * correlation, cancellation, bounded write queue), the table-driven dispatcher, the error
 * mapping, listen URLs and the loopback check, the WebSocket auth flags and authenticator, the
 * NDJSON line framer, the stdio transport and the servers' stderr logger. A
 * process that only serves stdio imports this entry and never loads the HTTP and WebSocket code;
 * `@deputy/rpc` re-exports all of it together with the WebSocket and Unix socket listeners and
 * the in-memory pairs.
 */
export {
  Connection,
  ConnectionClosedError,
  DEFAULT_OUTBOUND_BUDGET_BYTES,
  DEFAULT_OUTBOUND_SOFT_BYTES,
  SLOW_CONSUMER_CLOSE_CODE,
  RequestTimeoutError,
  type ConnectionOptions,
  type IncomingContext,
  type IncomingHandler,
  type RequestContext,
  type RequestOptions,
} from './connection.js';
export {
  createDispatcher,
  sendTypedNotification,
  sendTypedRequest,
  unsupportedMethodError,
  type Dispatcher,
  type DispatcherOptions,
  type DispatcherTables,
  type HandlerContext,
  type MethodHandler,
  type MethodHandlers,
  type MethodSpec,
  type MethodTable,
  type NotificationHandler,
  type NotificationHandlers,
  type NotificationTable,
} from './dispatcher.js';
export {
  ERROR_CODE_TABLE,
  RpcError,
  invalidParamsError,
  toRpcError,
  type ErrorDialect,
  type ToRpcErrorOptions,
} from './errors.js';
export { formatZodIssue, summarizeIssues, type IssueSummary } from './zod-messages.js';
export {
  DEFAULT_MAX_CLOCK_SKEW_SECONDS,
  MIN_SHARED_SECRET_BYTES,
  WsAuthConfigError,
  bearerToken,
  createWsAuthenticator,
  resolveWsAuthFlags,
  type WsAuthConfig,
  type WsAuthFlags,
  type WsAuthResult,
  type WsAuthenticator,
} from './auth.js';
export {
  DEFAULT_LISTEN_URL,
  ListenUrlError,
  defaultUnixSocketPath,
  formatWsUrl,
  isLoopbackHost,
  parseListenUrl,
  type ListenTarget,
  type ParseListenUrlOptions,
} from './listen-url.js';
export { createStderrLogger, parseLogLevel, type LogLevel, type StderrLogger, type StderrLoggerOptions } from './logger.js';
export { NOOP_LOGGER, type InboundFrame, type Listener, type RpcLogger, type Transport, type TransportOptions } from './transport/transport.js';
export { AsyncQueue, type AsyncQueueOptions } from './transport/async-queue.js';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter, toLine, type LineEvent, type LineSplitterOptions } from './transport/ndjson.js';
export { createStdioListener, createStdioTransport, type StdioTransportOptions } from './transport/stdio.js';
