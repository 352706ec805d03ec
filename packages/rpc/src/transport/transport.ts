/**
 * The transport contract: a `Transport` moves already-decoded messages for one connection, and a
 * `Listener` yields one `Transport` per accepted connection. Carriers (stdio, WebSocket, Unix
 * socket, in-memory) differ only in how bytes move; framing, decoding and backpressure stay inside
 * them. This module holds types only, plus the logger shape the transports and the connection
 * report dropped input to.
 */
import type { JsonRpcMessage, VersionField } from '@deputy/protocol/jsonrpc';

/** One connection's carrier of decoded messages. */
export interface Transport {
  /**
   * Encodes and writes one message. Resolves once the carrier has taken it (the OS accepted the
   * bytes, or a `drain` came). Rejects with a `TypeError` when the message cannot be encoded
   * (the transport stays usable) and with another error when the transport is closed. Callers
   * serialize their writes (the connection keeps a single write queue).
   */
  send(message: JsonRpcMessage): Promise<void>;
  /**
   * Optional: encodes a message as this carrier would (throws a `TypeError` when it cannot).
   * With {@link sendEncoded}, it lets the connection know each message's size when it is queued
   * and so keep a byte budget per connection.
   */
  encode?(message: JsonRpcMessage): string;
  /** Optional: writes a message {@link encode} produced; otherwise as `send`. */
  sendEncoded?(text: string): Promise<void>;
  /** The inbound messages in arrival order; ends when the peer goes away. Iterate it once. */
  messages(): AsyncIterable<JsonRpcMessage>;
  /**
   * Closes the carrier; resolves when it is closed. Safe to call more than once. A `code` (a
   * WebSocket close code) says why, e.g. 1013 for a peer that stopped reading; carriers without
   * close codes ignore it.
   */
  close(reason?: string, code?: number): Promise<void>;
  /** Resolves when the carrier is closed, by either side. Never rejects. */
  readonly closed: Promise<void>;
  /** A short description for logs, e.g. `ws 127.0.0.1:53422` or `stdio`. */
  readonly description: string;
}

/** Produces a transport per accepted connection (stdio yields exactly one). */
export interface Listener {
  /** Accepted connections, in order; ends when the listener is closed. Iterate it once. */
  connections(): AsyncIterable<Transport>;
  /** Stops accepting and closes the connections it produced. Safe to call more than once. */
  close(): Promise<void>;
}

/** Where transports and connections report what they drop or decide. Defaults to {@link NOOP_LOGGER}. */
export interface RpcLogger {
  /** Routine events (connection opened or closed). */
  info(message: string, details?: Record<string, unknown>): void;
  /** Dropped input (bad JSON, bad envelope, unknown response id), slow consumers. */
  warn(message: string, details?: Record<string, unknown>): void;
  /** Failures of the runtime itself. */
  error(message: string, details?: Record<string, unknown>): void;
}

/** A logger that discards everything. */
export const NOOP_LOGGER: RpcLogger = { info() {}, warn() {}, error() {} };

/** What {@link TransportOptions.onFrame} learns about one inbound frame. */
export interface InboundFrame {
  /** The frame as received (a line without its newline, or a WebSocket text frame). */
  text: string;
  /** `performance.now()` when the frame's last byte arrived, before it was decoded. */
  receivedAt: number;
}

/** Options every carrier takes. */
export interface TransportOptions {
  /** The envelope dialect; defaults to `omit` (the app-server's). */
  versionField?: VersionField;
  /** Receives one line per dropped frame. */
  logger?: RpcLogger;
  /**
   * Called with each inbound frame that decodes, before its message is queued: for measurements
   * that must leave out the time spent decoding (a client's timed requests). Nothing is measured
   * when absent.
   */
  onFrame?: (message: JsonRpcMessage, frame: InboundFrame) => void;
}
