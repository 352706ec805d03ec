/**
 * Reads a rollout back: streams the file in large chunks, splits on newline bytes and checks each
 * line with `rollout-line.ts`. A partial line at end of file (a write cut short by a crash) is
 * dropped with a warning; a bad line anywhere else is reported as a warning, never skipped
 * silently. Large lines are parsed lazily (see `readRollout`). `scanRollout` is the quick pass
 * for a caller that needs only some lines (a resume): it classifies every line from its first
 * bytes and parses just those. This module only reads; it never repairs a file.
 */
import { closeSync, openSync, promises as fsp, readSync } from 'node:fs';
import { EngineError } from '../errors.js';
import { checkRolloutLine, checkRolloutPayload, ROLLOUT_PAYLOAD_SCHEMAS, type RolloutLine, type RolloutLineType, type SessionMetaPayload } from './rollout-line.js';

/** Bytes read per chunk by `readRollout`; big enough that a 100 MB rollout takes a dozen reads. */
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
    const ts = data.toString('latin1', head.tsStart, head.tsEnd);
    const line = new LazyRolloutLine(head.type, ts, data, head.payloadStart, end - 1, this.path, this.lineNo);
    this.lines.push(line as unknown as RolloutLine);
    return true;
  }
}

const PREFIX = Buffer.from('{"v":1,"type":"');
const TS_KEY = Buffer.from('","ts":"');
const PAYLOAD_KEY = Buffer.from('","payload":{');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The line types as bytes, to recognise a line's type without making a string of it. */
const TYPE_BYTES: readonly (readonly [RolloutLineType, Buffer])[] = (Object.keys(ROLLOUT_PAYLOAD_SCHEMAS) as RolloutLineType[]).map((type) => [type, Buffer.from(type)]);

function matchAt(data: Buffer, at: number, end: number, bytes: Buffer): boolean {
  if (at + bytes.length > end) return false;
  // A byte loop: these keys are short, and a native call per line costs more than it saves.
  for (let k = 0; k < bytes.length; k++) if (data[at + k] !== bytes[k]) return false;
  return true;
}

/** The index of the first quote in `data[from, limit)`, or -1. */
function quoteIn(data: Buffer, from: number, limit: number): number {
  for (let i = from; i < limit; i++) if (data[i] === QUOTE) return i;
  return -1;
}

/** Where a framed line's parts are: its type, the bounds of its `ts` text and where its payload starts. */
interface LineHead {
  type: RolloutLineType;
  tsStart: number;
  tsEnd: number;
  payloadStart: number;
}

/**
 * Reads `{"v":1,"type":"<type>","ts":"<ts>","payload":{` from the start of a line and checks that
 * the line ends with `}}` (payload and envelope closed). This is the writer's own key order; any
 * other shape returns null and is parsed in full instead. Runs on every line of a rollout, so it
 * reads bytes in place and makes no strings.
 */
function readHead(data: Buffer, start: number, end: number): LineHead | null {
  if (end - start < 64 || data[end - 1] !== CLOSE_BRACE || data[end - 2] !== CLOSE_BRACE || !matchAt(data, start, end, PREFIX)) return null;
  const typeStart = start + PREFIX.length;
  const typeEnd = quoteIn(data, typeStart, Math.min(end, typeStart + 33));
  if (typeEnd === -1) return null;
  let type: RolloutLineType | null = null;
  for (const [name, bytes] of TYPE_BYTES) {
    if (bytes.length === typeEnd - typeStart && matchAt(data, typeStart, typeEnd, bytes)) {
      type = name;
      break;
    }
  }
  if (type === null || type === 'session_meta' || !matchAt(data, typeEnd, end, TS_KEY)) return null;
  const tsStart = typeEnd + TS_KEY.length;
  const tsEnd = quoteIn(data, tsStart, Math.min(end, tsStart + 65));
  if (tsEnd === -1 || !matchAt(data, tsEnd, end, PAYLOAD_KEY)) return null;
  for (let i = tsStart; i < tsEnd; i++) if (data[i] === BACKSLASH || (data[i] as number) >= 0x80) return null;
  return { type, tsStart, tsEnd, payloadStart: tsEnd + PAYLOAD_KEY.length - 1 };
}

/**
 * Cuts a stream of chunks into lines and hands each complete line to `onLine` as a byte range of
 * the chunk it lies in (or of a joined copy when it spans chunks). A newline byte never occurs
 * inside a multi-byte UTF-8 sequence, so cutting at newlines always leaves whole characters.
 */
class LineSplitter {
  #carry: Buffer | null = null;

  constructor(private readonly onLine: (data: Buffer, start: number, end: number) => void) {}

  /** Takes the next chunk; its bytes may be overwritten once this returns (partial lines are copied). */
  feed(data: Buffer): void {
    let start = 0;
    let nl = data.indexOf(NEWLINE);
    if (this.#carry) {
      if (nl === -1) {
        this.#carry = Buffer.concat([this.#carry, data]);
        return;
      }
      const joined = Buffer.concat([this.#carry, data.subarray(0, nl)]);
      this.#carry = null;
      this.onLine(joined, 0, joined.length);
      start = nl + 1;
      nl = data.indexOf(NEWLINE, start);
    }
    while (nl !== -1) {
      this.onLine(data, start, nl);
      start = nl + 1;
      nl = data.indexOf(NEWLINE, start);
    }
    if (start < data.length) this.#carry = Buffer.from(data.subarray(start));
  }

  /** The unterminated last line, if the stream did not end with a newline. */
  rest(): Buffer | null {
    return this.#carry;
  }
}

/** The chunk size for a file of `size` bytes: small rollouts (the common case) get their own size. */
function chunkBytesFor(size: number): number {
  return Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, size + 1));
}

/**
 * Reads and checks a whole rollout. Throws `RolloutFormatError` when the first line is not a
 * valid `session_meta`, and the usual fs errors (ENOENT, …) when the file cannot be read.
 */
export async function readRollout(filePath: string, options: ReadRolloutOptions = {}): Promise<RolloutContents> {
  const sink = new LineSink(filePath, options.lazyLineBytes ?? DEFAULT_LAZY_LINE_BYTES);
  const splitter = new LineSplitter((data, start, end) => sink.take(data, start, end, false));
  const handle = await fsp.open(filePath, 'r');
  try {
    const chunkBytes = chunkBytesFor((await handle.stat()).size);
    for (;;) {
      options.signal?.throwIfAborted();
      // A fresh chunk per read: lazy lines keep slices of it (outside the JS heap) until parsed.
      const chunk = Buffer.allocUnsafeSlow(chunkBytes);
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      splitter.feed(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  const rest = splitter.rest();
  if (rest) sink.take(rest, 0, rest.length, true);
  return splitMeta(filePath, sink);
}

/**
 * `readRollout` without waiting: reads the first `bytes` bytes of the file (all of it when
 * omitted) synchronously. For state that must be there at once, such as a resumed thread's
 * history on first use; `bytes` is where a `scanRollout` of the same file stopped.
 */
export function readRolloutSync(filePath: string, options: Pick<ReadRolloutOptions, 'lazyLineBytes'> & { bytes?: number } = {}): RolloutContents {
  const sink = new LineSink(filePath, options.lazyLineBytes ?? DEFAULT_LAZY_LINE_BYTES);
  const splitter = new LineSplitter((data, start, end) => sink.take(data, start, end, false));
  const fd = openSync(filePath, 'r');
  try {
    let left = options.bytes ?? Infinity;
    const chunkBytes = chunkBytesFor(Number.isFinite(left) ? left : CHUNK_BYTES);
    while (left > 0) {
      const chunk = Buffer.allocUnsafeSlow(Math.min(chunkBytes, left));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      left -= bytesRead;
      splitter.feed(chunk.subarray(0, bytesRead));
    }
  } finally {
    closeSync(fd);
  }
  const rest = splitter.rest();
  if (rest) sink.take(rest, 0, rest.length, true);
  return splitMeta(filePath, sink);
}

/** What `scanRollout` found. */
export interface RolloutScan {
  meta: SessionMetaPayload;
  /** The lines the caller wanted, parsed and checked, in file order (lines that fail the check are left out). */
  lines: RolloutLine[];
  /** How many bytes were read: a later `readRolloutSync(path, { bytes })` sees the same lines. */
  bytes: number;
}

/** Bytes read per chunk by `scanRollout`; its two buffers are reused, since no line keeps them. */
const SCAN_CHUNK_BYTES = 1024 * 1024;

/**
 * Reads a rollout quickly for a caller that needs only some of its lines: every line's type is
 * read from its first bytes (`want` sees it, and can ask for the start of the payload's raw
 * JSON text), and only the lines it wants are parsed and checked. A line without the writer's
 * framing is parsed to learn its type. Nothing of the file is kept but those lines. Throws as
 * `readRollout` does for a missing or bad `session_meta` line and fs errors.
 */
export async function scanRollout(
  filePath: string,
  want: (type: RolloutLineType, payloadPrefix: (maxBytes: number) => string) => boolean,
): Promise<RolloutScan> {
  const metaSink = new LineSink(filePath, Infinity);
  const lines: RolloutLine[] = [];
  let metaDone = false;
  const parse = (data: Buffer, start: number, end: number): RolloutLine | null => {
    try {
      const checked = checkRolloutLine(JSON.parse(data.toString('utf8', start, end)));
      return checked.ok ? checked.line : null;
    } catch {
      return null;
    }
  };
  const onLine = (data: Buffer, start: number, end: number, isLast: boolean): void => {
    if (!metaDone) {
      // The first line that is not blank must be the session_meta (splitMeta below says why not).
      metaSink.take(data, start, end, isLast);
      metaDone = metaSink.lines.length > 0 || metaSink.warnings.length > 0;
      return;
    }
    if (end === start || (end - start === 1 && data[start] === 0x0d)) return;
    const head = isLast ? null : readHead(data, start, end);
    if (head) {
      const prefix = (maxBytes: number): string => data.toString('utf8', head.payloadStart, Math.min(end, head.payloadStart + maxBytes));
      if (!want(head.type, prefix)) return;
      const line = parse(data, start, end);
      if (line) lines.push(line);
      return;
    }
    const line = parse(data, start, end);
    if (line && want(line.type, (maxBytes) => JSON.stringify(line.payload).slice(0, maxBytes))) lines.push(line);
  };
  const splitter = new LineSplitter((data, start, end) => onLine(data, start, end, false));
  let bytes = 0;
  const handle = await fsp.open(filePath, 'r');
  let pending: Promise<{ bytesRead: number }> | null = null;
  try {
    // Two buffers: the next chunk is read while this one is split and parsed.
    const size = Math.min(SCAN_CHUNK_BYTES, chunkBytesFor((await handle.stat()).size));
    const buffers = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)] as const;
    pending = handle.read(buffers[0], 0, size, null);
    for (let k = 0; ; k++) {
      const { bytesRead }: { bytesRead: number } = await pending;
      pending = null;
      if (bytesRead === 0) break;
      bytes += bytesRead;
      pending = handle.read(buffers[(k + 1) % 2] as Buffer, 0, size, null);
      splitter.feed((buffers[k % 2] as Buffer).subarray(0, bytesRead));
    }
  } finally {
    // A read still in flight when parsing threw must end before the handle closes.
    if (pending) await pending.catch(() => undefined);
    await handle.close();
  }
  const rest = splitter.rest();
  if (rest) onLine(rest, 0, rest.length, true);
  return { meta: splitMeta(filePath, metaSink).meta, lines, bytes };
}

function splitMeta(filePath: string, sink: LineSink): RolloutContents {
  const first = sink.lines[0];
  const firstWarning = sink.warnings[0];
  if (firstWarning && (!first || firstWarning.line === 1)) throw new RolloutFormatError(filePath, `line ${firstWarning.line}: ${firstWarning.message}`);
  if (!first) throw new RolloutFormatError(filePath, 'the file is empty');
  if (first.type !== 'session_meta') throw new RolloutFormatError(filePath, `first line is ${first.type}, not session_meta`);
  return { meta: first.payload, lines: sink.lines.slice(1), warnings: sink.warnings };
}
