/**
 * Long, read-only index work off the main thread: a `node:worker_threads` worker with its own
 * read-only better-sqlite3 connection to `<home>/state.sqlite` (the database is in WAL mode, so
 * it reads the last committed state while the main connection writes) runs text searches over
 * the index, and reads rollout files to tell whether they contain a search term. A search of the
 * index is synchronous SQLite that can take seconds on a large store (a trigram phrase of many
 * repeated characters is the worst case); on the main thread it would hold every connection.
 *
 * Jobs run one at a time in arrival order. One that runs longer than {@link INDEX_JOB_TIMEOUT_MS}
 * is stopped by terminating the worker (SQLite cannot be interrupted otherwise) and fails with
 * {@link IndexJobTimeoutError}; the jobs behind it go to a fresh worker. The worker starts on the
 * first job, does not keep the process alive, and exits after {@link READER_IDLE_MS} without
 * work, so its heap is given back. The worker's code is a self-contained script (no imports of
 * this package), so it runs the same from `dist/` and from a bundle.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { EngineError } from '../errors.js';
import type { SqlValue } from './sqlite-driver.js';

/** Longest one job may run on the worker before it is stopped. */
export const INDEX_JOB_TIMEOUT_MS = 10_000;
/** The worker exits after this long without a job. */
export const READER_IDLE_MS = 2_000;

/** A job ran past {@link INDEX_JOB_TIMEOUT_MS} and was stopped. */
export class IndexJobTimeoutError extends EngineError {
  constructor(timeoutMs: number) {
    super('index_timeout', `the thread index search took longer than ${timeoutMs} ms and was stopped; use a shorter or more specific search term`);
  }
}

/** The worker could not start or died; the caller may run the job on its own thread. */
export class IndexReaderUnavailableError extends EngineError {
  constructor(detail: string) {
    super('index_reader_unavailable', `the thread index reader is unavailable: ${detail}`);
  }
}

/** An error the worker reported (SQLite's, with its code). */
export class IndexQueryError extends EngineError {
  constructor(
    message: string,
    /** SQLite's result code name, when it had one. */
    readonly sqliteCode: string | null,
  ) {
    super('index_query_failed', message);
  }
}

/** The worker: answers `{ id, op, ... }` with `{ id, ok, value }` or `{ id, ok: false, message, code }`. */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.driver);
let db = null;
const statements = new Map();
function statement(sql) {
  if (db === null) db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: workerData.busyTimeoutMs });
  let stmt = statements.get(sql);
  if (stmt === undefined) {
    if (statements.size >= 64) statements.clear();
    stmt = db.prepare(sql);
    statements.set(sql, stmt);
  }
  return stmt;
}
function fileContains(path, lowerTerm) {
  let text;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  return text.toLowerCase().includes(lowerTerm);
}
parentPort.on('message', (job) => {
  try {
    const value = job.op === 'all' ? statement(job.sql).all(...job.params) : fileContains(job.path, job.lowerTerm);
    parentPort.postMessage({ id: job.id, ok: true, value });
  } catch (error) {
    parentPort.postMessage({ id: job.id, ok: false, message: String((error && error.message) || error), code: (error && typeof error.code === 'string') ? error.code : null });
  }
});
parentPort.postMessage({ ready: true });
`;

type Job = { op: 'all'; sql: string; params: SqlValue[] } | { op: 'fileContains'; path: string; lowerTerm: string };

interface Queued {
  id: number;
  job: Job;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** What the worker posts once it has loaded the driver (job time limits start after it). */
const WorkerReadySchema = z.object({ ready: z.literal(true) });

/** What the worker posts back for a job. */
const WorkerReplySchema = z.object({
  id: z.number(),
  ok: z.boolean(),
  value: z.unknown().optional(),
  message: z.string().optional(),
  code: z.string().nullable().optional(),
});

/** See the module comment. */
export class ThreadIndexReader {
  readonly #file: string;
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  #worker: Worker | null = null;
  /** The worker has loaded the driver and takes jobs. */
  #isReady = false;
  #running: (Queued & { timer: NodeJS.Timeout }) | null = null;
  readonly #queue: Queued[] = [];
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | null = null;
  #isClosed = false;

  constructor(file: string, options: { timeoutMs?: number; idleMs?: number } = {}) {
    this.#file = file;
    this.#timeoutMs = options.timeoutMs ?? INDEX_JOB_TIMEOUT_MS;
    this.#idleMs = options.idleMs ?? READER_IDLE_MS;
  }

  /** True while a worker thread exists (for tests and diagnostics). */
  get isRunning(): boolean {
    return this.#worker !== null;
  }

  /** The rows of a read-only query. */
  all(sql: string, params: SqlValue[]): Promise<unknown[]> {
    return this.#submit({ op: 'all', sql, params }) as Promise<unknown[]>;
  }

  /** True when the file's text contains `lowerTerm` once lowercased; false when it cannot be read. */
  fileContains(path: string, lowerTerm: string): Promise<boolean> {
    return this.#submit({ op: 'fileContains', path, lowerTerm }) as Promise<boolean>;
  }

  /** Stops the worker; queued and running jobs fail. */
  close(): void {
    this.#isClosed = true;
    this.#stop(new IndexReaderUnavailableError('the index is closed'));
  }

  #submit(job: Job): Promise<unknown> {
    if (this.#isClosed) return Promise.reject(new IndexReaderUnavailableError('the index is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, job, resolve, reject });
      this.#next();
    });
  }

  #spawn(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file: this.#file, busyTimeoutMs: 5_000 } });
    this.#isReady = false;
    worker.unref();
    worker.on('message', (reply: unknown) => this.#onReply(worker, reply));
    worker.on('error', (error) => this.#onDeath(worker, error.message));
    worker.on('exit', (code) => this.#onDeath(worker, `the worker exited with code ${code}`));
    return worker;
  }

  #next(): void {
    if (this.#running !== null || this.#queue.length === 0) return;
    if (this.#idleTimer !== null) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = null;
    }
    let worker: Worker;
    try {
      worker = this.#worker ??= this.#spawn();
    } catch (error) {
      this.#stop(new IndexReaderUnavailableError(error instanceof Error ? error.message : String(error)));
      return;
    }
    // A starting worker takes its first job once ready: its start-up does not count against the job.
    if (!this.#isReady) return;
    const queued = this.#queue.shift() as Queued;
    const timer = setTimeout(() => this.#onTimeout(), this.#timeoutMs);
    timer.unref();
    this.#running = { ...queued, timer };
    worker.postMessage({ id: queued.id, ...queued.job });
  }

  #onReply(worker: Worker, data: unknown): void {
    if (worker === this.#worker && WorkerReadySchema.safeParse(data).success) {
      this.#isReady = true;
      this.#next();
      return;
    }
    const running = this.#running;
    const parsed = WorkerReplySchema.safeParse(data);
    if (worker !== this.#worker || running === null || !parsed.success || parsed.data.id !== running.id) return;
    const reply = parsed.data;
    clearTimeout(running.timer);
    this.#running = null;
    if (reply.ok) running.resolve(reply.value);
    else running.reject(new IndexQueryError(reply.message ?? 'index query failed', reply.code ?? null));
    this.#next();
    if (this.#running === null && this.#queue.length === 0) this.#armIdle();
  }

  #armIdle(): void {
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#running === null && this.#queue.length === 0) this.#terminate();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }

  #onTimeout(): void {
    const running = this.#running;
    if (running === null) return;
    this.#running = null;
    this.#terminate();
    running.reject(new IndexJobTimeoutError(this.#timeoutMs));
    this.#next();
  }

  /** The worker died on its own: the running job fails as unavailable, the queue goes to a new one. */
  #onDeath(worker: Worker, detail: string): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    if (!this.#isReady) {
      // It never started (the driver did not load): the queued jobs fail rather than respawn forever.
      this.#stop(new IndexReaderUnavailableError(detail));
      return;
    }
    const running = this.#running;
    this.#running = null;
    if (running !== null) {
      clearTimeout(running.timer);
      running.reject(new IndexReaderUnavailableError(detail));
    }
    this.#next();
  }

  #terminate(): void {
    const worker = this.#worker;
    this.#worker = null;
    if (worker !== null) void worker.terminate().catch(() => undefined);
  }

  #stop(error: Error): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const running = this.#running;
    this.#running = null;
    this.#terminate();
    if (running !== null) {
      clearTimeout(running.timer);
      running.reject(error);
    }
    for (const queued of this.#queue.splice(0)) queued.reject(error);
  }
}
