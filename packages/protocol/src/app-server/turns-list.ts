/**
 * Params and results of the turn history pages and of the background-terminal cleanup:
 * `thread/turns/list` (a thread's turns, newest first by default, each with the items a view
 * asks for), `thread/turns/items/list` (one turn's items, oldest first by default) and
 * `thread/backgroundTerminals/clean`. Cursors are opaque strings; `backwardsCursor` pages the
 * other way from the first entry of a page, that entry included. All three methods are
 * experimental (gated in `methods.ts`).
 */
import { z } from 'zod';
import { ThreadItemSchema } from './items.js';
import { UInt32Schema } from './primitives.js';
import { TurnItemsViewSchema, TurnSchema } from './shared.js';

/** Paging direction of the turn and item pages. */
export const PageSortDirectionSchema = z.enum(['asc', 'desc']);
export type PageSortDirection = z.infer<typeof PageSortDirectionSchema>;

/** `thread/turns/list` params. */
export const ThreadTurnsListParamsSchema = z.object({
  /** The thread (loaded or stored). */
  threadId: z.string(),
  /** Opaque cursor to pass to the next call to continue after the last turn. */
  cursor: z.string().nullish(),
  /** Optional turn page size (default 25, at most 100; 0 counts as 1). */
  limit: UInt32Schema.nullish(),
  /** Optional turn pagination direction; defaults to descending (newest first). */
  sortDirection: PageSortDirectionSchema.nullish(),
  /** How much item detail to include for each returned turn; defaults to summary. */
  itemsView: TurnItemsViewSchema.nullish(),
});
export type ThreadTurnsListParams = z.infer<typeof ThreadTurnsListParamsSchema>;

/** `thread/turns/list` result. */
export const ThreadTurnsListResultSchema = z.object({
  /** The page of turns, in the requested direction. */
  data: z.array(TurnSchema),
  /** Opaque cursor to pass to the next call to continue after the last turn; null when there are no more turns. */
  nextCursor: z.string().nullable(),
  /**
   * Opaque cursor to pass as `cursor` when reversing `sortDirection`; null when the page is
   * empty. The reversed page includes the anchor turn again (to catch updates to it).
   */
  backwardsCursor: z.string().nullable(),
});
export type ThreadTurnsListResult = z.infer<typeof ThreadTurnsListResultSchema>;

/** `thread/turns/items/list` params. */
export const ThreadTurnsItemsListParamsSchema = z.object({
  /** The thread (loaded or stored). */
  threadId: z.string(),
  /** The turn whose items are listed. */
  turnId: z.string(),
  /** Opaque cursor to pass to the next call to continue after the last item. */
  cursor: z.string().nullish(),
  /** Optional item page size (default 25, at most 100; 0 counts as 1). */
  limit: UInt32Schema.nullish(),
  /** Optional item pagination direction; defaults to ascending (oldest first). */
  sortDirection: PageSortDirectionSchema.nullish(),
});
export type ThreadTurnsItemsListParams = z.infer<typeof ThreadTurnsItemsListParamsSchema>;

/** `thread/turns/items/list` result. */
export const ThreadTurnsItemsListResultSchema = z.object({
  /** The page of items (synthetic `item-N` ids, numbered across the thread as `thread/read` does). */
  data: z.array(ThreadItemSchema),
  /** Opaque cursor to pass to the next call to continue after the last item; null when there are no more items. */
  nextCursor: z.string().nullable(),
  /** Opaque cursor to pass as `cursor` when reversing `sortDirection`; null when the page is empty. */
  backwardsCursor: z.string().nullable(),
});
export type ThreadTurnsItemsListResult = z.infer<typeof ThreadTurnsItemsListResultSchema>;
