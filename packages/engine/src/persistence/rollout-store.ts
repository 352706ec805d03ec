/**
 * Rollout files on disk: `RolloutWriter` appends one JSON line per fact with a single synchronous
 * write (so the fact is in the file before the caller publishes its event), plus finding a
 * thread's rollout and moving it in and out of the archive. A writer keeps its file open while it
 * is busy and closes it after a second without a write, and at most 256 files (fewer under a low
 * `ulimit -n`) are kept open at once: a server with thousands of loaded threads stays far from
 * its descriptor limit, and a running turn does not pay an open and a close per line. It never
 * parses a rollout's content (see `rollout-reader.ts`) and never decides what a thread records.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { rolloutLine, type RolloutLine, type SessionMetaPayload } from './rollout-line.js';
import {
  archivedPathForFileName,
  ARCHIVED_SESSIONS_DIR,
  findInDirs,
  isSafeThreadId,
  likelyDayDirs,
  listRolloutFiles,
  livePathForFileName,
  parseRolloutFileName,
  rolloutPathFor,
} from './rollout-paths.js';
import type { ThreadIndex } from './thread-index.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** Opens an existing rollout to append (never creates one: a moved file is an error, not a new file). */
const APPEND_FLAGS = fs.constants.O_WRONLY | fs.constants.O_APPEND;

/** A writer closes its file after this long without a write. */
const IDLE_CLOSE_MS = 1000;
/**
 * Files writers keep open at once: 256, or a sixteenth of the process's descriptor limit when
 * that is lower (a server run under `ulimit -n 256` keeps 16). A writer beyond this opens its
 * file for each write.
 */
let maxOpenWriters: number | undefined;
let openWriters = 0;

function openWritersCap(): number {
  if (maxOpenWriters === undefined) {
    let limit = Number.POSITIVE_INFINITY;
    try {
      const soft = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1];
      if (soft !== undefined) limit = Number(soft);
    } catch {
      // no /proc: the default cap
    }
    maxOpenWriters = Math.min(256, Math.floor(limit / 16));
  }
  return maxOpenWriters;
}

/**
 * Appends lines to one rollout file. Writes are synchronous, so appends never interleave. The
 * file is kept open from the second line written within a second of the one before, until a
 * second passes without one (or the writer closes); when the cap of kept files (see
 * `openWritersCap`) is reached, or for a lone line, it is opened for that write only.
 */
export class RolloutWriter {
  #isClosed = false;
  /** The open file, between writes of a busy writer. */
  #fd: number | null = null;
  #lastWriteMs = 0;
  #idleTimer: NodeJS.Timeout | null = null;

  private constructor(
    /** Absolute path of the rollout file. */
    readonly path: string,
  ) {}

  /**
   * Creates the thread's rollout (dated directories included, file mode 0600) and writes its
   * `session_meta` line before returning, so the file exists at once. Fails if the file exists.
   */
  static create(home: string, meta: SessionMetaPayload): RolloutWriter {
    const filePath = rolloutPathFor(home, meta.id, meta.createdAtMs);
    fs.mkdirSync(path.dirname(filePath), { recursive: true, mode: DIR_MODE });
    fs.closeSync(fs.openSync(filePath, 'wx', FILE_MODE));
    const writer = new RolloutWriter(filePath);
    try {
      writer.append(rolloutLine('session_meta', meta, meta.createdAtMs));
    } catch (error) {
      writer.close();
      throw error;
    }
    return writer;
  }

  /**
   * Opens an existing rollout to append to it (a resumed thread). When the file does not end
   * with a newline (a line torn by a crash) a newline is written first, so the torn fragment stays
   * a reported bad line instead of swallowing the next fact.
   */
  static openForAppend(filePath: string): RolloutWriter {
    const writer = new RolloutWriter(filePath);
    const fd = fs.openSync(filePath, 'r');
    let endsTorn = false;
    try {
      const { size } = fs.fstatSync(fd);
      if (size > 0) {
        const last = Buffer.alloc(1);
        fs.readSync(fd, last, 0, 1, size - 1);
        endsTorn = last[0] !== 0x0a;
      }
    } finally {
      fs.closeSync(fd);
    }
    if (endsTorn) writer.#write('\n');
    return writer;
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  /**
   * Appends one line. The line is on disk (in the OS page cache) when this returns; it is not
   * fsynced (call `flush()` at points that must survive a power cut).
   */
  append(line: RolloutLine): void {
    // Always v, type, ts, payload: the reader's fast path and the index scanner rely on this order.
    this.#write(`${JSON.stringify({ v: line.v, type: line.type, ts: line.ts, payload: line.payload })}\n`);
  }

  #write(text: string): void {
    if (this.#isClosed) throw new Error(`rollout writer is closed: ${this.path}`);
    const bytes = Buffer.from(text, 'utf8');
    const kept = this.#fd;
    const fd = kept ?? fs.openSync(this.path, APPEND_FLAGS);
    try {
      // One write call per line; the loop only matters if the OS reports a short write.
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if (kept === null) fs.closeSync(fd);
      else this.#release();
      throw error;
    }
    const now = Date.now();
    const isBusy = now - this.#lastWriteMs < IDLE_CLOSE_MS;
    this.#lastWriteMs = now;
    if (kept !== null) return;
    // Kept from the second line of a burst on: a thread that writes one line (say, a
    // `thread/start`) holds nothing afterwards.
    if (!isBusy || openWriters >= openWritersCap()) {
      fs.closeSync(fd);
      return;
    }
    openWriters += 1;
    this.#fd = fd;
    this.#idleTimer = setTimeout(this.#closeWhenIdle, IDLE_CLOSE_MS);
    this.#idleTimer.unref();
  }

  readonly #closeWhenIdle = (): void => {
    const idleMs = Date.now() - this.#lastWriteMs;
    if (idleMs >= IDLE_CLOSE_MS) {
      this.#idleTimer = null;
      this.#release();
      return;
    }
    this.#idleTimer = setTimeout(this.#closeWhenIdle, IDLE_CLOSE_MS - idleMs);
    this.#idleTimer.unref();
  };

  /** Closes the kept file, if any. */
  #release(): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const fd = this.#fd;
    if (fd === null) return;
    this.#fd = null;
    openWriters -= 1;
    try {
      fs.closeSync(fd);
    } catch {
      // already closed: every line was written before, nothing is lost
    }
  }

  /** Forces written lines to stable storage (fdatasync). */
  flush(): void {
    if (this.#isClosed) return;
    if (this.#fd !== null) {
      fs.fdatasyncSync(this.#fd);
      return;
    }
    const fd = fs.openSync(this.path, APPEND_FLAGS);
    try {
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Stops the writer and closes its file. Idempotent; later appends throw. */
  close(): void {
    this.#isClosed = true;
    this.#release();
  }
}

async function exists(filePath: string): Promise<boolean> {
  try {
    await fsp.access(filePath);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds a thread's rollout, live or archived: the index's path if that file exists, then the
 * likely day directories of a UUIDv7 id, the archive, and finally a walk of every session
 * directory. Returns null when there is none.
 */
export async function findRolloutPath(home: string, threadId: string, index?: ThreadIndex | null): Promise<string | null> {
  if (!isSafeThreadId(threadId)) return null;
  const indexed = index?.get(threadId)?.path;
  if (indexed && (await exists(indexed))) return indexed;
  const quick = await findInDirs([...likelyDayDirs(home, threadId), path.join(home, ARCHIVED_SESSIONS_DIR)], threadId);
  if (quick) return quick;
  const all = await listRolloutFiles(home);
  return all.find((ref) => ref.threadId === threadId)?.path ?? null;
}

async function moveFile(from: string, to: string): Promise<void> {
  await fsp.mkdir(path.dirname(to), { recursive: true, mode: DIR_MODE });
  if (await exists(to)) throw new Error(`cannot move rollout: ${to} already exists`);
  await fsp.rename(from, to);
}

/**
 * Moves a live rollout to `<home>/archived_sessions/` (same file name) and, when an index is
 * given, marks the thread archived there. Returns the new path.
 */
export async function moveToArchive(home: string, rolloutPath: string, index?: ThreadIndex | null): Promise<string> {
  const parsed = parseRolloutFileName(rolloutPath);
  if (!parsed) throw new Error(`not a rollout file: ${rolloutPath}`);
  const target = archivedPathForFileName(home, rolloutPath);
  await moveFile(rolloutPath, target);
  index?.setArchived(parsed.threadId, true, target);
  return target;
}

/**
 * Moves an archived rollout back to `sessions/YYYY/MM/DD/` (the date in its name) and, when an
 * index is given, marks the thread live there. Returns the new path.
 */
export async function moveFromArchive(home: string, rolloutPath: string, index?: ThreadIndex | null): Promise<string> {
  const parsed = parseRolloutFileName(rolloutPath);
  if (!parsed) throw new Error(`not a rollout file: ${rolloutPath}`);
  const target = livePathForFileName(home, rolloutPath);
  await moveFile(rolloutPath, target);
  index?.setArchived(parsed.threadId, false, target);
  return target;
}
