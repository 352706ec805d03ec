/**
 * Handlers of the turn history pages and of the background-terminal cleanup (experimental):
 * `thread/turns/list` (a thread's turns, loaded or stored, newest first by default, each in the
 * requested items view), `thread/turns/items/list` (one turn's items, oldest first by default)
 * and `thread/backgroundTerminals/clean` (kills the commands `exec_command` left running).
 * Turns and items are projected as `thread/read` projects them (synthetic `item-N` ids across the
 * thread); the pages are cut here with the reference's cursors (openai/codex
 * codex-rs/app-server `paginate_thread_turns`): a JSON anchor `{turnId|itemId, includeAnchor}`,
 * a `nextCursor` that continues after the page and a `backwardsCursor` that pages the other way
 * from the page's first entry, that entry included.
 */
import { z } from 'zod';
import { RpcError } from '@deputy/rpc/core';
import { cleanBackgroundTerminals, type TurnRecord } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import type { AppContext } from '../app-context.js';
import { projectTurnInfo, projectTurns } from '../project/threads.js';
import { orNotFound, parseThreadId, requireLoaded } from './common.js';
import type { Handlers } from './types.js';

/** Page size when the request gives none (reference: `THREAD_TURNS_DEFAULT_LIMIT`). */
export const DEFAULT_PAGE_SIZE = 25;
/** Largest page; larger limits are cut to it, and 0 counts as 1 (reference: `THREAD_TURNS_MAX_LIMIT`). */
export const MAX_PAGE_SIZE = 100;

/** What is being paged: the cursor's anchor field and the noun of its error text. */
export interface PageKind {
  readonly anchorKey: 'turnId' | 'itemId';
  readonly noun: 'turn' | 'item';
}

export const TURNS: PageKind = { anchorKey: 'turnId', noun: 'turn' };
export const ITEMS: PageKind = { anchorKey: 'itemId', noun: 'item' };

/** A cursor as this server writes it; unknown fields are ignored, as serde does. */
const CursorSchema = z.object({
  turnId: z.string().optional(),
  itemId: z.string().optional(),
  includeAnchor: z.boolean(),
});

/** The paging fields both list methods take. */
export interface PageRequest {
  cursor?: string | null;
  limit?: number | null;
  sortDirection?: AppServer.PageSortDirection | null;
}

/** One page of entries with its cursors. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}

/** A cursor naming `id`, as `pageOf` writes them. */
export function encodeCursor(kind: PageKind, id: string, includeAnchor: boolean): string {
  return JSON.stringify({ [kind.anchorKey]: id, includeAnchor });
}

/** The anchor of a cursor, or -32600 `invalid cursor: <cursor>` when it is not one of ours. */
function decodeCursor(kind: PageKind, cursor: string): { id: string; includeAnchor: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(cursor);
  } catch {
    value = undefined;
  }
  const parsed = CursorSchema.safeParse(value);
  const id = parsed.data?.[kind.anchorKey];
  if (!parsed.success || id === undefined) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
  return { id, includeAnchor: parsed.data.includeAnchor };
}

/**
 * Cuts one page out of `entries` (in their natural, ascending order). As in the reference, an
 * empty list answers an empty page without looking at the cursor, and a cursor whose anchor is
 * gone (a rollback dropped it) is refused.
 */
export function pageOf<T extends { id: string }>(
  entries: readonly T[],
  request: PageRequest,
  defaultDirection: AppServer.PageSortDirection,
  kind: PageKind,
): Page<T> {
  if (entries.length === 0) return { data: [], nextCursor: null, backwardsCursor: null };
  const anchor = request.cursor == null ? null : decodeCursor(kind, request.cursor);
  const at = anchor === null ? -1 : entries.findIndex((entry) => entry.id === anchor.id);
  if (anchor !== null && at < 0) throw RpcError.invalidRequest(`invalid cursor: anchor ${kind.noun} is no longer present`);
  const size = Math.min(MAX_PAGE_SIZE, Math.max(1, request.limit ?? DEFAULT_PAGE_SIZE));
  const ascending = (request.sortDirection ?? defaultDirection) === 'asc';
  const indexes = entries.map((_, index) => index);
  if (!ascending) indexes.reverse();
  const rest = indexes
    .filter((index) => anchor === null || (index === at ? anchor.includeAnchor : ascending ? index > at : index < at))
    .map((index) => entries[index] as T);
  const data = rest.slice(0, size);
  const first = data[0];
  const last = data.at(-1);
  return {
    data,
    nextCursor: rest.length > size && last !== undefined ? encodeCursor(kind, last.id, false) : null,
    backwardsCursor: first === undefined ? null : encodeCursor(kind, first.id, true),
  };
}

/**
 * A turn's items as `itemsView: summary` shows them (reference behaviour): the first user
 * message and the last agent message, whichever exist.
 */
function summaryItems(items: readonly AppServer.ThreadItem[]): AppServer.ThreadItem[] {
  const summary: AppServer.ThreadItem[] = [];
  const user = items.find((item) => item.type === 'userMessage');
  const agent = items.findLast((item) => item.type === 'agentMessage');
  if (user !== undefined) summary.push(user);
  if (agent !== undefined) summary.push(agent);
  return summary;
}

/** The thread's turns in the requested view; `notLoaded` skips projecting items at all. */
function turnsInView(records: readonly TurnRecord[], view: AppServer.TurnItemsView): AppServer.Turn[] {
  if (view === 'notLoaded') return records.map((record) => projectTurnInfo(record.info));
  const full = projectTurns(records);
  if (view === 'full') return full;
  return full.map((turn) => ({ ...turn, items: summaryItems(turn.items), itemsView: 'summary' as const }));
}

/** The turns of a loaded or stored thread; -32600 `thread not loaded: <id>` when there is none. */
export async function turnsOf(app: AppContext, threadId: string): Promise<TurnRecord[]> {
  const id = parseThreadId(threadId);
  const snapshot = await orNotFound(app.manager.read(id), () => RpcError.invalidRequest(`thread not loaded: ${id}`));
  return snapshot.turns;
}

/** The handlers of this area. */
export function turnsListHandlers(app: AppContext): Handlers {
  return {
    'thread/turns/list': async (params) => {
      const records = await turnsOf(app, params.threadId);
      return pageOf(turnsInView(records, params.itemsView ?? 'summary'), params, 'desc', TURNS);
    },
    'thread/turns/items/list': async (params) => {
      const records = await turnsOf(app, params.threadId);
      const turn = projectTurns(records).find((t) => t.id === params.turnId);
      if (turn === undefined) throw RpcError.invalidRequest(`turn ${params.turnId} not found in thread ${params.threadId}`);
      return pageOf(turn.items, params, 'asc', ITEMS);
    },
    'thread/backgroundTerminals/clean': async (params) => {
      await cleanBackgroundTerminals(requireLoaded(app, params.threadId));
      return {};
    },
  };
}
