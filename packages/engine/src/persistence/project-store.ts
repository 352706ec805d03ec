/**
 * ProjectStore: the user's projects (named groups of workspace roots, in the user's order) and
 * which project each thread belongs to, kept in the thread-state database
 * (`<home>/thread-state.sqlite`, see `thread-state-store.ts`, which owns the connection). A thread
 * belongs to at most one project. The store checks nothing about threads (the caller decides
 * which ids are threads) and knows no wire; times are Unix seconds.
 */
import { v7 as uuidv7 } from 'uuid';
import type { SqlDatabase, SqlStatement } from './sqlite-driver.js';

/** A project. `roots` are absolute paths; `metadata` is the client's string map. */
export interface StoredProject {
  id: string;
  name: string;
  roots: string[];
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

/** What creating a project needs. */
export interface NewProject {
  name: string;
  roots: string[];
  metadata: Record<string, string>;
  /** The client's key: creating twice with one key gives one project. */
  idempotencyKey: string;
  nowSeconds: number;
}

/** The tables, created by the thread-state store with its own. */
export const PROJECT_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  roots_json TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  position INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS project_threads (
  thread_id TEXT PRIMARY KEY NOT NULL,
  project_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS project_threads_by_project ON project_threads(project_id);
`;

interface ProjectRow {
  id: string;
  name: string;
  roots_json: string;
  metadata_json: string;
  created_at: number;
  updated_at: number;
}

function projectOf(row: ProjectRow): StoredProject {
  return {
    id: row.id,
    name: row.name,
    roots: JSON.parse(row.roots_json) as string[],
    metadata: JSON.parse(row.metadata_json) as Record<string, string>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** See the module comment. */
export class ProjectStore {
  readonly #statements = new Map<string, SqlStatement>();
  readonly #db: SqlDatabase;

  /** Uses `db`, whose schema already holds `PROJECT_SCHEMA_SQL`. */
  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  #stmt(sql: string): SqlStatement {
    let stmt = this.#statements.get(sql);
    if (!stmt) this.#statements.set(sql, (stmt = this.#db.prepare(sql)));
    return stmt;
  }

  /** Every project, in the user's order. */
  list(): StoredProject[] {
    return (this.#stmt('SELECT * FROM projects ORDER BY position, id').all() as ProjectRow[]).map(projectOf);
  }

  /** One project, or null. */
  get(id: string): StoredProject | null {
    const row = this.#stmt('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined;
    return row ? projectOf(row) : null;
  }

  /**
   * Creates a project at the end of the order and puts `threadIds` into it, in one transaction.
   * When a project was already created with the same idempotency key, nothing changes and that
   * project is returned with `created: false`.
   */
  create(project: NewProject, threadIds: readonly string[] = []): { project: StoredProject; created: boolean } {
    return this.#db.transaction(() => {
      const existing = this.#stmt('SELECT * FROM projects WHERE idempotency_key = ?').get(project.idempotencyKey) as ProjectRow | undefined;
      if (existing) return { project: projectOf(existing), created: false };
      const id = uuidv7();
      const last = this.#stmt('SELECT max(position) AS p FROM projects').get() as { p: number | null };
      this.#stmt(
        'INSERT INTO projects(id, name, roots_json, metadata_json, position, idempotency_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(id, project.name, JSON.stringify(project.roots), JSON.stringify(project.metadata), (last.p ?? 0) + 1, project.idempotencyKey, project.nowSeconds, project.nowSeconds);
      for (const threadId of threadIds) this.assign(threadId, id);
      const stored: StoredProject = { id, name: project.name, roots: project.roots, metadata: project.metadata, createdAt: project.nowSeconds, updatedAt: project.nowSeconds };
      return { project: stored, created: true };
    })();
  }

  /** Writes a project's name, roots, metadata and `updatedAt`; false when there is no such project. */
  update(project: StoredProject): boolean {
    return (
      this.#stmt('UPDATE projects SET name = ?, roots_json = ?, metadata_json = ?, updated_at = ? WHERE id = ?').run(
        project.name,
        JSON.stringify(project.roots),
        JSON.stringify(project.metadata),
        project.updatedAt,
        project.id,
      ).changes > 0
    );
  }

  /**
   * Puts a project before `beforeId` (another project) or, when null or unknown, at the end of the
   * order. Every position is written again (1, 2, …): users keep few projects, and whole numbers
   * never run out of room between two neighbours.
   */
  move(id: string, beforeId: string | null): void {
    this.#db.transaction(() => {
      const order = (this.#stmt('SELECT id FROM projects ORDER BY position, id').all() as Array<{ id: string }>).map((p) => p.id).filter((p) => p !== id);
      const at = beforeId === null ? -1 : order.indexOf(beforeId);
      order.splice(at < 0 ? order.length : at, 0, id);
      const set = this.#stmt('UPDATE projects SET position = ? WHERE id = ?');
      order.forEach((projectId, i) => set.run(i + 1, projectId));
    })();
  }

  /** Deletes a project; its threads belong to none. Returns their ids (null when there was no such project). */
  delete(id: string): string[] | null {
    return this.#db.transaction(() => {
      const members = this.members(id);
      if (this.#stmt('DELETE FROM projects WHERE id = ?').run(id).changes === 0) return null;
      this.#stmt('DELETE FROM project_threads WHERE project_id = ?').run(id);
      return members;
    })();
  }

  /** The ids of a project's threads. */
  members(projectId: string): string[] {
    return (this.#stmt('SELECT thread_id FROM project_threads WHERE project_id = ? ORDER BY thread_id').all(projectId) as Array<{ thread_id: string }>).map(
      (r) => r.thread_id,
    );
  }

  /** The project a thread belongs to, or null. */
  projectOf(threadId: string): string | null {
    const row = this.#stmt('SELECT project_id FROM project_threads WHERE thread_id = ?').get(threadId) as { project_id: string } | undefined;
    return row?.project_id ?? null;
  }

  /** The projects of `threadIds` that belong to one, by thread id (one query for a list page). */
  projectsOf(threadIds: readonly string[]): Map<string, string> {
    const rows = this.#stmt('SELECT thread_id, project_id FROM project_threads WHERE thread_id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(threadIds),
    ) as Array<{ thread_id: string; project_id: string }>;
    return new Map(rows.map((r) => [r.thread_id, r.project_id]));
  }

  /** Puts a thread into a project, or (null) into none. */
  assign(threadId: string, projectId: string | null): void {
    if (projectId === null) this.#stmt('DELETE FROM project_threads WHERE thread_id = ?').run(threadId);
    else {
      this.#stmt('INSERT INTO project_threads(thread_id, project_id) VALUES (?, ?) ON CONFLICT(thread_id) DO UPDATE SET project_id = excluded.project_id').run(
        threadId,
        projectId,
      );
    }
  }

  /** Every thread that belongs to some project (for the "no project" filter). */
  assignedThreadIds(): Set<string> {
    return new Set((this.#stmt('SELECT thread_id FROM project_threads').all() as Array<{ thread_id: string }>).map((r) => r.thread_id));
  }
}
