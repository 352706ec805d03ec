/**
 * Builds the thread index's list query: filters, search, keyset pagination on (sort column, id)
 * and the opaque cursor that carries the last row's position. Pure functions from options to SQL
 * text and parameters; it never touches a database.
 */
import { z } from 'zod';
import { EngineError } from '../errors.js';
import type { SqlValue } from './sqlite-driver.js';
import { SEARCHED_NAME_CHARS, type ThreadRow } from './thread-index-schema.js';

/** Which timestamp orders a listing. */
export type ThreadSortKey = 'created_at' | 'updated_at';
/** Newest first (`desc`, the default) or oldest first. */
export type ThreadSortDirection = 'asc' | 'desc';

/** Options of `ThreadIndex.list`. Omitted or empty filters match everything. */
export interface ThreadListOptions {
  /** Page size, at least 1 (default 25). */
  limit?: number;
  /** `nextCursor` of the previous page; null or omitted for the first page. */
  cursor?: string | null;
  sortKey?: ThreadSortKey;
  sortDirection?: ThreadSortDirection;
  /** false (default): live threads only. true: archived threads only. */
  archived?: boolean;
  /** Exact working directory, or any of several. */
  cwd?: string | string[];
  modelProviders?: string[];
  sources?: string[];
  /** Case-insensitive substring of the preview or of the name's first `SEARCHED_NAME_CHARS` characters. */
  search?: string;
}

/** One page of a listing. */
export interface ThreadListPage {
  rows: ThreadRow[];
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

/** The cursor is not one this index produced for the same sort order. */
export class InvalidCursorError extends EngineError {
  constructor(detail: string) {
    super('invalid_cursor', `invalid cursor: ${detail}`);
  }
}

/** Default page size. */
export const DEFAULT_LIST_LIMIT = 25;

const CursorSchema = z.tuple([z.enum(['created_at', 'updated_at']), z.enum(['asc', 'desc']), z.number().int(), z.string()]);

/** Encodes the position after `row` for the given order (base64url JSON; opaque to callers). */
export function encodeCursor(sortKey: ThreadSortKey, direction: ThreadSortDirection, row: ThreadRow): string {
  const value = sortKey === 'created_at' ? row.createdAtMs : row.updatedAtMs;
  return Buffer.from(JSON.stringify([sortKey, direction, value, row.id])).toString('base64url');
}

/** Decodes a cursor and checks it belongs to the same order. */
export function decodeCursor(cursor: string, sortKey: ThreadSortKey, direction: ThreadSortDirection): { value: number; id: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('not a cursor from thread list');
  }
  const parsed = CursorSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidCursorError('not a cursor from thread list');
  const [key, dir, value, id] = parsed.data;
  if (key !== sortKey || dir !== direction) throw new InvalidCursorError(`made for sort ${key} ${dir}, used with ${sortKey} ${direction}`);
  return { value, id };
}

/** The columns every row query selects, aliased to `ThreadRow` keys (archived still 0/1). */
export const ROW_COLUMNS =
  'id, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs, cwd, model_provider AS modelProvider, model, source, ' +
  'preview, name, archived, path, forked_from_id AS forkedFromId';

/** A row as SQLite returns it. */
export type RawThreadRow = Omit<ThreadRow, 'archived'> & { archived: number };

/** Converts a raw row (archived 0/1) into a `ThreadRow`. */
export function toThreadRow(raw: RawThreadRow): ThreadRow {
  return { ...raw, archived: raw.archived !== 0 };
}

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Minimum search length the trigram index can answer; shorter terms use LIKE. */
const TRIGRAM_MIN_CHARS = 3;

/** Adds the search condition: FTS5 trigram phrase (a substring match), or LIKE for short terms. */
function searchCondition(term: string, where: string[], params: SqlValue[]): void {
  if (Array.from(term).length >= TRIGRAM_MIN_CHARS) {
    where.push('rowid IN (SELECT rowid FROM threads_fts WHERE threads_fts MATCH ?)');
    params.push(`"${term.replace(/"/g, '""')}"`);
  } else {
    const pattern = `%${escapeLike(term)}%`;
    where.push(`(preview LIKE ? ESCAPE '\\' OR substr(coalesce(name, ''), 1, ${SEARCHED_NAME_CHARS}) LIKE ? ESCAPE '\\')`);
    params.push(pattern, pattern);
  }
}

function inList(column: string, values: string[] | undefined, where: string[], params: SqlValue[]): void {
  if (!values || values.length === 0) return;
  if (values.length === 1) {
    where.push(`${column} = ?`);
    params.push(values[0] as string);
  } else {
    where.push(`${column} IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(values));
  }
}

/** SQL text and parameters of one list query; it fetches `limit + 1` rows to tell if more exist. */
export interface ListQuery {
  sql: string;
  params: SqlValue[];
  limit: number;
  sortKey: ThreadSortKey;
  direction: ThreadSortDirection;
}

/** Builds the list query for `options`. Throws `InvalidCursorError` for a foreign cursor. */
export function buildListQuery(options: ThreadListOptions): ListQuery {
  const sortKey = options.sortKey ?? 'created_at';
  const direction = options.sortDirection ?? 'desc';
  const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_LIST_LIMIT));
  const column = sortKey === 'created_at' ? 'created_at_ms' : 'updated_at_ms';
  const where: string[] = ['archived = ?'];
  const params: SqlValue[] = [options.archived === true ? 1 : 0];
  const cwds = typeof options.cwd === 'string' ? [options.cwd] : options.cwd;
  inList('cwd', cwds, where, params);
  inList('model_provider', options.modelProviders, where, params);
  inList('source', options.sources, where, params);
  const term = options.search?.trim() ?? '';
  if (term.length > 0) searchCondition(term, where, params);
  if (options.cursor) {
    const { value, id } = decodeCursor(options.cursor, sortKey, direction);
    where.push(`(${column}, id) ${direction === 'desc' ? '<' : '>'} (?, ?)`);
    params.push(value, id);
  }
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  const sql = `SELECT ${ROW_COLUMNS} FROM threads WHERE ${where.join(' AND ')} ORDER BY ${column} ${dir}, id ${dir} LIMIT ?`;
  params.push(limit + 1);
  return { sql, params, limit, sortKey, direction };
}
