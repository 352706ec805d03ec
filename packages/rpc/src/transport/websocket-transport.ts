/**
 * A `Transport` over one open `ws` WebSocket, server or client side: one text frame carries one
 * message (docs/app-server.md "Transports"). Binary frames are ignored without closing the
 * connection, and frames that do not decode are logged and dropped. `send` resolves when the socket
 * has taken the frame, so a peer that stops reading makes sends wait, which is what the
 * connection's bounded queue measures. Closing sends a normal close frame and falls back to
 * terminating the socket when the peer does not answer, or at once when unsent data is stuck behind
 * a reader that does not read. It reads the ready-state constants off the socket itself, so loading
 * this module does not load `ws`.
 */
import type WebSocket from 'ws';
import { decodeMessage, encodeMessage, type JsonRpcMessage } from '@deputy/protocol/jsonrpc';
import { AsyncQueue, inTurns } from './async-queue.js';
import { NOOP_LOGGER, type Transport, type TransportOptions } from './transport.js';

/** Options of {@link WebSocketTransport}. */
export interface WebSocketTransportOptions extends TransportOptions {
  /** Shown in logs; defaults to `websocket`. */
  description?: string;
  /** How long a close waits for the peer's close frame before terminating; defaults to 1000 ms. */
  closeTimeoutMs?: number;
}

/** Close code for a normal close. */
const NORMAL_CLOSURE = 1000;
/** How long a close with a code waits for a slow reader to take its last bytes and the code. */
const CODED_CLOSE_GRACE_MS = 10_000;
/** Longest close reason a frame can carry is 123 bytes; keep well under it. */
const MAX_REASON_CHARS = 60;

function frameText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** See the module comment. */
export class WebSocketTransport implements Transport {
  readonly description: string;
  readonly closed: Promise<void>;
  readonly #ws: WebSocket;
  /** Text frames as they arrived; decoded one per turn of the event loop by `messages()`. */
  readonly #queue: AsyncQueue<{ data: WebSocket.RawData; receivedAt: number }>;
  #messages: AsyncIterable<JsonRpcMessage> | undefined;
  readonly #options: WebSocketTransportOptions;
  #isClosed = false;
  readonly #pendingSends = new Set<() => void>();

  /** Wraps a socket that is already open. */
  constructor(ws: WebSocket, options: WebSocketTransportOptions = {}) {
    this.#ws = ws;
    this.#options = options;
    this.description = options.description ?? 'websocket';
    this.#queue = new AsyncQueue({ onPause: () => ws.pause(), onResume: () => ws.resume() });
    this.closed = new Promise((resolve) => {
      ws.once('close', () => {
        this.#isClosed = true;
        this.#queue.end();
        for (const reject of this.#pendingSends) reject();
        this.#pendingSends.clear();
        resolve();
      });
    });
    const logger = options.logger ?? NOOP_LOGGER;
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        logger.warn('ignored a binary frame', { transport: this.description });
        return;
      }
      this.#queue.push({ data, receivedAt: options.onFrame ? performance.now() : 0 });
    });
    ws.on('error', (err) => logger.warn('websocket error', { transport: this.description, error: err.message }));
    if (ws.readyState === ws.CLOSED) {
      this.#isClosed = true;
      this.#queue.end();
    }
  }

  /** Bytes queued in user space that the OS has not taken yet. */
  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  messages(): AsyncIterable<JsonRpcMessage> {
    const logger = this.#options.logger ?? NOOP_LOGGER;
    const { versionField, onFrame } = this.#options;
    this.#messages ??= inTurns(this.#queue, ({ data, receivedAt }) => {
      const text = frameText(data);
      const decoded = decodeMessage(text, { versionField });
      if (!decoded.ok) {
        logger.warn('dropped an invalid message', { transport: this.description, error: decoded.error.message });
        return undefined;
      }
      onFrame?.(decoded.message, { text, receivedAt });
      return decoded.message;
    });
    return this.#messages;
  }

  encode(message: JsonRpcMessage): string {
    return encodeMessage(message, { versionField: this.#options.versionField });
  }

  send(message: JsonRpcMessage): Promise<void> {
    let text: string;
    try {
      text = this.encode(message);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.sendEncoded(text);
  }

  sendEncoded(text: string): Promise<void> {
    if (this.#isClosed || this.#ws.readyState !== this.#ws.OPEN) {
      return Promise.reject(new Error(`${this.description} is closed`));
    }
    return new Promise<void>((resolve, reject) => {
      // A destroyed socket may never call back; the close event settles the send instead.
      const onClosed = (): void => reject(new Error(`${this.description} closed before the message was written`));
      this.#pendingSends.add(onClosed);
      this.#ws.send(text, { binary: false }, (err) => {
        this.#pendingSends.delete(onClosed);
        if (err) reject(err);
        else resolve();
      });
    });
  }

  async close(reason?: string, code?: number): Promise<void> {
    if (!this.#isClosed) {
      const ws = this.#ws;
      if (code !== undefined && ws.readyState === ws.OPEN) {
        // A close that says why: the frame queues behind unsent data, so a reader that resumes in
        // time reads everything owed to it, then the code; one that does not is cut off.
        ws.close(code, (reason ?? '').slice(0, MAX_REASON_CHARS));
        const timer = setTimeout(() => ws.terminate(), Math.max(this.#options.closeTimeoutMs ?? 1000, CODED_CLOSE_GRACE_MS));
        timer.unref();
        void this.closed.then(() => clearTimeout(timer));
      } else if (ws.readyState === ws.CONNECTING || ws.bufferedAmount > 0) {
        // The peer is not reading: a close handshake would queue behind the stuck data.
        ws.terminate();
      } else if (ws.readyState === ws.OPEN) {
        ws.close(NORMAL_CLOSURE, (reason ?? '').slice(0, MAX_REASON_CHARS));
        const timer = setTimeout(() => ws.terminate(), this.#options.closeTimeoutMs ?? 1000);
        timer.unref();
        void this.closed.then(() => clearTimeout(timer));
      }
    }
    await this.closed;
  }
}
