/**
 * ThreadIndex: the SQLite index of threads (`<home>/state.sqlite`, WAL) that answers list and
 * search. The rollouts are the truth; this index is derived from them and can always be rebuilt
 * (`rebuild`) or caught up after a crash (`reconcile`). It owns the database's lifecycle (create,
 * detect corruption or an old schema, rebuild) and its row updates; it never writes rollouts.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { summarizeRolloutBytes, PREVIEW_MAX_CHARS } from './rollout-summary.js';
import { z } from 'zod';
import { listRolloutDirs, listRolloutFilesIn, type RolloutDir, type RolloutFileRef } from './rollout-paths.js';
import { isCorruptionError, openSqlite, type SqlDatabase, type SqlStatement, type SqlValue } from './sqlite-driver.js';
import {
  configureConnection,
  createSchema,
  dropSearch,
  readSchemaVersion,
  restoreSearch,
  THREAD_INDEX_FILE,
  THREAD_INDEX_SCHEMA_VERSION,
  type ThreadRow,
} from './thread-index-schema.js';
import { buildListQuery, encodeCursor, ROW_COLUMNS, toThreadRow, type ListQuery, type RawThreadRow, type ThreadListOptions, type ThreadListPage } from './thread-index-query.js';
import { IndexReaderUnavailableError, ThreadIndexReader } from './thread-index-reader.js';

export { InvalidCursorError, type ThreadListOptions, type ThreadListPage, type ThreadSortDirection, type ThreadSortKey } from './thread-index-query.js';
export { ThreadRowSchema, type ThreadRow } from './thread-index-schema.js';
export { IndexJobTimeoutError, IndexQueryError, INDEX_JOB_TIMEOUT_MS } from './thread-index-reader.js';

/** Another name for `ThreadListOptions` (the Codex name of the list request). */
export type ThreadListParams = ThreadListOptions;

/** How `open` found the database file. */
export type ThreadIndexOpenOutcome = 'opened' | 'created' | 'rebuilt_corrupt' | 'rebuilt_old_schema';

/** Result of `rebuild`. */
export interface RebuildResult {
  /** Threads now in the index. */
  indexed: number;
  /** Rollout files that could not be summarised (no valid session_meta, unreadable). */
  skipped: string[];
}

/** The `meta` key of the directory stamps of the last walk (see `reconcile`). */
const DIR_STAMPS_KEY = 'rollout_dir_stamps';
/** `{ [dir]: [mtimeMs, checkedAtMs] }`. */
const DirStampsSchema = z.record(z.string(), z.tuple([z.number(), z.number()]));
/**
 * A directory whose modification time was within this of the moment it was listed is listed again
 * next time: a file added in the same clock step would not change the time it was seen with.
 */
const AMBIGUOUS_MTIME_MS = 2_000;

/** Result of `reconcile`. */
export interface ReconcileResult {
  /** Threads that were on disk but not in the index. */
  added: number;
  /** Threads whose file had moved (path or archived flag corrected). */
  updated: number;
  skipped: string[];
}

/** Options of `ThreadIndex.open`. */
export interface ThreadIndexOpenOptions {
  signal?: AbortSignal;
}

const SUMMARY_BATCH = 200;

function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
}

function truncatePreview(text: string): string {
  return text.length <= PREVIEW_MAX_CHARS ? text : Array.from(text).slice(0, PREVIEW_MAX_CHARS).join('');
}

/**
 * Summarises rollout files into rows. Files are read synchronously (a small rollout costs a few
 * syscalls; the thread pool round trips of async reads cost more than the reads), in batches
 * with a turn of the event loop between them so a 50,000-thread rebuild never blocks for long.
 */
async function rowsFromFiles(refs: readonly RolloutFileRef[], signal?: AbortSignal): Promise<(ThreadRow | null)[]> {
  const rows: (ThreadRow | null)[] = [];
  for (let i = 0; i < refs.length; i++) {
    if (i % SUMMARY_BATCH === SUMMARY_BATCH - 1) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
    rows.push(rowFromFile(refs[i] as RolloutFileRef));
  }
  return rows;
}

function rowFromFile(ref: RolloutFileRef): ThreadRow | null {
  let summary;
  try {
    summary = summarizeRolloutBytes(fs.readFileSync(ref.path));
  } catch (error) {
    // A file that vanished or cannot be read between the walk and the read is just skipped.
    if ((error as NodeJS.ErrnoException).code) return null;
    throw error;
  }
  if (!summary) return null;
  const { meta } = summary;
  return {
    id: meta.id,
    createdAtMs: meta.createdAtMs,
    updatedAtMs: Math.max(summary.updatedAtMs, meta.createdAtMs),
    cwd: meta.cwd,
    modelProvider: meta.modelProvider,
    model: meta.model,
    source: meta.source,
    preview: summary.preview,
    name: summary.name,
    archived: ref.archived,
    path: ref.path,
    forkedFromId: meta.forkedFromId,
  };
}

function openConfigured(file: string): SqlDatabase {
  const db = openSqlite(file);
  try {
    configureConnection(db);
    // Previews are private; SQLite gives the -wal and -shm files the same mode as the database.
    try {
      if ((fs.statSync(file).mode & 0o777) !== 0o600) fs.chmodSync(file, 0o600);
    } catch {
      // Best effort: a database file owned by another user keeps its mode.
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The thread index of one home directory. */
export class ThreadIndex {
  readonly #db: SqlDatabase;
  readonly #statements = new Map<string, SqlStatement>();
  /** `touchSoon` calls not yet written, by thread id. */
  readonly #pendingTouches = new Map<string, { updatedAtMs: number; preview: string | undefined }>();
  #flushTimer: NodeJS.Immediate | undefined;
  #isFlushing = false;
  /** Text searches and rollout scans, on a worker thread (see `thread-index-reader.ts`). */
  readonly reader: ThreadIndexReader;

  private constructor(
    db: SqlDatabase,
    /** Absolute path of the database file. */
    readonly path: string,
    /** What `open` had to do. */
    readonly openOutcome: ThreadIndexOpenOutcome,
  ) {
    this.#db = db;
    this.reader = new ThreadIndexReader(path);
  }

  /** The schema version this code writes. */
  get schemaVersion(): number {
    return THREAD_INDEX_SCHEMA_VERSION;
  }

  /**
   * Opens `<home>/state.sqlite`. A missing database is created and filled from the rollouts; a
   * corrupt one, or one of another schema version, is deleted and rebuilt.
   */
  static async open(home: string, options: ThreadIndexOpenOptions = {}): Promise<ThreadIndex> {
    await fsp.mkdir(home, { recursive: true, mode: 0o700 });
    const file = path.join(path.resolve(home), THREAD_INDEX_FILE);
    let outcome: ThreadIndexOpenOutcome = fs.existsSync(file) ? 'opened' : 'created';
    let db: SqlDatabase;
    try {
      db = openConfigured(file);
      const version = readSchemaVersion(db);
      if (outcome === 'opened' && version !== THREAD_INDEX_SCHEMA_VERSION) {
        db.close();
        removeDatabaseFiles(file);
        db = openConfigured(file);
        outcome = 'rebuilt_old_schema';
      }
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      removeDatabaseFiles(file);
      db = openConfigured(file);
      outcome = 'rebuilt_corrupt';
    }
    createSchema(db);
    const index = new ThreadIndex(db, file, outcome);
    if (outcome !== 'opened') {
      try {
        await index.rebuild(home, options.signal);
      } catch (error) {
        index.close();
        throw error;
      }
    }
    return index;
  }

  #stmt(sql: string): SqlStatement {
    // Whatever reads or writes the index sees the activity recorded before it.
    if (this.#pendingTouches.size > 0 && !this.#isFlushing) this.#flushTouches();
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Inserts or replaces a thread's row. */
  upsert(row: ThreadRow): void {
    this.#stmt(
      `INSERT INTO threads(id, created_at_ms, updated_at_ms, cwd, model_provider, model, source, preview, name, archived, path, forked_from_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET created_at_ms = excluded.created_at_ms, updated_at_ms = excluded.updated_at_ms,
         cwd = excluded.cwd, model_provider = excluded.model_provider, model = excluded.model, source = excluded.source,
         preview = excluded.preview, name = excluded.name, archived = excluded.archived, path = excluded.path,
         forked_from_id = excluded.forked_from_id`,
    ).run(...rowParams(row));
  }

  /** The row of one thread, or null. */
  get(id: string): ThreadRow | null {
    const raw = this.#stmt(`SELECT ${ROW_COLUMNS} FROM threads WHERE id = ?`).get(id) as RawThreadRow | undefined;
    return raw ? toThreadRow(raw) : null;
  }

  /**
   * Whether a thread is archived, or null when it is not indexed. Reads one column, not the row
   * (whose name and preview can be large), for the many callers that only need this.
   */
  isArchived(id: string): boolean | null {
    const raw = this.#stmt('SELECT archived FROM threads WHERE id = ?').get(id) as { archived: number } | undefined;
    return raw ? raw.archived !== 0 : null;
  }

  /** Forgets a thread (its rollout was deleted). Returns false when it was not indexed. */
  remove(id: string): boolean {
    return this.#stmt('DELETE FROM threads WHERE id = ?').run(id).changes > 0;
  }

  /** Sets or clears the name. Returns false when the thread is not indexed. */
  setName(id: string, name: string | null): boolean {
    return this.#stmt('UPDATE threads SET name = ? WHERE id = ?').run(name, id).changes > 0;
  }

  /** Records that the rollout moved into (or out of) the archive. Returns false when not indexed. */
  setArchived(id: string, archived: boolean, newPath: string): boolean {
    return this.#stmt('UPDATE threads SET archived = ?, path = ? WHERE id = ?').run(archived ? 1 : 0, newPath, id).changes > 0;
  }

  /**
   * Records activity at `updatedAtMs`. `preview` is stored only while the thread has none, so
   * callers may pass every user message and the first one sticks. Returns false when not indexed.
   */
  touch(id: string, updatedAtMs: number, preview?: string): boolean {
    const text = preview === undefined ? null : truncatePreview(preview.trim());
    return (
      this.#stmt("UPDATE threads SET updated_at_ms = ?, preview = CASE WHEN preview = '' AND ? IS NOT NULL THEN ? ELSE preview END WHERE id = ?")
        .run(updatedAtMs, text, text, id).changes > 0
    );
  }

  /**
   * `touch`, deferred to the end of this pass of the event loop: a burst of activity (200 turns
   * starting at once, each with a few events) becomes one transaction instead of hundreds of
   * commits. Any read or write of the index (and `close`) applies the pending ones first.
   */
  touchSoon(id: string, updatedAtMs: number, preview?: string): void {
    const pending = this.#pendingTouches.get(id);
    this.#pendingTouches.set(id, { updatedAtMs, preview: pending?.preview ?? preview });
    this.#flushTimer ??= setImmediate(() => this.#flushTouches());
  }

  #flushTouches(): void {
    if (this.#flushTimer !== undefined) clearImmediate(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#pendingTouches.size === 0 || !this.#db.open) return;
    const pending = [...this.#pendingTouches];
    this.#pendingTouches.clear();
    this.#isFlushing = true;
    try {
      this.#db.transaction(() => {
        for (const [id, { updatedAtMs, preview }] of pending) this.touch(id, updatedAtMs, preview);
      })();
    } finally {
      this.#isFlushing = false;
    }
  }

  /** One page of threads, newest first by default. Throws `InvalidCursorError` for a bad cursor. */
  list(options: ThreadListOptions = {}): ThreadListPage {
    const query = buildListQuery(options);
    return pageOf(query, this.#stmt(query.sql).all(...query.params) as RawThreadRow[]);
  }

  /**
   * `list`, with a text search (`options.search`) run on the reader's worker thread, so a long
   * search never holds the event loop; a listing without one is a short indexed lookup and runs
   * here. Should the worker be unavailable, the query runs here. Rejects with
   * `IndexJobTimeoutError` when the search ran too long, `InvalidCursorError` for a bad cursor.
   */
  async listAsync(options: ThreadListOptions = {}): Promise<ThreadListPage> {
    this.#flushTouches();
    if ((options.search?.trim() ?? '') === '') return this.list(options);
    const query = buildListQuery(options);
    let raws: RawThreadRow[];
    try {
      raws = (await this.reader.all(query.sql, query.params)) as RawThreadRow[];
    } catch (error) {
      if (!(error instanceof IndexReaderUnavailableError) || !this.#db.open) throw error;
      raws = this.#stmt(query.sql).all(...query.params) as RawThreadRow[];
    }
    return pageOf(query, raws);
  }

  /** Number of indexed threads (live and archived). */
  count(): number {
    return (this.#stmt('SELECT count(*) AS n FROM threads').get() as { n: number }).n;
  }

  /**
   * Replaces the whole index with what the rollouts under `home` say (sessions and archive),
   * in one transaction: readers see either the old index or the new one.
   */
  async rebuild(home: string, signal?: AbortSignal): Promise<RebuildResult> {
    const dirs = await listRolloutDirs(home, signal);
    const checkedAtMs = Date.now();
    const refs = (await Promise.all(dirs.map((dir) => listRolloutFilesIn(dir)))).flat();
    const rows = await rowsFromFiles(refs, signal);
    const byId = new Map<string, ThreadRow>();
    const skipped: string[] = [];
    rows.forEach((row, i) => {
      if (!row) return void skipped.push((refs[i] as RolloutFileRef).path);
      const seen = byId.get(row.id);
      // The same id twice (a copied file): keep the most recently active copy, live before archived.
      if (!seen || row.updatedAtMs > seen.updatedAtMs || (row.updatedAtMs === seen.updatedAtMs && seen.archived && !row.archived)) byId.set(row.id, row);
    });
    signal?.throwIfAborted();
    this.#statements.clear();
    this.#db.transaction(() => {
      dropSearch(this.#db);
      this.#db.exec('DELETE FROM threads');
      const insert = this.#db.prepare(
        'INSERT INTO threads(id, created_at_ms, updated_at_ms, cwd, model_provider, model, source, preview, name, archived, path, forked_from_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const row of byId.values()) insert.run(...rowParams(row));
      restoreSearch(this.#db);
      this.#writeDirStamps(dirs, checkedAtMs);
    })();
    return { indexed: byId.size, skipped };
  }

  /**
   * Catches the index up with the disk without a rebuild: adds rollouts it lacks (a process
   * killed between writing a rollout and indexing it, another process's threads) and corrects
   * rows whose file moved. Only directories whose modification time changed since the last walk
   * are listed (each walk records them in `meta`), so a start-up over a large, quiet store costs
   * a stat per day directory; then only the missing files are read. Rows whose file is gone are
   * left as they are.
   */
  async reconcile(home: string, signal?: AbortSignal): Promise<ReconcileResult> {
    const dirs = await listRolloutDirs(home, signal);
    const seen = this.#readDirStamps();
    const changed = dirs.filter((dir) => {
      const stamp = seen.get(dir.path);
      // A directory changed within the clock's coarsest step of the last look is looked at again.
      return !stamp || stamp.mtimeMs !== dir.mtimeMs || stamp.checkedAtMs - stamp.mtimeMs < AMBIGUOUS_MTIME_MS;
    });
    const checkedAtMs = Date.now();
    const refs = (await Promise.all(changed.map((dir) => listRolloutFilesIn(dir)))).flat();
    const lookup = this.#stmt('SELECT path, archived FROM threads WHERE id = ?');
    const missing: RolloutFileRef[] = [];
    const moved: RolloutFileRef[] = [];
    for (const ref of refs) {
      const row = lookup.get(ref.threadId) as { path: string; archived: number } | undefined;
      if (!row) missing.push(ref);
      else if (row.path !== ref.path && !fs.existsSync(row.path)) moved.push(ref);
    }
    const rows = await rowsFromFiles(missing, signal);
    const skipped = missing.filter((_, i) => rows[i] === null).map((ref) => ref.path);
    const added = new Map<string, ThreadRow>();
    for (const row of rows) if (row !== null && !added.has(row.id)) added.set(row.id, row);
    this.#db.transaction(() => {
      for (const row of added.values()) this.upsert(row);
      for (const ref of moved) this.setArchived(ref.threadId, ref.archived, ref.path);
      this.#writeDirStamps(dirs, checkedAtMs);
    })();
    return { added: added.size, updated: moved.length, skipped };
  }

  /** The directories of the last walk with their modification time and when it was read. */
  #readDirStamps(): Map<string, { mtimeMs: number; checkedAtMs: number }> {
    const row = this.#stmt('SELECT value FROM meta WHERE key = ?').get(DIR_STAMPS_KEY) as { value: string } | undefined;
    const stamps = new Map<string, { mtimeMs: number; checkedAtMs: number }>();
    if (!row) return stamps;
    try {
      const parsed = DirStampsSchema.parse(JSON.parse(row.value));
      for (const [dir, [mtimeMs, checkedAtMs]] of Object.entries(parsed)) stamps.set(dir, { mtimeMs, checkedAtMs });
    } catch {
      // A stamp record this version cannot read only means a full walk next time.
    }
    return stamps;
  }

  #writeDirStamps(dirs: readonly RolloutDir[], checkedAtMs: number): void {
    const value = Object.fromEntries(dirs.map((dir) => [dir.path, [dir.mtimeMs, checkedAtMs]]));
    this.#stmt('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(DIR_STAMPS_KEY, JSON.stringify(value));
  }

  /** Closes the database (and stops the reader's worker). */
  close(): void {
    this.#flushTouches();
    this.reader.close();
    this.#statements.clear();
    if (this.#db.open) this.#db.close();
  }
}

/** A page from a list query's rows (one more than the limit when more exist). */
function pageOf(query: ListQuery, raws: RawThreadRow[]): ThreadListPage {
  const hasMore = raws.length > query.limit;
  const rows = (hasMore ? raws.slice(0, query.limit) : raws).map(toThreadRow);
  const last = rows[rows.length - 1];
  return { rows, nextCursor: hasMore && last ? encodeCursor(query.sortKey, query.direction, last) : null };
}

function rowParams(row: ThreadRow): SqlValue[] {
  return [
    row.id, row.createdAtMs, row.updatedAtMs, row.cwd, row.modelProvider, row.model, row.source,
    truncatePreview(row.preview), row.name, row.archived ? 1 : 0, row.path, row.forkedFromId,
  ];
}
