/**
 * Handlers of the 0.171 history methods (docs/app-server.md, "0.171 additions"):
 * `thread/revert` (drops a turn and every later one, like `thread/rollback` counted from the
 * other end, then notifies `thread/reverted`), `thread/items/list` (items of the whole thread or
 * of one turn, each with its turn id, paged like `thread/turns/items/list`) and
 * `thread/items/read` (chosen items of one turn), and `thread/timeline/list` (turn boundaries and
 * items in rollout order, each with its running position, paged by position). Items are projected
 * as `thread/read` projects them (synthetic `item-N` ids across the thread), so ids from any of
 * these methods agree.
 */
import { RpcError } from '@deputy/rpc/core';
import type { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { projectTurns } from '../project/threads.js';
import { noRollout, parseThreadId } from './common.js';
import { wireLoadedThread } from './thread.js';
import { DEFAULT_PAGE_SIZE, encodeCursor, ITEMS, MAX_PAGE_SIZE, pageOf, TURNS, turnsOf } from './turns-list.js';
import type { Handlers } from './types.js';

/** Most item ids one `thread/items/read` takes. */
const MAX_READ_IDS = 100;

type Entry = AppServer.ThreadItemEntry & { id: string };

/** Every item of the thread, in stored order, with its turn id. */
function entriesOf(turns: readonly AppServer.Turn[]): Entry[] {
  return turns.flatMap((turn) => turn.items.map((item) => ({ id: item.id, turnId: turn.id, item })));
}

/** The wire entry (without the paging id). */
function wireEntry({ turnId, item }: Entry): AppServer.ThreadItemEntry {
  return { turnId, item };
}

/** The turn named by `turnId`, or -32600 naming it. */
function turnOf(turns: readonly AppServer.Turn[], threadId: string, turnId: string): AppServer.Turn {
  const turn = turns.find((t) => t.id === turnId);
  if (turn === undefined) throw RpcError.invalidRequest(`turn ${turnId} not found in thread ${threadId}`);
  return turn;
}

/**
 * The thread's timeline: for each turn, `turnStarted`, its items, and `turnCompleted` once it
 * ended (a running turn has no end yet), numbered from 0 in that order.
 */
function timelineOf(turns: readonly AppServer.Turn[]): AppServer.ThreadTimelineEntry[] {
  const entries: AppServer.ThreadTimelineEntry[] = [];
  for (const turn of turns) {
    entries.push({ type: 'turnStarted', position: entries.length, turn_id: turn.id, started_at: turn.startedAt });
    for (const item of turn.items) entries.push({ type: 'item', position: entries.length, turnId: turn.id, item });
    if (turn.status === 'inProgress') continue;
    entries.push({
      type: 'turnCompleted',
      position: entries.length,
      turn_id: turn.id,
      status: turn.status,
      started_at: turn.startedAt,
      completed_at: turn.completedAt,
      duration_ms: turn.durationMs,
      error: turn.error,
    });
  }
  return entries;
}

/** The position a timeline cursor (the decimal position of the next entry) names, or -32600 `invalid cursor: <c>`. */
function timelineStart(cursor: string | null | undefined, length: number): number {
  if (cursor == null) return 0;
  const start = /^\d{1,15}$/.test(cursor) ? Number(cursor) : -1;
  if (start < 0 || start > length) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
  return start;
}

/** The handlers of this area. */
export function threadHistoryHandlers(app: AppContext): Handlers {
  return {
    'thread/revert': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      if (app.manager.index.isArchived(threadId) === true) throw noRollout(threadId);
      const records = await turnsOf(app, threadId);
      const at = records.findIndex((record) => record.info.id === params.beforeTurnId);
      if (at < 0) throw RpcError.invalidRequest(`turn ${params.beforeTurnId} not found in thread ${threadId}`);
      const thread = await app.manager.rollback(threadId, records.length - at);
      const kept = projectTurns(thread.turns);
      const lastTurn = kept.at(-1);
      const lastItem = entriesOf(kept).at(-1);
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [notification('thread/reverted', { threadId })]));
      return {
        thread: wireLoadedThread(app, thread),
        turnsBackwardsCursor: lastTurn === undefined ? null : encodeCursor(TURNS, lastTurn.id, true),
        itemsBackwardsCursor: lastItem === undefined ? null : encodeCursor(ITEMS, lastItem.id, true),
      };
    },
    'thread/items/list': async (params) => {
      const threadId = parseThreadId(params.threadId);
      const turns = projectTurns(await turnsOf(app, threadId));
      const turnId = params.turnId ?? null;
      const scope = turnId === null || turnId === '' ? turns : [turnOf(turns, threadId, turnId)];
      let cursor: string | null = null;
      if (typeof params.cursor === 'string') cursor = params.cursor;
      else if (params.cursor != null) {
        // An item anchor is exclusive and needs the turn it is in.
        if (turnId === null || turnId === '') throw RpcError.invalidRequest('an item cursor requires a non-empty turnId');
        cursor = encodeCursor(ITEMS, params.cursor.itemId, false);
      }
      const page = pageOf(entriesOf(scope), { cursor, limit: params.limit, sortDirection: params.sortDirection }, 'asc', ITEMS);
      return { ...page, data: page.data.map(wireEntry) };
    },
    'thread/timeline/list': async (params) => {
      const entries = timelineOf(projectTurns(await turnsOf(app, params.threadId)));
      const start = timelineStart(params.cursor, entries.length);
      const data = entries.slice(start, start + Math.min(MAX_PAGE_SIZE, Math.max(1, params.limit ?? DEFAULT_PAGE_SIZE)));
      const next = start + data.length;
      return { data, nextCursor: next < entries.length ? String(next) : null, activeRealtimeSessionAtPageStart: null };
    },
    'thread/items/read': async (params) => {
      const threadId = parseThreadId(params.threadId);
      if (params.itemIds.length === 0 || params.itemIds.length > MAX_READ_IDS) {
        throw RpcError.invalidRequest(`itemIds must name 1 to ${MAX_READ_IDS} items`);
      }
      const turn = turnOf(projectTurns(await turnsOf(app, threadId)), threadId, params.turnId);
      const wanted = new Set(params.itemIds);
      return { data: turn.items.filter((item) => wanted.has(item.id)).map((item) => ({ turnId: turn.id, item })) };
    },
  };
}
