/**
 * Reads a rollout back: streams the file in large chunks, splits on newline bytes and checks each
 * line with `rollout-line.ts`. A partial line at end of file (a write cut short by a crash) is
 * dropped with a warning; a bad line anywhere else is reported as a warning, never skipped
 * silently. Large lines are parsed lazily (see `readRollout`). This module only reads; it never
 * repairs a file.
 */
import { promises as fsp } from 'node:fs';
import { EngineError } from '../errors.js';
import { checkRolloutLine, checkRolloutPayload, isRolloutLineType, type RolloutLine, type RolloutLineType, type SessionMetaPayload } from './rollout-line.js';

/** Bytes read per chunk; big enough that a 100 MB rollout takes a dozen reads. */
const CHUNK_BYTES = 8 * 1024 * 1024;
const MIN_CHUNK_BYTES = 64 * 1024;
/** Lines longer than this (bytes) get their payload parsed on first access, by default. */
export const DEFAULT_LAZY_LINE_BYTES = 256;
const NEWLINE = 0x0a;
const CLOSE_BRACE = 0x7d;

/** Something wrong with one line that the reader stepped over. */
export interface RolloutWarning {
  /** 1-based line number in the file. */
  line: number;
  /** `torn_tail`: a partial last line (crash mid-write). `invalid_line`: a line that failed the check. */
  kind: 'torn_tail' | 'invalid_line';
  message: string;
}

/** A rollout as read from disk. */
export interface RolloutContents {
  /** The first line's payload. */
  meta: SessionMetaPayload;
  /**
   * Every valid line after the first, in file order. The payload of a large line is parsed and
   * checked on first access; if it turns out malformed, that access throws `RolloutFormatError`.
   */
  lines: RolloutLine[];
  warnings: RolloutWarning[];
}

/** The file is not a usable rollout (no valid `session_meta` first line), or a lazy payload is bad. */
export class RolloutFormatError extends EngineError {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super('rollout_corrupt', `not a valid rollout (${path}): ${detail}`);
  }
}

/** Options of `readRollout`. */
export interface ReadRolloutOptions {
  signal?: AbortSignal;
  /**
   * Lines longer than this many bytes keep their payload as raw bytes until it is first read.
   * Their envelope, type and framing are still checked up front. `Infinity` parses and checks
   * everything eagerly (slower on big rollouts, but every bad line becomes a warning).
   */
  lazyLineBytes?: number;
}

/**
 * A line whose payload stays raw bytes until first read. `payload` is an own enumerable accessor
 * (defined after `v`, `type`, `ts`), so property access, spreading and `JSON.stringify` all see
 * the parsed value in the usual key order.
 */
class LazyRolloutLine {
  readonly v = 1;
  readonly type: RolloutLineType;
  readonly ts: string;
  /** The chunk holding the payload bytes `[#start, #end)`; null once parsed. */
  #raw: Buffer | null;
  readonly #start: number;
  readonly #end: number;
  #value: unknown = undefined;
  readonly #file: string;
  readonly #lineNo: number;

  static readonly #payloadAccessor: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: LazyRolloutLine): unknown {
      return this.#load();
    },
    set(this: LazyRolloutLine, value: unknown): void {
      this.#raw = null;
      this.#value = value;
    },
  };

  constructor(
    type: RolloutLineType,
    ts: string,
    raw: Buffer,
    start: number,
    end: number,
    file: string,
    lineNo: number,
  ) {
    this.type = type;
    this.ts = ts;
    this.#raw = raw;
    this.#start = start;
    this.#end = end;
    this.#file = file;
    this.#lineNo = lineNo;
    Object.defineProperty(this, 'payload', LazyRolloutLine.#payloadAccessor);
  }

  /** The first bytes of the unparsed payload text, or null once it has been parsed. */
  rawPrefix(maxBytes: number): string | null {
    if (this.#raw === null) return null;
    return this.#raw.toString('utf8', this.#start, Math.min(this.#end, this.#start + maxBytes));
  }

  #load(): unknown {
    if (this.#raw === null) return this.#value;
    let value: unknown;
    try {
      value = JSON.parse(this.#raw.toString('utf8', this.#start, this.#end));
    } catch (error) {
      throw new RolloutFormatError(this.#file, `line ${this.#lineNo}: invalid JSON: ${(error as Error).message}`);
    }
    const checked = checkRolloutPayload(this.type, value);
    if (!checked.ok) throw new RolloutFormatError(this.#file, `line ${this.#lineNo}: ${checked.error}`);
    this.#value = checked.payload;
    this.#raw = null;
    return this.#value;
  }
}

/**
 * The start of a line's payload as raw JSON text, when the payload has not been parsed yet (a
 * large line read lazily); null otherwise. Lets a reader classify a big line (e.g. the item type
 * of an `item` line) without parsing it.
 */
export function peekPayloadPrefix(line: RolloutLine, maxBytes = 160): string | null {
  return line instanceof LazyRolloutLine ? line.rawPrefix(maxBytes) : null;
}

class LineSink {
  readonly lines: RolloutLine[] = [];
  readonly warnings: RolloutWarning[] = [];
  lineNo = 0;

  constructor(
    readonly path: string,
    readonly lazyLineBytes: number,
  ) {}

  /** Takes the bytes `data[start, end)` of one line (without its newline). */
  take(data: Buffer, start: number, end: number, isLast: boolean): void {
    this.lineNo += 1;
    if (end === start || (end - start === 1 && data[start] === 0x0d)) return;
    // The first line (session_meta) and an unterminated last line are always parsed in full.
    if (end - start > this.lazyLineBytes && this.lineNo > 1 && !isLast && this.#takeLazy(data, start, end)) return;
    const text = data.toString('utf8', start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (isLast) this.warnings.push({ line: this.lineNo, kind: 'torn_tail', message: `dropped a partial last line (${end - start} bytes)` });
      else this.warnings.push({ line: this.lineNo, kind: 'invalid_line', message: `invalid JSON: ${(error as Error).message}` });
      return;
    }
    const checked = checkRolloutLine(value);
    if (checked.ok) this.lines.push(checked.line);
    else this.warnings.push({ line: this.lineNo, kind: 'invalid_line', message: checked.error });
  }

  /** Checks envelope and framing from the line's bytes; false to fall back to a full parse. */
  #takeLazy(data: Buffer, start: number, end: number): boolean {
    const head = readHead(data, start, end);
    if (!head) return false;
    const line = new LazyRolloutLine(head.type, head.ts, data, head.payloadStart, end - 1, this.path, this.lineNo);
    this.lines.push(line as unknown as RolloutLine);
    return true;
  }
}

const PREFIX = Buffer.from('{"v":1,"type":"');
const TS_KEY = Buffer.from('","ts":"');
const PAYLOAD_KEY = Buffer.from('","payload":{');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Canonical type strings, so lazy lines do not each hold a copy. */
const TYPE_NAMES = new Map<string, RolloutLineType>();

function matchAt(data: Buffer, at: number, end: number, bytes: Buffer): boolean {
  return at + bytes.length <= end && data.compare(bytes, 0, bytes.length, at, at + bytes.length) === 0;
}

/**
 * Reads `{"v":1,"type":"<type>","ts":"<ts>","payload":{` from the start of a line and checks that
 * the line ends with `}}` (payload and envelope closed). This is the writer's own key order; any
 * other shape returns null and is parsed in full instead.
 */
function readHead(data: Buffer, start: number, end: number): { type: RolloutLineType; ts: string; payloadStart: number } | null {
  if (end - start < 64 || data[end - 1] !== CLOSE_BRACE || data[end - 2] !== CLOSE_BRACE || !matchAt(data, start, end, PREFIX)) return null;
  const typeStart = start + PREFIX.length;
  const typeEnd = data.indexOf(QUOTE, typeStart);
  if (typeEnd === -1 || typeEnd - typeStart > 32) return null;
  const typeText = data.toString('latin1', typeStart, typeEnd);
  let type = TYPE_NAMES.get(typeText);
  if (!type) {
    if (!isRolloutLineType(typeText)) return null;
    TYPE_NAMES.set(typeText, typeText);
    type = typeText;
  }
  if (type === 'session_meta' || !matchAt(data, typeEnd, end, TS_KEY)) return null;
  const tsStart = typeEnd + TS_KEY.length;
  const tsEnd = data.indexOf(QUOTE, tsStart);
  if (tsEnd === -1 || tsEnd - tsStart > 64 || !matchAt(data, tsEnd, end, PAYLOAD_KEY)) return null;
  for (let i = tsStart; i < tsEnd; i++) if (data[i] === BACKSLASH || (data[i] as number) >= 0x80) return null;
  return { type, ts: data.toString('latin1', tsStart, tsEnd), payloadStart: tsEnd + PAYLOAD_KEY.length - 1 };
}

/**
 * Reads and checks a whole rollout. Throws `RolloutFormatError` when the first line is not a
 * valid `session_meta`, and the usual fs errors (ENOENT, …) when the file cannot be read.
 */
export async function readRollout(filePath: string, options: ReadRolloutOptions = {}): Promise<RolloutContents> {
  const sink = new LineSink(filePath, options.lazyLineBytes ?? DEFAULT_LAZY_LINE_BYTES);
  const handle = await fsp.open(filePath, 'r');
  try {
    // Small rollouts (the common case) get a chunk of their own size, not 8 MiB.
    const chunkBytes = Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, (await handle.stat()).size + 1));
    let carry: Buffer | null = null;
    for (;;) {
      options.signal?.throwIfAborted();
      // A fresh chunk per read: lazy lines keep slices of it (outside the JS heap) until parsed.
      const chunk = Buffer.allocUnsafeSlow(chunkBytes);
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      // A newline byte never occurs inside a multi-byte UTF-8 sequence, so cutting at newlines
      // always leaves whole characters on both sides.
      let start = 0;
      let nl = data.indexOf(NEWLINE);
      if (carry) {
        if (nl === -1) {
          carry = Buffer.concat([carry, data]);
          continue;
        }
        const joined = Buffer.concat([carry, data.subarray(0, nl)]);
        sink.take(joined, 0, joined.length, false);
        carry = null;
        start = nl + 1;
        nl = data.indexOf(NEWLINE, start);
      }
      while (nl !== -1) {
        sink.take(data, start, nl, false);
        start = nl + 1;
        nl = data.indexOf(NEWLINE, start);
      }
      if (start < bytesRead) carry = Buffer.from(data.subarray(start));
    }
    if (carry) sink.take(carry, 0, carry.length, true);
  } finally {
    await handle.close();
  }
  return splitMeta(filePath, sink);
}

function splitMeta(filePath: string, sink: LineSink): RolloutContents {
  const first = sink.lines[0];
  const firstWarning = sink.warnings[0];
  if (firstWarning && (!first || firstWarning.line === 1)) throw new RolloutFormatError(filePath, `line ${firstWarning.line}: ${firstWarning.message}`);
  if (!first) throw new RolloutFormatError(filePath, 'the file is empty');
  if (first.type !== 'session_meta') throw new RolloutFormatError(filePath, `first line is ${first.type}, not session_meta`);
  return { meta: first.payload, lines: sink.lines.slice(1), warnings: sink.warnings };
}
