/**
 * One fuzzy-search session: walks its roots once, keeps every listed entry, and scores them
 * against the latest query, streaming the best matches to a sink. Each query (the initial empty
 * one included) gets at least one `updated` with its best matches so far (none for an empty
 * query) and, once the walk is over and every entry is scored, exactly one `completed`. While the
 * walk runs, later updates of the same query come only when the matches changed, at most one per
 * `UPDATE_INTERVAL_MS`. Scoring runs in chunks between which the event loop turns, and a newer
 * query abandons the older one's scoring. After `stop()` nothing more is sent. It knows nothing
 * of connections; the handler routes the sink to the session's own connection.
 */
import type { AppServer } from '@deputy/protocol';
import { MAX_WALK_ENTRIES, patternOf, Ranking } from './search.js';
import { resolveRoots, walkRoots, type SearchRoot, type WalkEntry } from './walk.js';

/** Least time between two updates of one query while the walk runs. */
export const UPDATE_INTERVAL_MS = 50;
/** Entries scored between two turns of the event loop. */
const SCORE_CHUNK = 2_000;

/** Where a session's notifications go. */
export interface SessionSink {
  /** Best matches so far for the session's query. */
  updated(params: AppServer.FuzzyFileSearchSessionUpdatedNotification): void;
  /** The last update of the query is final. */
  completed(params: AppServer.FuzzyFileSearchSessionCompletedNotification): void;
  /** The walk (which then counts as done) or the publishing failed unexpectedly. */
  failed(error: unknown): void;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** See the module comment. */
export class SearchSession {
  readonly #entries: WalkEntry[] = [];
  readonly #controller = new AbortController();
  #roots: SearchRoot[] = [];
  #isWalkDone = false;
  #isStopped = false;
  #query = '';
  #generation = 0;
  #ranking: Ranking | null = null;
  #scored = 0;
  #hasSentUpdate = false;
  #hasSentCompleted = false;
  #lastFiles = '';
  #lastUpdateAt = 0;
  #wake: (() => void) | null = null;

  constructor(
    readonly sessionId: string,
    private readonly sink: SessionSink,
  ) {}

  /** True once stopped. */
  get isStopped(): boolean {
    return this.#isStopped;
  }

  /** Resolves `roots` against `cwd`, then walks them while publishing. */
  start(roots: readonly string[], cwd: string): void {
    if (this.#isStopped) return;
    void this.#pump().catch((error: unknown) => this.sink.failed(error));
    void resolveRoots(roots, cwd)
      .then((resolved) => {
        this.#roots = resolved;
        return walkRoots(resolved, {
          onEntries: (entries) => {
            for (const entry of entries) this.#entries.push(entry);
            this.#signal();
          },
          signal: this.#controller.signal,
          limit: MAX_WALK_ENTRIES,
        });
      })
      .catch((error: unknown) => {
        if (!this.#isStopped) this.sink.failed(error);
      })
      .finally(() => {
        this.#isWalkDone = true;
        this.#signal();
      });
  }

  /** Replaces the query; its matches follow as updates. */
  update(query: string): void {
    if (this.#isStopped) return;
    this.#query = query;
    this.#generation += 1;
    const pattern = patternOf(query);
    this.#ranking = pattern === null ? null : new Ranking(pattern);
    this.#scored = 0;
    this.#hasSentUpdate = false;
    this.#hasSentCompleted = false;
    this.#lastFiles = '';
    this.#signal();
  }

  /** Ends the walk and the updates. Idempotent. */
  stop(): void {
    this.#isStopped = true;
    this.#controller.abort();
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /** Resolves on the next signal, or after `ms` when given. */
  #nextSignal(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.#signal(), ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #pump(): Promise<void> {
    while (!this.#isStopped) {
      if (!(await this.#catchUp())) continue;
      const waitMs = this.#publish();
      if (this.#isStopped) return;
      await this.#nextSignal(waitMs);
    }
  }

  /** Scores the entries not yet scored for the query; false when a newer query or stop cut it short. */
  async #catchUp(): Promise<boolean> {
    const generation = this.#generation;
    const ranking = this.#ranking;
    while (this.#scored < this.#entries.length) {
      const end = ranking === null ? this.#entries.length : Math.min(this.#entries.length, this.#scored + SCORE_CHUNK);
      for (let i = this.#scored; i < end; i++) ranking?.add(this.#entries[i] as WalkEntry);
      this.#scored = end;
      if (this.#scored < this.#entries.length) {
        await nextTurn();
        if (this.#isStopped || generation !== this.#generation) return false;
      }
    }
    return true;
  }

  /** Sends what is due; returns how long to wait before an update the throttle held back. */
  #publish(): number | undefined {
    if (this.#hasSentUpdate && !this.#isWalkDone) {
      const wait = this.#lastUpdateAt + UPDATE_INTERVAL_MS - Date.now();
      if (wait > 0) return wait;
    }
    const files = this.#ranking?.results(this.#roots) ?? [];
    const key = JSON.stringify(files);
    if (!this.#hasSentUpdate || key !== this.#lastFiles) {
      this.sink.updated({ sessionId: this.sessionId, query: this.#query, files });
      this.#hasSentUpdate = true;
      this.#lastFiles = key;
      this.#lastUpdateAt = Date.now();
    }
    if (this.#isWalkDone && !this.#hasSentCompleted) {
      this.#hasSentCompleted = true;
      this.sink.completed({ sessionId: this.sessionId });
    }
    return undefined;
  }
}
