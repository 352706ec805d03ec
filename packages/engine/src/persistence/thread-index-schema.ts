/**
 * The SQL shape of the thread index (`<home>/state.sqlite`): the `threads` table, its keyset
 * indexes, the FTS5 trigram table kept in step by triggers, and the `meta` table holding the
 * schema version. This module owns DDL and connection settings only; queries live in
 * `thread-index-query.ts` and lifecycle in `thread-index.ts`.
 */
import { z } from 'zod';
import type { SqlDatabase } from './sqlite-driver.js';

/** Bump when the DDL changes; an index with another version is deleted and rebuilt from the rollouts. */
export const THREAD_INDEX_SCHEMA_VERSION = 2;

/**
 * Characters of a name the search table holds. Trigram-indexing a name of megabytes is seconds
 * of synchronous SQLite on every rename; a search term (at most 1024 characters) is matched
 * against a name's first 4096 characters (and previews are at most 200).
 */
export const SEARCHED_NAME_CHARS = 4096;

/** File name of the index inside the home directory. */
export const THREAD_INDEX_FILE = 'state.sqlite';

/** One thread as the index knows it. */
export const ThreadRowSchema = z.object({
  /** Thread id (UUIDv7). */
  id: z.string(),
  /** Creation time, Unix ms. */
  createdAtMs: z.number().int(),
  /** Last activity, Unix ms. */
  updatedAtMs: z.number().int(),
  cwd: z.string(),
  modelProvider: z.string(),
  model: z.string(),
  /** Which front door created the thread. */
  source: z.string(),
  /** First user message, at most 200 characters; `''` before there is one. */
  preview: z.string(),
  /** Name set by the user, or null. */
  name: z.string().nullable(),
  archived: z.boolean(),
  /** Absolute path of the rollout file (under `archived_sessions/` when archived). */
  path: z.string(),
  forkedFromId: z.string().nullable(),
});
export type ThreadRow = z.infer<typeof ThreadRowSchema>;

const TABLES_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threads (
  id TEXT PRIMARY KEY NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  cwd TEXT NOT NULL,
  model_provider TEXT NOT NULL,
  model TEXT NOT NULL,
  source TEXT NOT NULL,
  preview TEXT NOT NULL DEFAULT '',
  name TEXT,
  archived INTEGER NOT NULL DEFAULT 0,
  path TEXT NOT NULL,
  forked_from_id TEXT
);
-- Keyset pagination: archived is always an equality filter in list(), so it leads.
CREATE INDEX IF NOT EXISTS threads_by_updated ON threads(archived, updated_at_ms DESC, id DESC);
CREATE INDEX IF NOT EXISTS threads_by_created ON threads(archived, created_at_ms DESC, id DESC);
CREATE INDEX IF NOT EXISTS threads_by_cwd ON threads(cwd, archived, updated_at_ms DESC, id DESC);
`;

// A plain (self-contained) FTS5 table keyed by the threads rowid: updating it never needs the
// old column values, unlike an external-content table.
const FTS_TABLE_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS threads_fts USING fts5(preview, name, tokenize = 'trigram case_sensitive 0');
`;

const FTS_TRIGGERS_SQL = `
CREATE TRIGGER IF NOT EXISTS threads_fts_insert AFTER INSERT ON threads BEGIN
  INSERT INTO threads_fts(rowid, preview, name) VALUES (new.rowid, new.preview, substr(coalesce(new.name, ''), 1, ${SEARCHED_NAME_CHARS}));
END;
CREATE TRIGGER IF NOT EXISTS threads_fts_update AFTER UPDATE OF preview, name ON threads
WHEN old.preview IS NOT new.preview OR old.name IS NOT new.name BEGIN
  DELETE FROM threads_fts WHERE rowid = old.rowid;
  INSERT INTO threads_fts(rowid, preview, name) VALUES (new.rowid, new.preview, substr(coalesce(new.name, ''), 1, ${SEARCHED_NAME_CHARS}));
END;
CREATE TRIGGER IF NOT EXISTS threads_fts_delete AFTER DELETE ON threads BEGIN
  DELETE FROM threads_fts WHERE rowid = old.rowid;
END;
`;

/** Connection settings: WAL so readers never block the writer, NORMAL sync (safe with WAL). */
export function configureConnection(db: SqlDatabase): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('temp_store = MEMORY');
}

/** The stored schema version, or null when the database has no meta table or no version row. */
export function readSchemaVersion(db: SqlDatabase): number | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!table) return null;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  const version = row ? Number(row.value) : Number.NaN;
  return Number.isInteger(version) ? version : null;
}

/** Creates every table, index and trigger (idempotent) and records the schema version. */
export function createSchema(db: SqlDatabase): void {
  db.exec(TABLES_SQL + FTS_TABLE_SQL + FTS_TRIGGERS_SQL);
  db.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
    .run(String(THREAD_INDEX_SCHEMA_VERSION));
}

/** Drops the search table and its triggers (before a bulk reload). Call inside a transaction. */
export function dropSearch(db: SqlDatabase): void {
  db.exec(`
DROP TRIGGER IF EXISTS threads_fts_insert;
DROP TRIGGER IF EXISTS threads_fts_update;
DROP TRIGGER IF EXISTS threads_fts_delete;
DROP TABLE IF EXISTS threads_fts;
`);
}

/** Recreates the search table from the threads table in one statement, then its triggers. */
export function restoreSearch(db: SqlDatabase): void {
  db.exec(`${FTS_TABLE_SQL}
INSERT INTO threads_fts(rowid, preview, name) SELECT rowid, preview, substr(coalesce(name, ''), 1, ${SEARCHED_NAME_CHARS}) FROM threads;
${FTS_TRIGGERS_SQL}`);
}
