/**
 * Handlers of thread search (experimental; docs/app-server.md, "0.171 additions"):
 * `thread/search`, `thread/search/stream` (the same, with `thread/search/partial` batches to the
 * caller before the response), their cancels, and `thread/searchOccurrences` (matches inside one
 * thread's messages). A search walks the SQLite index in the requested order, 500 rows at a time;
 * a thread matches when its name or preview contains the term (case-insensitive), or else when
 * one of its user or agent messages does. Message search reads rollouts, so it is bounded: at most
 * `SCAN_FILES` files, `SCAN_BYTES` bytes in all and `SCAN_FILE_BYTES` per file, within
 * `SCAN_MS`; past a bound only names and previews are matched. Whether a rollout contains the
 * term is decided on the index's worker thread (reading and lowercasing a file of megabytes would
 * hold the event loop); only matching rollouts are replayed here. The walk yields to the event
 * loop between files and index pages and stops when cancelled or when the connection closes.
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { RpcError, type HandlerContext } from '@deputy/rpc/core';
import { EngineError, type ThreadSummary, type TurnRecord } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import type { AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { projectTurns } from '../project/threads.js';
import { orNotFound, parseThreadId } from './common.js';
import { sourcesOf, wireListed } from './thread-store.js';
import { encodeCursor, TURNS } from './turns-list.js';
import type { Handlers } from './types.js';

/** Longest search term, in UTF-8 bytes after trimming. */
export const MAX_TERM_BYTES = 65_536;
/** Rollouts whose messages one search may read, and their bytes in all and each. */
export const SCAN_FILES = 2_000;
export const SCAN_BYTES = 256 * 1024 * 1024;
export const SCAN_FILE_BYTES = 16 * 1024 * 1024;
/** Time one search may spend reading messages. */
export const SCAN_MS = 3_000;

const DEFAULT_PAGE = 25;
const MAX_PAGE = 100;
const INDEX_PAGE = 500;
/** Characters of context on each side of a match in a snippet. */
const SNIPPET_CONTEXT = 60;

const OffsetCursorSchema = z.object({ offset: z.number().int().nonnegative() });

function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function decodeOffset(cursor: string | null | undefined): number {
  if (cursor == null) return 0;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = OffsetCursorSchema.safeParse(value);
  if (!parsed.success) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
  return parsed.data.offset;
}

/** The trimmed term; -32600 when empty or too long. */
function termOf(searchTerm: string): string {
  const term = searchTerm.trim();
  if (term === '') throw RpcError.invalidRequest('searchTerm must not be empty');
  if (Buffer.byteLength(term, 'utf8') > MAX_TERM_BYTES) throw RpcError.invalidRequest(`searchTerm must be at most ${MAX_TERM_BYTES} UTF-8 bytes`);
  return term;
}

/**
 * The text around the first match of `lowerTerm` in `text` (case-insensitive) at or after `from`,
 * with the match's range in it; null when none. `lowerText` is `text.toLowerCase()`, passed by a
 * caller that looks for every match so the text is lowercased once, not once per match.
 */
export function snippetAround(text: string, lowerTerm: string, from = 0, lowerText = text.toLowerCase()): { snippet: string; start: number; end: number; at: number } | null {
  const at = lowerText.indexOf(lowerTerm, from);
  if (at < 0) return null;
  const begin = Math.max(0, at - SNIPPET_CONTEXT);
  const finish = Math.min(text.length, at + lowerTerm.length + SNIPPET_CONTEXT);
  const snippet = text.slice(begin, finish).replace(/\s+/g, ' ');
  // Whitespace runs before the match shrink: find the match again in the normalised snippet.
  const start = snippet.toLowerCase().indexOf(lowerTerm.replace(/\s+/g, ' '));
  return { snippet, start: Math.max(0, start), end: Math.max(0, start) + lowerTerm.replace(/\s+/g, ' ').length, at };
}

/** The visible text of a user or agent message item, or null for other items. */
function messageText(item: AppServer.ThreadItem): string | null {
  if (item.type === 'agentMessage') return item.text;
  if (item.type === 'userMessage') return item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return null;
}

/** How much message reading one search has left. */
class ScanBudget {
  files = SCAN_FILES;
  bytes = SCAN_BYTES;
  readonly deadline = Date.now() + SCAN_MS;

  get isSpent(): boolean {
    return this.files <= 0 || this.bytes <= 0 || Date.now() > this.deadline;
  }
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** True when the rollout's text contains the term, read on the index's worker (here if it is unavailable). */
async function fileContains(app: AppContext, path: string, lowerTerm: string): Promise<boolean> {
  try {
    return await app.manager.index.reader.fileContains(path, lowerTerm);
  } catch (e) {
    if (!(e instanceof EngineError)) throw e;
    if (e.code === 'index_timeout') return false;
    if (e.code !== 'index_reader_unavailable') throw e;
    try {
      return (await readFile(path, 'utf8')).toLowerCase().includes(lowerTerm);
    } catch {
      return false;
    }
  }
}

/** The snippet of the first message of a stored thread that contains the term, within the budget. */
async function messageSnippet(app: AppContext, summary: ThreadSummary, lowerTerm: string, budget: ScanBudget): Promise<string | null> {
  if (budget.isSpent || summary.path === '') return null;
  let size: number;
  try {
    size = (await stat(summary.path)).size;
  } catch {
    return null;
  }
  if (size > SCAN_FILE_BYTES || size > budget.bytes) return null;
  budget.files -= 1;
  budget.bytes -= size;
  // Most files do not contain the term at all: only those that do are replayed. Reading and
  // lowercasing up to SCAN_FILE_BYTES of text is done on the index's worker thread.
  if (!(await fileContains(app, summary.path, lowerTerm))) return null;
  let turns: TurnRecord[];
  try {
    turns = (await app.manager.read(summary.id)).turns;
  } catch {
    return null;
  }
  for (const item of projectTurns(turns).flatMap((t) => t.items)) {
    const text = messageText(item);
    const found = text === null ? null : snippetAround(text, lowerTerm);
    if (found) return found.snippet;
  }
  return null;
}

/** Searches; `onBatch` receives each index page's matches as they are found. */
async function search(
  app: AppContext,
  params: AppServer.ThreadSearchParams,
  signal: AbortSignal,
  onBatch?: (batch: AppServer.ThreadSearchResultEntry[]) => void,
): Promise<AppServer.ThreadSearchResult> {
  const lowerTerm = termOf(params.searchTerm).toLowerCase();
  const offset = decodeOffset(params.cursor);
  const size = Math.min(MAX_PAGE, Math.max(1, params.limit ?? DEFAULT_PAGE));
  const wanted = offset + size + 1;
  const found: AppServer.ThreadSearchResultEntry[] = [];
  const budget = new ScanBudget();
  let cursor: string | null = null;
  do {
    if (signal.aborted) throw RpcError.invalidRequest('thread search cancelled');
    let page;
    try {
      page = app.manager.list({
        limit: INDEX_PAGE,
        cursor,
        sortKey: params.sortKey === 'created_at' || params.sortKey == null ? 'created_at' : 'updated_at',
        sortDirection: params.sortDirection ?? 'desc',
        archived: params.archived === true,
        sources: sourcesOf(params.sourceKinds),
      });
    } catch (e) {
      if (e instanceof EngineError) throw RpcError.invalidRequest(e.message);
      throw e;
    }
    const batch: AppServer.ThreadSearchResultEntry[] = [];
    for (const summary of page.threads) {
      if (found.length + batch.length >= wanted) break;
      const titled = snippetAround(summary.name ?? '', lowerTerm) ?? snippetAround(summary.preview, lowerTerm);
      const snippet = titled?.snippet ?? (await messageSnippet(app, summary, lowerTerm, budget));
      if (signal.aborted) throw RpcError.invalidRequest('thread search cancelled');
      if (snippet !== null) batch.push({ thread: wireListed(app, summary), snippet });
    }
    found.push(...batch);
    if (batch.length > 0) onBatch?.(batch);
    cursor = page.nextCursor;
    await yieldToLoop();
  } while (cursor !== null && found.length < wanted);
  const data = found.slice(offset, offset + size);
  return { data, nextCursor: found.length > offset + size ? encodeOffset(offset + size) : null, backwardsCursor: null };
}

/** Running searches by connection and request id, for the cancels. */
class RunningSearches {
  readonly #byKey = new Map<string, AbortController>();

  static key(ctx: HandlerContext, requestId: AppServer.PayloadRequestId, stream: boolean): string {
    return `${ctx.connection.id}:${stream ? 'stream' : 'plain'}:${JSON.stringify(requestId)}`;
  }

  async run<T>(key: string, outer: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const onOuter = (): void => controller.abort();
    outer.addEventListener('abort', onOuter, { once: true });
    this.#byKey.set(key, controller);
    try {
      return await work(controller.signal);
    } finally {
      outer.removeEventListener('abort', onOuter);
      if (this.#byKey.get(key) === controller) this.#byKey.delete(key);
    }
  }

  cancel(key: string): void {
    this.#byKey.get(key)?.abort();
  }
}

/** A request id as payloads carry it: an id beyond 2^53 (a `bigint`) as its digits in a string. */
function payloadId(id: string | number | bigint): AppServer.PayloadRequestId {
  return typeof id === 'bigint' ? id.toString() : id;
}

/** The handlers of this area. */
export function threadSearchHandlers(app: AppContext): Handlers {
  const running = new RunningSearches();
  return {
    'thread/search': (params, ctx) => running.run(RunningSearches.key(ctx, payloadId(ctx.id), false), ctx.signal, (signal) => search(app, params, signal)),
    'thread/search/stream': (params, ctx) => {
      const state = app.stateOf(ctx.connection);
      const requestId = payloadId(ctx.id);
      return running.run(RunningSearches.key(ctx, requestId, true), ctx.signal, (signal) =>
        search(app, params, signal, (data) => app.router.sendTo(state, notification('thread/search/partial', { requestId, data }))),
      );
    },
    'thread/search/cancel': (params, ctx) => {
      running.cancel(RunningSearches.key(ctx, params.requestId, false));
      return {};
    },
    'thread/search/stream/cancel': (params, ctx) => {
      running.cancel(RunningSearches.key(ctx, params.requestId, true));
      return {};
    },
    'thread/searchOccurrences': async (params) => {
      const threadId = parseThreadId(params.threadId);
      const lowerTerm = termOf(params.searchTerm).toLowerCase();
      const snapshot = await orNotFound(app.manager.read(threadId), () => RpcError.invalidRequest(`thread not loaded: ${threadId}`));
      const occurrences: AppServer.ThreadSearchOccurrence[] = [];
      for (const turn of projectTurns(snapshot.turns)) {
        for (const item of turn.items) {
          const text = messageText(item);
          if (text === null) continue;
          const lowerText = text.toLowerCase();
          for (let found = snippetAround(text, lowerTerm, 0, lowerText); found !== null; found = snippetAround(text, lowerTerm, found.at + lowerTerm.length, lowerText)) {
            occurrences.push({
              turnId: turn.id,
              itemId: item.id,
              snippet: found.snippet,
              snippetMatchRange: { start: found.start, end: found.end },
              turnCursor: encodeCursor(TURNS, turn.id, true),
            });
          }
        }
      }
      const offset = decodeOffset(params.cursor);
      const size = Math.min(MAX_PAGE, Math.max(1, params.limit ?? DEFAULT_PAGE));
      const data = occurrences.slice(offset, offset + size);
      return { data, nextCursor: occurrences.length > offset + size ? encodeOffset(offset + size) : null };
    },
  };
}
