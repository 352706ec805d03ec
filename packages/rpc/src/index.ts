/**
 * @deputy/rpc: the JSON-RPC runtime. Transports (stdio, WebSocket over TCP or a Unix socket,
 * in-memory pairs for tests), `Connection` (id correlation, cancellation, bounded write queue),
 * the table-driven dispatcher, WebSocket auth, and the error mapping. The only package that opens
 * sockets or reads stdin. Everything but the socket listeners and the in-memory pairs is also
 * served by the lighter `@deputy/rpc/core` entry (`core.ts`); `ws` and `jose` load only when a
 * WebSocket listener or a signed-token authenticator is created.
 */
export * from './core.js';
export { WebSocketTransport, type WebSocketTransportOptions } from './transport/websocket-transport.js';
export { listenWebSocket, type WebSocketListener, type WebSocketListenerOptions } from './transport/websocket.js';
export {
  SOCKET_BIND_UMASK,
  SOCKET_DIR_MODE,
  SOCKET_FILE_MODE,
  SocketDirectoryError,
  SocketInUseError,
  listenUnixSocket,
  type UnixSocketListener,
  type UnixSocketListenerOptions,
} from './transport/unix-socket.js';
export { createMemoryTransportPair, type MemoryDirection, type MemoryTransportOptions } from './transport/memory.js';
