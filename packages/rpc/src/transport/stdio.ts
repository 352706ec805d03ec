/**
 * NDJSON over a readable/writable pair (the process's stdin and stdout by default): each inbound
 * line is decoded with `decodeMessage`, each outbound message is one compact line. `closed`
 * resolves on stdin EOF so the app can exit promptly (docs/app-server.md "Running it"). Writes wait
 * for `drain` when the stream's buffer is full, which is how a reader that stops reading pushes
 * back on us. Frames that fail to decode are logged and dropped (docs/app-server.md
 * "Envelope and errors"). Nothing else may write to the output.
 */
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { INVALID_REQUEST, decodeMessage, encodeMessage, readIdOfTruncated, type JsonRpcMessage } from '@deputy/protocol/jsonrpc';
import { AsyncQueue, inTurns } from './async-queue.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, toLine } from './ndjson.js';
import { NOOP_LOGGER, type Listener, type Transport, type TransportOptions } from './transport.js';

/** Options of {@link createStdioTransport}. */
export interface StdioTransportOptions extends TransportOptions {
  /** Defaults to `process.stdin`. */
  input?: Readable;
  /** Defaults to `process.stdout`. */
  output?: Writable;
  /** Longest accepted line in bytes (see `LineSplitter`). */
  maxLineBytes?: number;
}

class StdioTransport implements Transport {
  readonly description = 'stdio';
  readonly closed: Promise<void>;
  readonly #input: Readable;
  readonly #output: Writable;
  /** Lines as they arrived; decoded one per turn of the event loop by `messages()`. */
  readonly #queue: AsyncQueue<{ text: string; receivedAt: number }>;
  #messages: AsyncIterable<JsonRpcMessage> | undefined;
  readonly #options: StdioTransportOptions;
  #isClosed = false;
  #isCorked = false;
  readonly #closing = new AbortController();
  #markClosed!: () => void;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
    this.#queue = new AsyncQueue({ onPause: () => this.#input.pause(), onResume: () => this.#input.resume() });
    this.#attach();
  }

  #attach(): void {
    const logger = this.#options.logger ?? NOOP_LOGGER;
    const { onFrame } = this.#options;
    const splitter = new LineSplitter({ maxLineBytes: this.#options.maxLineBytes });
    const deliver = (events: ReturnType<LineSplitter['push']>, receivedAt: number): void => {
      for (const event of events) {
        if (event.kind === 'overflow') {
          // Answered when its id can be read from the line's ends (docs/app-server.md "Limits").
          const id = readIdOfTruncated(event.head, event.tail);
          logger.warn('dropped an over-long line', { transport: 'stdio', bytes: event.bytes, answered: id !== undefined });
          if (id !== undefined) {
            const limit = this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
            const message = `Invalid request: message too large (${event.bytes} bytes; the limit is ${limit} bytes)`;
            void this.send({ id, error: { code: INVALID_REQUEST, message } }).catch(() => undefined);
          }
          continue;
        }
        this.#queue.push({ text: event.text, receivedAt });
      }
    };
    // The arrival time is taken only when someone measures.
    const now = (): number => (onFrame ? performance.now() : 0);
    const onData = (chunk: Buffer | string): void => {
      const receivedAt = now();
      deliver(splitter.push(chunk), receivedAt);
    };
    const onEnd = (): void => {
      deliver(splitter.end(), now());
      this.#finish();
    };
    const onError = (err: Error): void => {
      logger.warn('stdio stream error', { error: err.message });
      this.#finish();
    };
    this.#input.on('data', onData);
    this.#input.once('end', onEnd);
    this.#input.once('close', onEnd);
    this.#input.on('error', onError);
    // EPIPE on stdout means the reader is gone: treat it as a close, never as a crash.
    this.#output.on('error', onError);
    void this.closed.then(() => {
      this.#input.off('data', onData);
      this.#input.off('end', onEnd);
      this.#input.off('close', onEnd);
      this.#input.off('error', onError);
      this.#output.off('error', onError);
    });
  }

  readonly #uncork = (): void => {
    if (!this.#isCorked) return;
    this.#isCorked = false;
    this.#output.uncork();
  };

  #finish(): void {
    if (this.#isClosed) return;
    // What was written before the close leaves now, not on the next turn of the loop.
    this.#uncork();
    this.#isClosed = true;
    this.#queue.end();
    this.#closing.abort();
    this.#markClosed();
  }

  messages(): AsyncIterable<JsonRpcMessage> {
    const logger = this.#options.logger ?? NOOP_LOGGER;
    const { versionField, onFrame } = this.#options;
    this.#messages ??= inTurns(this.#queue, ({ text, receivedAt }) => {
      const decoded = decodeMessage(text, { versionField });
      if (!decoded.ok) {
        logger.warn('dropped an invalid message', { transport: 'stdio', error: decoded.error.message });
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

  async send(message: JsonRpcMessage): Promise<void> {
    await this.sendEncoded(this.encode(message));
  }

  async sendEncoded(text: string): Promise<void> {
    if (this.#isClosed) throw new Error('stdio transport is closed');
    const line = toLine(text);
    // Lines written in one pass of the event loop leave in one system call at its end (a turn's
    // burst of notifications, or the replies to many clients' requests read in one poll, cost one
    // writev, not one write each). `setImmediate` runs right after the poll phase that wrote them.
    if (!this.#isCorked) {
      this.#isCorked = true;
      this.#output.cork();
      setImmediate(this.#uncork);
    }
    if (this.#output.write(line)) return;
    try {
      await once(this.#output, 'drain', { signal: this.#closing.signal });
    } catch {
      throw new Error('stdio transport closed while waiting for drain');
    }
  }

  async close(): Promise<void> {
    // The process's own stdin/stdout are not destroyed; we only stop reading from them.
    this.#input.pause();
    this.#finish();
    await this.closed;
  }
}

/** A transport over a readable/writable pair; see the module comment. */
export function createStdioTransport(options: StdioTransportOptions = {}): Transport {
  return new StdioTransport(options);
}

/** A listener that yields exactly one stdio transport, then ends. */
export function createStdioListener(options: StdioTransportOptions = {}): Listener {
  let transport: Transport | undefined;
  let isClosed = false;
  return {
    async *connections() {
      if (isClosed) return;
      transport = createStdioTransport(options);
      yield transport;
    },
    async close() {
      isClosed = true;
      await transport?.close();
    },
  };
}
