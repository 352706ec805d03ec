/**
 * A typed doorway to better-sqlite3. The package ships no TypeScript types and `@types/better-sqlite3`
 * is not a dependency, so this module loads it with `createRequire` and describes the small part
 * of its API the index uses. Nothing else in the engine should import better-sqlite3 directly.
 */
import { createRequire } from 'node:module';

/** Values SQLite binds and returns (integers that fit a double come back as numbers). */
export type SqlValue = string | number | bigint | Buffer | null;

/** A prepared statement. */
export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

/** An open database connection. */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` so that each call runs in one transaction (nested calls use savepoints). */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
  readonly open: boolean;
}

/** The error class better-sqlite3 throws; `code` is the SQLite result code name (`SQLITE_CORRUPT`, …). */
export interface SqliteErrorLike extends Error {
  code: string;
}

type DatabaseConstructor = new (filename: string, options?: { timeout?: number; fileMustExist?: boolean }) => SqlDatabase;

const require = createRequire(import.meta.url);
let ctor: DatabaseConstructor | null = null;

/** Opens (creating if needed) a database file. `timeoutMs` is the busy timeout for locked files. */
export function openSqlite(filename: string, timeoutMs = 5000): SqlDatabase {
  ctor ??= require('better-sqlite3') as DatabaseConstructor;
  return new ctor(filename, { timeout: timeoutMs });
}

/** True for errors that mean the file is not a usable database (corrupt, not a DB, unreadable schema). */
export function isCorruptionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Partial<SqliteErrorLike>).code ?? '';
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT_');
}

/** A preparer that prepares each SQL text once on `db` and reuses the statement afterwards. */
export function statementCache(db: SqlDatabase): (sql: string) => SqlStatement {
  const statements = new Map<string, SqlStatement>();
  return (sql) => {
    let stmt = statements.get(sql);
    if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
}
