/**
 * Rollout files on disk: `RolloutWriter` appends one JSON line per fact with a single synchronous
 * write (so the fact is in the file before the caller publishes its event), opening the file for
 * that write only, so a loaded thread holds no file descriptor between writes (a server with
 * thousands of loaded threads stays far from `ulimit -n`), plus finding a
 * thread's rollout and moving it in and out of the archive. It never parses a rollout's content
 * (see `rollout-reader.ts`) and never decides what a thread records.
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

/**
 * Appends lines to one rollout file. Writes are synchronous, so appends never interleave; the file
 * is opened for each write and closed right after it.
 */
export class RolloutWriter {
  #isClosed = false;

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
    const fd = fs.openSync(this.path, APPEND_FLAGS);
    try {
      // One write call per line; the loop only matters if the OS reports a short write.
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Forces written lines to stable storage (fdatasync). */
  flush(): void {
    if (this.#isClosed) return;
    const fd = fs.openSync(this.path, APPEND_FLAGS);
    try {
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Stops the writer. Idempotent; later appends throw. No file stays open between writes. */
  close(): void {
    this.#isClosed = true;
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
