/**
 * The thread-list benchmark: builds a synthetic store of real rollout files in a temp home, lets
 * `ThreadIndex.open` rebuild the index from them, then times list queries (first page, a page
 * deep in the cursor chain, filters, text search) over many iterations. It is a measuring tool
 * for `scripts/bench/list.mjs`; nothing in the engine calls it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rolloutLine } from './rollout-line.js';
import { RolloutWriter } from './rollout-store.js';
import { ThreadIndex } from './thread-index.js';
import type { ThreadListOptions } from './thread-index-query.js';

/** Options of `runListBench`. */
export interface ListBenchOptions {
  /** Threads in the synthetic store (default 50,000). */
  threads?: number;
  /** Timed runs per query (default 200). */
  iterations?: number;
  /** Rows to skip through the cursor chain before the deep page (default 80% of `threads`). */
  deepOffset?: number;
  /** Keep the temp home instead of deleting it (its path is in the result). */
  keepHome?: boolean;
  /** Progress messages (stderr in the script). */
  log?: (message: string) => void;
}

/** Timing of one query. */
export interface ListBenchRow {
  name: string;
  /** Rows the query returned (on its last run). */
  rows: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

/** Everything `runListBench` measured. */
export interface ListBenchResult {
  threads: number;
  iterations: number;
  home: string;
  /** Writing the rollout files. */
  writeMs: number;
  /** `ThreadIndex.open` on a home without a database: walk, summarise, insert. */
  rebuildMs: number;
  /** `reconcile` with nothing to do (one directory walk). */
  reconcileMs: number;
  queries: ListBenchRow[];
}

const WORDS = (
  'refactor parser fix flaky test login page add dark mode migrate database schema update readme write ' +
  'benchmark profile memory leak websocket reconnect retry budget sandbox policy approval prompt cache ' +
  'tokenizer streaming render table export csv import json patch diff review release notes upgrade deps'
).split(' ');

/** A small deterministic PRNG (mulberry32), so every run builds the same store. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function threadId(n: number, createdAtMs: number): string {
  // UUIDv7 layout: 48-bit ms timestamp, version 7, variant 10, then a counter.
  const hex = createdAtMs.toString(16).padStart(12, '0') + '7' + n.toString(16).padStart(19, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Writes `count` small rollouts (meta, one user message, a name on some, archived on a few). */
function writeStore(home: string, count: number): void {
  const rand = random(42);
  const start = Date.UTC(2025, 0, 1);
  for (let n = 0; n < count; n++) {
    // Creation times collide in groups of three to exercise the id tie-break.
    const createdAtMs = start + Math.floor(n / 3) * 600_000;
    const words = Array.from({ length: 12 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    const writer = RolloutWriter.create(home, {
      id: threadId(n, createdAtMs),
      createdAtMs,
      cwd: `/home/dev/project-${n % 20}`,
      model: 'gpt-5-codex',
      modelProvider: ['openai', 'azure', 'ollama'][n % 3] as string,
      source: ['vscode', 'cli', 'exec'][n % 3 === 0 ? 0 : n % 7 === 0 ? 2 : 1] as string,
      forkedFromId: null,
      cliVersion: '0.1.0',
      approvalPolicy: 'on-request',
      sandboxMode: 'workspace-write',
      reasoningEffort: null,
      baseInstructions: null,
      developerInstructions: null,
    });
    const at = createdAtMs + 1_000 + Math.floor(rand() * 86_400_000);
    writer.append(rolloutLine('item', { turnId: 't1', item: { type: 'userMessage', id: 'u1', content: [{ type: 'text', text: `thread ${n}: ${words}` }] }, completedAtMs: at }, at));
    if (n % 10 === 0) writer.append(rolloutLine('thread_name', { name: `ticket ${n}` }, at + 1));
    writer.close();
    if (n % 20 === 19) {
      const target = path.join(home, 'archived_sessions', path.basename(writer.path));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.renameSync(writer.path, target);
    }
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function timeQuery(index: ThreadIndex, name: string, options: ThreadListOptions, iterations: number): ListBenchRow {
  for (let i = 0; i < 5; i++) index.list(options);
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    rows = index.list(options).rows.length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { name, rows, medianMs: percentile(times, 50), p95Ms: percentile(times, 95), maxMs: times[times.length - 1] ?? Number.NaN };
}

function cursorAfter(index: ThreadIndex, options: ThreadListOptions, offset: number): string | null {
  let cursor: string | null = null;
  for (let seen = 0; seen < offset; ) {
    const page = index.list({ ...options, cursor, limit: Math.min(1000, offset - seen) });
    seen += page.rows.length;
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return cursor;
}

/** Builds the synthetic store, rebuilds the index from it and times the list queries. */
export async function runListBench(options: ListBenchOptions = {}): Promise<ListBenchResult> {
  const threads = options.threads ?? 50_000;
  const iterations = options.iterations ?? 200;
  const deepOffset = options.deepOffset ?? Math.floor(threads * 0.8);
  const log = options.log ?? (() => {});
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'deputy-list-bench-'));
  let index: ThreadIndex | null = null;
  try {
    log(`writing ${threads} rollouts under ${home}`);
    let t0 = performance.now();
    writeStore(home, threads);
    const writeMs = performance.now() - t0;
    log('rebuilding the index from the rollouts');
    t0 = performance.now();
    index = await ThreadIndex.open(home);
    const rebuildMs = performance.now() - t0;
    t0 = performance.now();
    await index.reconcile(home);
    const reconcileMs = performance.now() - t0;
    log(`timing queries (${iterations} runs each)`);
    const deepCreated = cursorAfter(index, { sortKey: 'created_at' }, deepOffset);
    const deepUpdated = cursorAfter(index, { sortKey: 'updated_at' }, deepOffset);
    const queries = [
      timeQuery(index, 'first page (created_at, limit 25)', { limit: 25 }, iterations),
      timeQuery(index, 'first page (updated_at, limit 25)', { limit: 25, sortKey: 'updated_at' }, iterations),
      timeQuery(index, `deep page after ${deepOffset} rows (created_at)`, { limit: 25, cursor: deepCreated }, iterations),
      timeQuery(index, `deep page after ${deepOffset} rows (updated_at)`, { limit: 25, sortKey: 'updated_at', cursor: deepUpdated }, iterations),
      timeQuery(index, 'filter cwd + provider', { limit: 25, cwd: '/home/dev/project-7', modelProviders: ['azure'] }, iterations),
      timeQuery(index, 'archived only', { limit: 25, archived: true }, iterations),
      timeQuery(index, 'search "ticket 4240" (rare)', { limit: 25, search: 'ticket 4240' }, iterations),
      timeQuery(index, 'search "memory leak" (common)', { limit: 25, search: 'memory leak' }, iterations),
      timeQuery(index, 'search "fix" (very common)', { limit: 25, search: 'fix' }, iterations),
      timeQuery(index, 'search "db" (2 chars, LIKE)', { limit: 25, search: 'db' }, iterations),
      // The longest term thread/list accepts (docs/app-server.md "Limits"), and its largest page.
      timeQuery(index, 'search of 1024 chars (the limit)', { limit: 25, search: 'memory leak in the parser '.repeat(40).slice(0, 1024) }, iterations),
      timeQuery(index, 'page of 500 (the limit)', { limit: 500 }, iterations),
    ];
    return { threads, iterations, home, writeMs, rebuildMs, reconcileMs, queries };
  } finally {
    index?.close();
    if (!options.keepHome) fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Formats a result as a plain-text table. */
export function formatListBench(result: ListBenchResult, targetP95Ms = 100): string {
  const width = Math.max(...result.queries.map((q) => q.name.length), 5);
  const num = (ms: number) => ms.toFixed(2).padStart(8);
  const lines = [
    `thread list benchmark: ${result.threads} threads, ${result.iterations} runs per query`,
    `setup: write rollouts ${(result.writeMs / 1000).toFixed(1)} s, rebuild index ${(result.rebuildMs / 1000).toFixed(1)} s, no-op reconcile ${result.reconcileMs.toFixed(0)} ms`,
    '',
    `${'query'.padEnd(width)}  ${'rows'.padStart(4)}  ${'median'.padStart(8)}  ${'p95'.padStart(8)}  ${'max'.padStart(8)}  p95 < ${targetP95Ms} ms`,
    `${'-'.repeat(width)}  ----  --------  --------  --------  ----------`,
    ...result.queries.map((q) => `${q.name.padEnd(width)}  ${String(q.rows).padStart(4)}  ${num(q.medianMs)}  ${num(q.p95Ms)}  ${num(q.maxMs)}  ${q.p95Ms < targetP95Ms ? 'ok' : 'SLOW'}`),
    '',
    'times in milliseconds',
  ];
  return lines.join('\n');
}
