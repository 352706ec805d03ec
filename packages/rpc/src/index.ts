/**
 * @deputy/rpc: the JSON-RPC runtime. Transports (stdio, WebSocket over TCP or a Unix socket,
 * in-memory pairs for tests), `Connection` (id correlation, cancellation, bounded write queue),
 * the table-driven dispatcher, WebSocket auth, and the error mapping. The only package that opens
 * sockets or reads stdin.
 */
export {
  Connection,
  ConnectionClosedError,
  RequestTimeoutError,
  type ConnectionOptions,
  type IncomingContext,
  type IncomingHandler,
  type RequestOptions,
} from './connection.js';
export {
  createDispatcher,
  sendTypedNotification,
  sendTypedRequest,
  unsupportedMethodError,
  type Dispatcher,
  type DispatcherOptions,
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
export { NOOP_LOGGER, type Listener, type RpcLogger, type Transport, type TransportOptions } from './transport/transport.js';
export { AsyncQueue, type AsyncQueueOptions } from './transport/async-queue.js';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter, toLine, type LineEvent, type LineSplitterOptions } from './transport/ndjson.js';
export { createStdioListener, createStdioTransport, type StdioTransportOptions } from './transport/stdio.js';
export { WebSocketTransport, type WebSocketTransportOptions } from './transport/websocket-transport.js';
export { listenWebSocket, type WebSocketListener, type WebSocketListenerOptions } from './transport/websocket.js';
export {
  SOCKET_DIR_MODE,
  SOCKET_FILE_MODE,
  SocketInUseError,
  listenUnixSocket,
  type UnixSocketListener,
  type UnixSocketListenerOptions,
} from './transport/unix-socket.js';
export { createMemoryTransportPair, type MemoryDirection, type MemoryTransportOptions } from './transport/memory.js';
