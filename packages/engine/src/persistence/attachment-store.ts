/**
 * AttachmentStore: the opaque per-thread attachments clients keep on threads (Codex 0.171
 * `thread/attachment/*`), kept in the thread-state database (`<home>/thread-state.sqlite`, see
 * `thread-state-store.ts`, which owns the connection). An attachment is identified on its thread
 * by (`attachmentType`, `identityKey`) and carries a JSON payload the caller validated; the store
 * checks nothing about threads and knows no wire. Times are Unix seconds.
 */
import { v7 as uuidv7 } from 'uuid';
import { statementCache, type SqlDatabase, type SqlStatement } from './sqlite-driver.js';

/** One attachment of a thread. */
export interface StoredAttachment {
  id: string;
  threadId: string;
  attachmentType: string;
  identityKey: string;
  payload: unknown;
  createdAt: number;
}

/** The table, created by the thread-state store with its own. */
export const ATTACHMENT_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS attachments (
  id TEXT PRIMARY KEY NOT NULL,
  thread_id TEXT NOT NULL,
  attachment_type TEXT NOT NULL,
  identity_key TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE(thread_id, attachment_type, identity_key)
);
CREATE INDEX IF NOT EXISTS attachments_by_identity ON attachments(attachment_type, identity_key);
`;

interface AttachmentRow {
  id: string;
  thread_id: string;
  attachment_type: string;
  identity_key: string;
  payload_json: string;
  created_at: number;
}

function attachmentOf(row: AttachmentRow): StoredAttachment {
  return {
    id: row.id,
    threadId: row.thread_id,
    attachmentType: row.attachment_type,
    identityKey: row.identity_key,
    payload: JSON.parse(row.payload_json) as unknown,
    createdAt: row.created_at,
  };
}

/** See the module comment. */
export class AttachmentStore {
  readonly #db: SqlDatabase;
  readonly #stmt: (sql: string) => SqlStatement;

  /** Uses `db`, whose schema already holds `ATTACHMENT_SCHEMA_SQL`. */
  constructor(db: SqlDatabase) {
    this.#db = db;
    this.#stmt = statementCache(db);
  }

  /** A thread's attachments, oldest first. */
  list(threadId: string): StoredAttachment[] {
    return (this.#stmt('SELECT * FROM attachments WHERE thread_id = ? ORDER BY created_at, id').all(threadId) as AttachmentRow[]).map(attachmentOf);
  }

  /** One attachment of a thread by its identity, or null. */
  get(threadId: string, attachmentType: string, identityKey: string): StoredAttachment | null {
    const row = this.#stmt('SELECT * FROM attachments WHERE thread_id = ? AND attachment_type = ? AND identity_key = ?').get(
      threadId,
      attachmentType,
      identityKey,
    ) as AttachmentRow | undefined;
    return row ? attachmentOf(row) : null;
  }

  /**
   * Adds an attachment with a new UUIDv7 id. When the thread already has one with the same
   * identity, nothing changes and that one is returned with `created: false`.
   */
  add(
    attachment: { threadId: string; attachmentType: string; identityKey: string; payload: unknown },
    nowSeconds: number,
  ): { attachment: StoredAttachment; created: boolean } {
    return this.#db.transaction(() => {
      const existing = this.get(attachment.threadId, attachment.attachmentType, attachment.identityKey);
      if (existing !== null) return { attachment: existing, created: false };
      const stored: StoredAttachment = { id: uuidv7(), ...attachment, createdAt: nowSeconds };
      this.#stmt('INSERT INTO attachments(id, thread_id, attachment_type, identity_key, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        stored.id,
        stored.threadId,
        stored.attachmentType,
        stored.identityKey,
        JSON.stringify(stored.payload ?? null),
        stored.createdAt,
      );
      return { attachment: stored, created: true };
    })();
  }

  /** Removes an attachment by its identity; returns it, or null when the thread has none such. */
  remove(threadId: string, attachmentType: string, identityKey: string): StoredAttachment | null {
    return this.#db.transaction(() => {
      const existing = this.get(threadId, attachmentType, identityKey);
      if (existing !== null) this.#stmt('DELETE FROM attachments WHERE id = ?').run(existing.id);
      return existing;
    })();
  }

  /** The ids of the threads that hold an attachment with this identity, in id order. */
  owners(attachmentType: string, identityKey: string): string[] {
    const rows = this.#stmt('SELECT thread_id FROM attachments WHERE attachment_type = ? AND identity_key = ? ORDER BY thread_id').all(
      attachmentType,
      identityKey,
    ) as Array<{ thread_id: string }>;
    return rows.map((r) => r.thread_id);
  }

  /** Forgets every attachment of a thread (it was deleted). */
  forget(threadId: string): void {
    this.#stmt('DELETE FROM attachments WHERE thread_id = ?').run(threadId);
  }
}
