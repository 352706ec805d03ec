/**
 * ImportHistoryStore: the records clients keep of imports from other agents' configuration
 * (Codex 0.171 `externalAgentConfig/import/recordHistory`), kept in the thread-state database
 * (`<home>/thread-state.sqlite`, see `thread-state-store.ts`, which owns the connection). The
 * successes and failures are JSON values the caller validated; the store knows no wire.
 */
import { randomUUID } from 'node:crypto';
import { statementCache, type SqlDatabase, type SqlStatement } from './sqlite-driver.js';

/** One recorded import. `completedAtMs` is Unix milliseconds. */
export interface StoredImportHistory {
  importId: string;
  providerId: string | null;
  completedAtMs: number;
  successes: unknown[];
  failures: unknown[];
}

/** The table, created by the thread-state store with its own. */
export const IMPORT_HISTORY_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS import_histories (
  import_id TEXT PRIMARY KEY NOT NULL,
  provider_id TEXT,
  completed_at_ms INTEGER NOT NULL,
  successes_json TEXT NOT NULL,
  failures_json TEXT NOT NULL,
  seq INTEGER NOT NULL
);
`;

interface HistoryRow {
  import_id: string;
  provider_id: string | null;
  completed_at_ms: number;
  successes_json: string;
  failures_json: string;
}

/** See the module comment. */
export class ImportHistoryStore {
  readonly #stmt: (sql: string) => SqlStatement;

  /** Uses `db`, whose schema already holds `IMPORT_HISTORY_SCHEMA_SQL`. */
  constructor(db: SqlDatabase) {
    this.#stmt = statementCache(db);
  }

  /** Stores a record under a new random id (UUIDv4) and returns it. */
  record(entry: Omit<StoredImportHistory, 'importId'>): StoredImportHistory {
    const stored: StoredImportHistory = { importId: randomUUID(), ...entry };
    const last = this.#stmt('SELECT max(seq) AS s FROM import_histories').get() as { s: number | null };
    this.#stmt('INSERT INTO import_histories(import_id, provider_id, completed_at_ms, successes_json, failures_json, seq) VALUES (?, ?, ?, ?, ?, ?)').run(
      stored.importId,
      stored.providerId,
      stored.completedAtMs,
      JSON.stringify(stored.successes),
      JSON.stringify(stored.failures),
      (last.s ?? 0) + 1,
    );
    return stored;
  }

  /** Every record, newest first. */
  list(): StoredImportHistory[] {
    const rows = this.#stmt('SELECT * FROM import_histories ORDER BY seq DESC').all() as HistoryRow[];
    return rows.map((row) => ({
      importId: row.import_id,
      providerId: row.provider_id,
      completedAtMs: row.completed_at_ms,
      successes: JSON.parse(row.successes_json) as unknown[],
      failures: JSON.parse(row.failures_json) as unknown[],
    }));
  }
}
