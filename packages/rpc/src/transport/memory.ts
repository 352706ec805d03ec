/**
 * A linked pair of in-memory transports for tests: what one side sends, the other receives. Every
 * message goes through the real codec (`encodeMessage` then `decodeMessage`), so nothing that could
 * not cross a real wire (class instances, functions, `undefined` members) gets through, and an
 * optional sniffer sees each frame's text in both directions. Closing either side closes both.
 */
import { decodeMessage, encodeMessage, type JsonRpcMessage, type VersionField } from '@deputy/protocol/jsonrpc';
import { AsyncQueue } from './async-queue.js';
import type { Transport } from './transport.js';

/** Which way a sniffed frame went. */
export type MemoryDirection = 'a->b' | 'b->a';

/** Options of {@link createMemoryTransportPair}. */
export interface MemoryTransportOptions {
  /** Envelope dialect of both ends; defaults to `omit`. */
  versionField?: VersionField;
  /** Sees the encoded text of every frame, e.g. to validate it against a schema (a wire sniffer). */
  sniff?: (direction: MemoryDirection, text: string) => void;
}

class MemoryTransport implements Transport {
  readonly inbox = new AsyncQueue<JsonRpcMessage>();
  peer!: MemoryTransport;
  readonly closed: Promise<void>;
  #isClosed = false;
  #markClosed!: () => void;

  constructor(
    readonly description: string,
    private readonly direction: MemoryDirection,
    private readonly options: MemoryTransportOptions,
  ) {
    this.closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#isClosed) throw new Error(`${this.description} is closed`);
    const text = encodeMessage(message, { versionField: this.options.versionField });
    this.options.sniff?.(this.direction, text);
    const decoded = decodeMessage(text, { versionField: this.options.versionField });
    if (!decoded.ok) throw new Error(`memory transport cannot carry this message: ${decoded.error.message}`);
    this.peer.inbox.push(decoded.message);
  }

  messages(): AsyncIterable<JsonRpcMessage> {
    return this.inbox;
  }

  shutdown(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.inbox.end();
    this.#markClosed();
  }

  async close(): Promise<void> {
    this.shutdown();
    this.peer.shutdown();
    await this.closed;
  }
}

/** Returns two transports wired to each other: `a` sends to `b` and `b` to `a`. */
export function createMemoryTransportPair(options: MemoryTransportOptions = {}): [Transport, Transport] {
  const a = new MemoryTransport('memory a', 'a->b', options);
  const b = new MemoryTransport('memory b', 'b->a', options);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
