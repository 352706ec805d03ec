/**
 * ThreadStateStore: per-thread state that the user creates and that no rollout records, kept in
 * `<home>/thread-state.sqlite` (WAL): a thread's goal, its queue of pending submissions, its read
 * state, the user's thread sections with the threads in them, in order, and (through
 * `projects`, `project-store.ts`) the user's projects and the threads they own, and (through
 * `attachments`, `attachment-store.ts`) the clients' opaque per-thread attachments; and (through
 * `importHistories`, `import-history-store.ts`) the clients' records of imports from other agents.
 * Unlike the thread index (`state.sqlite`), this database is not derived from the rollouts and is
 * never rebuilt from them; a corrupt file is set aside (renamed with a `.corrupt-<ms>` suffix)
 * and a fresh one started. Values are plain data (the queue's input is stored as JSON the caller
 * validated); the store knows no wire.
 */
import fs from 'node:fs';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { ATTACHMENT_SCHEMA_SQL, AttachmentStore } from './attachment-store.js';
import { IMPORT_HISTORY_SCHEMA_SQL, ImportHistoryStore } from './import-history-store.js';
import { PROJECT_SCHEMA_SQL, ProjectStore } from './project-store.js';
import { isCorruptionError, openSqlite, type SqlDatabase, type SqlStatement } from './sqlite-driver.js';

/** File name of the store inside the home directory. */
export const THREAD_STATE_FILE = 'thread-state.sqlite';

/** A thread's goal. Times are Unix seconds. */
export interface StoredGoal {
  threadId: string;
  objective: string;
  status: string;
  tokenBudget: number | null;
  tokensUsed: number;
  timeUsedSeconds: number;
  createdAt: number;
  updatedAt: number;
}

/** A thread's read state: `firstUnread` (a JSON value the caller validated; null when read) and its revision. */
export interface StoredReadState {
  firstUnread: unknown;
  revision: number;
}

/** A thread section. `appearance` is a JSON value the caller validated. */
export interface StoredSection {
  id: string;
  name: string;
  appearance: unknown;
}

/** A thread's place in a section. `enteredAt` is Unix seconds. */
export interface StoredMembership {
  threadId: string;
  sectionId: string;
  enteredAt: number;
}

/** One queued submission. `input` and `metadata` are JSON values the caller validated. */
export interface StoredSubmission {
  id: string;
  threadId: string;
  clientUserMessageId: string;
  input: unknown;
  metadata: Record<string, string> | null;
}

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS goals (
  thread_id TEXT PRIMARY KEY NOT NULL,
  objective TEXT NOT NULL,
  status TEXT NOT NULL,
  token_budget INTEGER,
  tokens_used INTEGER NOT NULL DEFAULT 0,
  time_used_seconds INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS queue (
  id TEXT PRIMARY KEY NOT NULL,
  thread_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  client_user_message_id TEXT NOT NULL,
  input_json TEXT NOT NULL,
  metadata_json TEXT
);
CREATE INDEX IF NOT EXISTS queue_by_thread ON queue(thread_id, position);
CREATE TABLE IF NOT EXISTS read_states (
  thread_id TEXT PRIMARY KEY NOT NULL,
  first_unread_json TEXT,
  revision INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sections (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  appearance_json TEXT,
  position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS section_members (
  thread_id TEXT PRIMARY KEY NOT NULL,
  section_id TEXT NOT NULL,
  position REAL NOT NULL,
  entered_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS section_members_by_section ON section_members(section_id, position);
`;

interface GoalRow {
  thread_id: string;
  objective: string;
  status: string;
  token_budget: number | null;
  tokens_used: number;
  time_used_seconds: number;
  created_at: number;
  updated_at: number;
}

interface QueueRow {
  id: string;
  thread_id: string;
  client_user_message_id: string;
  input_json: string;
  metadata_json: string | null;
}

function goalOf(row: GoalRow): StoredGoal {
  return {
    threadId: row.thread_id,
    objective: row.objective,
    status: row.status,
    tokenBudget: row.token_budget,
    tokensUsed: row.tokens_used,
    timeUsedSeconds: row.time_used_seconds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function submissionOf(row: QueueRow): StoredSubmission {
  return {
    id: row.id,
    threadId: row.thread_id,
    clientUserMessageId: row.client_user_message_id,
    input: JSON.parse(row.input_json) as unknown,
    metadata: row.metadata_json === null ? null : (JSON.parse(row.metadata_json) as Record<string, string>),
  };
}

function openConfigured(file: string): SqlDatabase {
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA_SQL);
  db.exec(PROJECT_SCHEMA_SQL);
  db.exec(ATTACHMENT_SCHEMA_SQL);
  db.exec(IMPORT_HISTORY_SCHEMA_SQL);
  return db;
}

/** See the module comment. */
export class ThreadStateStore {
  readonly #statements = new Map<string, SqlStatement>();
  readonly #db: SqlDatabase;
  /** The user's projects and the threads they own, in the same database. */
  readonly projects: ProjectStore;
  /** The clients' per-thread attachments, in the same database. */
  readonly attachments: AttachmentStore;
  /** The clients' records of imports from other agents, in the same database. */
  readonly importHistories: ImportHistoryStore;

  private constructor(db: SqlDatabase) {
    this.#db = db;
    this.projects = new ProjectStore(db);
    this.attachments = new AttachmentStore(db);
    this.importHistories = new ImportHistoryStore(db);
  }

  /** Opens (creating if needed) `<home>/thread-state.sqlite`; a corrupt file is set aside. */
  static open(home: string): ThreadStateStore {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const file = path.join(path.resolve(home), THREAD_STATE_FILE);
    try {
      return new ThreadStateStore(openConfigured(file));
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      const aside = `${file}.corrupt-${Date.now()}`;
      fs.renameSync(file, aside);
      for (const suffix of ['-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      return new ThreadStateStore(openConfigured(file));
    }
  }

  #stmt(sql: string): SqlStatement {
    let stmt = this.#statements.get(sql);
    if (!stmt) this.#statements.set(sql, (stmt = this.#db.prepare(sql)));
    return stmt;
  }

  /** The goal of a thread, or null. */
  goal(threadId: string): StoredGoal | null {
    const row = this.#stmt('SELECT * FROM goals WHERE thread_id = ?').get(threadId) as GoalRow | undefined;
    return row ? goalOf(row) : null;
  }

  /** Writes a goal (insert or replace). */
  putGoal(goal: StoredGoal): void {
    this.#stmt(
      `INSERT INTO goals(thread_id, objective, status, token_budget, tokens_used, time_used_seconds, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(thread_id) DO UPDATE SET objective = excluded.objective, status = excluded.status,
         token_budget = excluded.token_budget, tokens_used = excluded.tokens_used,
         time_used_seconds = excluded.time_used_seconds, created_at = excluded.created_at, updated_at = excluded.updated_at`,
    ).run(goal.threadId, goal.objective, goal.status, goal.tokenBudget, goal.tokensUsed, goal.timeUsedSeconds, goal.createdAt, goal.updatedAt);
  }

  /** Removes a thread's goal; false when it had none. */
  clearGoal(threadId: string): boolean {
    return this.#stmt('DELETE FROM goals WHERE thread_id = ?').run(threadId).changes > 0;
  }

  /** A thread's queue, in order. */
  queue(threadId: string): StoredSubmission[] {
    const rows = this.#stmt('SELECT * FROM queue WHERE thread_id = ? ORDER BY position, id').all(threadId) as QueueRow[];
    return rows.map(submissionOf);
  }

  /** Appends a submission to the end of its thread's queue. */
  enqueue(submission: StoredSubmission): void {
    const last = this.#stmt('SELECT max(position) AS p FROM queue WHERE thread_id = ?').get(submission.threadId) as { p: number | null };
    this.#stmt('INSERT INTO queue(id, thread_id, position, client_user_message_id, input_json, metadata_json) VALUES (?, ?, ?, ?, ?, ?)').run(
      submission.id,
      submission.threadId,
      (last.p ?? 0) + 1,
      submission.clientUserMessageId,
      JSON.stringify(submission.input),
      submission.metadata === null ? null : JSON.stringify(submission.metadata),
    );
  }

  /** Replaces a queued submission's input and metadata; false when it is not queued. */
  updateSubmission(threadId: string, id: string, input: unknown, metadata: Record<string, string> | null): boolean {
    return (
      this.#stmt('UPDATE queue SET input_json = ?, metadata_json = ? WHERE thread_id = ? AND id = ?')
        .run(JSON.stringify(input), metadata === null ? null : JSON.stringify(metadata), threadId, id).changes > 0
    );
  }

  /** Removes a queued submission; false when it is not queued. */
  dequeue(threadId: string, id: string): boolean {
    return this.#stmt('DELETE FROM queue WHERE thread_id = ? AND id = ?').run(threadId, id).changes > 0;
  }

  /** Puts a thread's queue in the order of `ids` (which must name every queued id once). */
  reorder(threadId: string, ids: readonly string[]): void {
    const set = this.#stmt('UPDATE queue SET position = ? WHERE thread_id = ? AND id = ?');
    this.#db.transaction(() => ids.forEach((id, i) => set.run(i + 1, threadId, id)))();
  }

  /** A thread's read state, or null when it has none yet (read, revision 0). */
  readState(threadId: string): StoredReadState | null {
    const row = this.#stmt('SELECT first_unread_json, revision FROM read_states WHERE thread_id = ?').get(threadId) as
      | { first_unread_json: string | null; revision: number }
      | undefined;
    return row ? readStateOfRow(row) : null;
  }

  /**
   * The read states of `threadIds` that have one, by thread id: one query for a whole
   * `thread/list` page instead of one per thread.
   */
  readStatesOf(threadIds: readonly string[]): Map<string, StoredReadState> {
    const rows = this.#stmt('SELECT thread_id, first_unread_json, revision FROM read_states WHERE thread_id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(threadIds),
    ) as Array<{ thread_id: string; first_unread_json: string | null; revision: number }>;
    return new Map(rows.map((r) => [r.thread_id, readStateOfRow(r)]));
  }

  /** Writes a thread's read state. */
  putReadState(threadId: string, state: StoredReadState): void {
    this.#stmt(
      `INSERT INTO read_states(thread_id, first_unread_json, revision) VALUES (?, ?, ?)
       ON CONFLICT(thread_id) DO UPDATE SET first_unread_json = excluded.first_unread_json, revision = excluded.revision`,
    ).run(threadId, state.firstUnread === null ? null : JSON.stringify(state.firstUnread), state.revision);
  }

  /** Every section, in order. */
  sections(): StoredSection[] {
    const rows = this.#stmt('SELECT id, name, appearance_json FROM sections ORDER BY position, id').all() as Array<{
      id: string;
      name: string;
      appearance_json: string | null;
    }>;
    return rows.map((r) => ({ id: r.id, name: r.name, appearance: r.appearance_json === null ? null : (JSON.parse(r.appearance_json) as unknown) }));
  }

  /** One section, or null. */
  section(id: string): StoredSection | null {
    return this.sections().find((s) => s.id === id) ?? null;
  }

  /** Creates a section at the end; returns it with its new UUIDv7 id. */
  createSection(name: string, appearance: unknown): StoredSection {
    const id = uuidv7();
    const last = this.#stmt('SELECT max(position) AS p FROM sections').get() as { p: number | null };
    this.#stmt('INSERT INTO sections(id, name, appearance_json, position) VALUES (?, ?, ?, ?)').run(
      id,
      name,
      appearance === null ? null : JSON.stringify(appearance),
      (last.p ?? 0) + 1,
    );
    return { id, name, appearance };
  }

  /** Renames a section and sets its appearance; false when there is no such section. */
  updateSection(section: StoredSection): boolean {
    const appearance = section.appearance === null ? null : JSON.stringify(section.appearance);
    return this.#stmt('UPDATE sections SET name = ?, appearance_json = ? WHERE id = ?').run(section.name, appearance, section.id).changes > 0;
  }

  /** Deletes a section; its threads leave it. Returns the ids of those threads (null when there was no such section). */
  deleteSection(id: string): string[] | null {
    return this.#db.transaction(() => {
      const members = this.members(id).map((m) => m.threadId);
      if (this.#stmt('DELETE FROM sections WHERE id = ?').run(id).changes === 0) return null;
      this.#stmt('DELETE FROM section_members WHERE section_id = ?').run(id);
      return members;
    })();
  }

  /** The threads of a section, in order. */
  members(sectionId: string): StoredMembership[] {
    const rows = this.#stmt('SELECT thread_id, section_id, entered_at FROM section_members WHERE section_id = ? ORDER BY position, thread_id').all(
      sectionId,
    ) as MembershipRow[];
    return rows.map(membershipOfRow);
  }

  /** The section a thread is in, or null. */
  membership(threadId: string): StoredMembership | null {
    const row = this.#stmt('SELECT thread_id, section_id, entered_at FROM section_members WHERE thread_id = ?').get(threadId) as MembershipRow | undefined;
    return row ? membershipOfRow(row) : null;
  }

  /** The section memberships of `threadIds` that are in one, by thread id (one query for a list page). */
  membershipsOf(threadIds: readonly string[]): Map<string, StoredMembership> {
    const rows = this.#stmt('SELECT thread_id, section_id, entered_at FROM section_members WHERE thread_id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(threadIds),
    ) as MembershipRow[];
    return new Map(rows.map((r) => [r.thread_id, membershipOfRow(r)]));
  }

  /**
   * Puts a thread into a section, before `beforeThreadId` (a member of it) or at its end; null
   * takes it out of its section. `enteredAt` changes only when the section does.
   */
  moveToSection(threadId: string, sectionId: string | null, beforeThreadId: string | null, nowSeconds: number): void {
    this.#db.transaction(() => {
      const current = this.membership(threadId);
      this.#stmt('DELETE FROM section_members WHERE thread_id = ?').run(threadId);
      if (sectionId === null) return;
      const positions = this.#stmt('SELECT thread_id, position FROM section_members WHERE section_id = ? ORDER BY position, thread_id').all(
        sectionId,
      ) as Array<{ thread_id: string; position: number }>;
      const at = beforeThreadId === null ? -1 : positions.findIndex((p) => p.thread_id === beforeThreadId);
      let position: number;
      if (at < 0) position = (positions.at(-1)?.position ?? 0) + 1;
      else position = ((positions[at - 1]?.position ?? (positions[at] as { position: number }).position - 2) + (positions[at] as { position: number }).position) / 2;
      const enteredAt = current?.sectionId === sectionId ? current.enteredAt : nowSeconds;
      this.#stmt('INSERT INTO section_members(thread_id, section_id, position, entered_at) VALUES (?, ?, ?, ?)').run(threadId, sectionId, position, enteredAt);
    })();
  }

  /** Every thread in some section (for the "no section" filter). */
  sectionedThreadIds(): Set<string> {
    const rows = this.#stmt('SELECT thread_id FROM section_members').all() as Array<{ thread_id: string }>;
    return new Set(rows.map((r) => r.thread_id));
  }

  /** Forgets everything about a thread (it was deleted). */
  forget(threadId: string): void {
    this.#db.transaction(() => {
      this.#stmt('DELETE FROM goals WHERE thread_id = ?').run(threadId);
      this.#stmt('DELETE FROM queue WHERE thread_id = ?').run(threadId);
      this.#stmt('DELETE FROM read_states WHERE thread_id = ?').run(threadId);
      this.#stmt('DELETE FROM section_members WHERE thread_id = ?').run(threadId);
      this.projects.assign(threadId, null);
      this.attachments.forget(threadId);
    })();
  }

  /** Closes the database. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

/** A `section_members` row as read. */
interface MembershipRow {
  thread_id: string;
  section_id: string;
  entered_at: number;
}

function membershipOfRow(row: MembershipRow): StoredMembership {
  return { threadId: row.thread_id, sectionId: row.section_id, enteredAt: row.entered_at };
}

function readStateOfRow(row: { first_unread_json: string | null; revision: number }): StoredReadState {
  return { firstUnread: row.first_unread_json === null ? null : (JSON.parse(row.first_unread_json) as unknown), revision: row.revision };
}
