/**
 * NDJSON line framing for stdio: splits a byte stream into lines on `\n`, strips a trailing `\r`,
 * and decodes each whole line as UTF-8, so a `\r\n` or a multibyte character split across chunks
 * comes out intact (a `\n` byte never occurs inside a UTF-8 sequence, so splitting bytes is safe).
 * A line longer than `maxLineBytes` is discarded up to its newline and reported, not buffered
 * without bound. This module only frames: it does not parse JSON.
 */

/** Default longest accepted line: 64 MiB (the reference accepted 20 MiB lines). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Bytes kept of each end of a discarded over-long line, so its id can still be read. */
export const OVERFLOW_EDGE_BYTES = 4096;

/**
 * One framing result: a complete line, or a discarded over-long line: its size and its first and
 * last {@link OVERFLOW_EDGE_BYTES} bytes (decoded as UTF-8), where a request's id usually is.
 */
export type LineEvent = { kind: 'line'; text: string } | { kind: 'overflow'; bytes: number; head: string; tail: string };

/** Options of {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** Longest line kept, in bytes, excluding the newline. Defaults to {@link DEFAULT_MAX_LINE_BYTES}. */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Incremental splitter; feed it chunks with `push`, then call `end` at EOF. */
export class LineSplitter {
  readonly #max: number;
  /** Pieces of the current, unterminated line. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** True while skipping the rest of an over-long line. */
  #discarding = false;
  #discardedBytes = 0;
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);

  constructor(options: LineSplitterOptions = {}) {
    this.#max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /** Consumes a chunk and returns the lines it completed. */
  push(chunk: Uint8Array | string): LineEvent[] {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: LineEvent[] = [];
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(NEWLINE, start);
      const end = nl === -1 ? buf.length : nl;
      this.#append(buf.subarray(start, end));
      if (nl === -1) break;
      const event = this.#finishLine();
      if (event) events.push(event);
      start = nl + 1;
    }
    return events;
  }

  /** Flushes a final line that had no newline (EOF). */
  end(): LineEvent[] {
    if (this.#pendingBytes === 0 && !this.#discarding) return [];
    const event = this.#finishLine();
    return event ? [event] : [];
  }

  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#discarding) {
      this.#discardedBytes += piece.length;
      this.#keepTail(piece);
      return;
    }
    // The limit allows one extra byte for a `\r` that a CRLF line end will strip.
    if (this.#pendingBytes + piece.length > this.#max + 1) {
      this.#discarding = true;
      this.#discardedBytes = this.#pendingBytes + piece.length;
      const edge: Buffer[] = [];
      let kept = 0;
      for (const p of [...this.#pending, piece]) {
        if (kept >= OVERFLOW_EDGE_BYTES) break;
        edge.push(p.subarray(0, OVERFLOW_EDGE_BYTES - kept));
        kept += Math.min(p.length, OVERFLOW_EDGE_BYTES - kept);
      }
      this.#head = Buffer.concat(edge);
      this.#tail = Buffer.alloc(0);
      for (const p of this.#pending) this.#keepTail(p);
      this.#keepTail(piece);
      this.#pending = [];
      this.#pendingBytes = 0;
      return;
    }
    this.#pending.push(piece);
    this.#pendingBytes += piece.length;
  }

  /** Keeps the last {@link OVERFLOW_EDGE_BYTES} bytes seen of a discarded line. */
  #keepTail(piece: Buffer): void {
    const last = piece.length >= OVERFLOW_EDGE_BYTES ? piece.subarray(piece.length - OVERFLOW_EDGE_BYTES) : piece;
    const joined = Buffer.concat([this.#tail, last]);
    this.#tail = Buffer.from(joined.subarray(Math.max(0, joined.length - OVERFLOW_EDGE_BYTES)));
  }

  #finishLine(): LineEvent | undefined {
    if (this.#discarding) {
      const event: LineEvent = { kind: 'overflow', bytes: this.#discardedBytes, head: this.#head.toString('utf8'), tail: this.#tail.toString('utf8') };
      this.#discarding = false;
      this.#discardedBytes = 0;
      this.#head = Buffer.alloc(0);
      this.#tail = Buffer.alloc(0);
      return event;
    }
    // With no pieces, Buffer.concat gives an empty buffer: a blank line.
    let line = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    if (line.length > this.#max) {
      return { kind: 'overflow', bytes: line.length, head: line.subarray(0, OVERFLOW_EDGE_BYTES).toString('utf8'), tail: line.subarray(Math.max(0, line.length - OVERFLOW_EDGE_BYTES)).toString('utf8') };
    }
    // Blank separators (a bare `\n` or `\r\n`) are not messages; anything else goes to the decoder.
    if (line.length === 0) return undefined;
    return { kind: 'line', text: line.toString('utf8') };
  }
}

/** Frames one encoded message as an NDJSON line. */
export function toLine(text: string): string {
  return `${text}\n`;
}
