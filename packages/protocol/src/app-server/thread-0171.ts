/**
 * Params, results and notifications of the local-state `thread/*` methods that Codex 0.171 added
 * (docs/app-server.md, "0.171 additions"): `thread/revert` with `thread/reverted`,
 * `thread/items/list` and `thread/items/read` (whole-thread item pages with their turn ids),
 * `thread/goal/get|set|clear` with `thread/goal/updated` and `thread/goal/cleared`,
 * `thread/delete` with `thread/deleted`, and the per-thread queue of pending submissions
 * (`thread/queue/*` with `thread/queue/changed`), and thread search (`thread/search`, its
 * streamed form with `thread/search/partial`, their cancels, `thread/searchOccurrences`). Params are lenient about unknown fields, as the
 * reference's are; experimental methods are gated in `methods.ts`.
 */
import { z } from 'zod';
import { ThreadItemSchema, UserInputSchema } from './items.js';
import { Int64Schema, PayloadRequestIdSchema, UInt32Schema } from './primitives.js';
import { ThreadSchema, ThreadSectionAppearanceSchema, ThreadSectionSchema, TurnSchema } from './shared.js';
import { ThreadSourceKindSchema } from './thread.js';
import { ThreadReadStateSchema } from './thread-read-state.js';
import { PageSortDirectionSchema } from './turns-list.js';

/** `thread/revert` params: drop `beforeTurnId` and every later turn from the stored history. */
export const ThreadRevertParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The first turn to drop; every later turn goes with it. */
  beforeTurnId: z.string(),
});
export type ThreadRevertParams = z.infer<typeof ThreadRevertParamsSchema>;

/** `thread/revert` result. */
export const ThreadRevertResultSchema = z.object({
  /** The thread after the revert; `turns` is always `[]`. */
  thread: ThreadSchema,
  /** Cursor for `thread/turns/list` with `sortDirection: "desc"`, first page including the last kept turn; null when none is left. */
  turnsBackwardsCursor: z.string().nullable(),
  /** Cursor for `thread/items/list` with `sortDirection: "desc"`, first page including the last kept item; null when none is left. */
  itemsBackwardsCursor: z.string().nullable(),
});
export type ThreadRevertResult = z.infer<typeof ThreadRevertResultSchema>;

/** An exclusive item position in the turn named by `turnId`. */
export const ThreadItemsListAnchorSchema = z.object({
  type: z.literal('item'),
  /** The anchor item. */
  itemId: z.string(),
});
export type ThreadItemsListAnchor = z.infer<typeof ThreadItemsListAnchorSchema>;

/** `thread/items/list` params. */
export const ThreadItemsListParamsSchema = z.object({
  /** The thread (loaded or stored). */
  threadId: z.string(),
  /** Only this turn's items; absent or null lists the whole thread. */
  turnId: z.string().nullish(),
  /** A cursor this server returned, or an item anchor (which needs `turnId`). */
  cursor: z.union([z.string(), ThreadItemsListAnchorSchema]).nullish(),
  /** Page size (default 25, at most 100; 0 counts as 1). */
  limit: UInt32Schema.nullish(),
  /** Direction; ascending (oldest first) by default. */
  sortDirection: PageSortDirectionSchema.nullish(),
  /** Which outputs the client would fetch separately; ignored, outputs are always inline. */
  deferOutput: z.object({ commandExecution: z.boolean().optional(), mcpToolCall: z.boolean().optional() }).nullish(),
});
export type ThreadItemsListParams = z.infer<typeof ThreadItemsListParamsSchema>;

/** One item with the turn it belongs to. */
export const ThreadItemEntrySchema = z.object({
  /** The turn containing the item. */
  turnId: z.string(),
  /** The item (synthetic `item-N` id, numbered across the thread as `thread/read` does). */
  item: ThreadItemSchema,
  /** When the item started, Unix ms; null when not recorded. */
  startedAtMs: Int64Schema.nullish(),
  /** When the item completed, Unix ms; null when not recorded. */
  completedAtMs: Int64Schema.nullish(),
  /** True when the output was left out; never, outputs are inline. */
  outputDeferred: z.boolean().optional(),
});
export type ThreadItemEntry = z.infer<typeof ThreadItemEntrySchema>;

/** `thread/items/list` result. */
export const ThreadItemsListResultSchema = z.object({
  /** The page, in the requested direction. */
  data: z.array(ThreadItemEntrySchema),
  /** Cursor continuing after the last entry; null at the end. */
  nextCursor: z.string().nullable(),
  /** Cursor paging the other way from the first entry, that entry included; null for an empty page. */
  backwardsCursor: z.string().nullable(),
});
export type ThreadItemsListResult = z.infer<typeof ThreadItemsListResultSchema>;

/** `thread/items/read` params (experimental). */
export const ThreadItemsReadParamsSchema = z.object({
  threadId: z.string(),
  /** The turn the items belong to. */
  turnId: z.string(),
  /** 1 to 100 item ids. */
  itemIds: z.array(z.string()),
});
export type ThreadItemsReadParams = z.infer<typeof ThreadItemsReadParamsSchema>;

/** `thread/items/read` result: the items found, in stored order. */
export const ThreadItemsReadResultSchema = z.object({
  data: z.array(ThreadItemEntrySchema),
});
export type ThreadItemsReadResult = z.infer<typeof ThreadItemsReadResultSchema>;

/** A goal's state. */
export const ThreadGoalStatusSchema = z.enum(['active', 'paused', 'blocked', 'usageLimited', 'budgetLimited', 'complete']);
export type ThreadGoalStatus = z.infer<typeof ThreadGoalStatusSchema>;

/** Who changed a goal. */
export const ThreadGoalMutationOriginSchema = z.enum(['user', 'automatic']);

/** A thread's goal. Times are Unix seconds. */
export const ThreadGoalSchema = z.object({
  threadId: z.string(),
  objective: z.string(),
  status: ThreadGoalStatusSchema,
  /** Token budget, null for none. */
  tokenBudget: Int64Schema.nullable(),
  /** Tokens the thread used since the goal was set. */
  tokensUsed: Int64Schema,
  /** Seconds the thread's turns ran since the goal was set. */
  timeUsedSeconds: Int64Schema,
  createdAt: Int64Schema,
  updatedAt: Int64Schema,
});
export type ThreadGoal = z.infer<typeof ThreadGoalSchema>;

/** `thread/goal/get` params. */
export const ThreadGoalGetParamsSchema = z.object({ threadId: z.string() });

/** `thread/goal/get` result. */
export const ThreadGoalGetResultSchema = z.object({ goal: ThreadGoalSchema.nullable() });
export type ThreadGoalGetResult = z.infer<typeof ThreadGoalGetResultSchema>;

/** `thread/goal/set` params: creates the goal or changes the given fields. */
export const ThreadGoalSetParamsSchema = z.object({
  threadId: z.string(),
  /** The objective; required when the thread has no goal yet. */
  objective: z.string().nullish(),
  status: ThreadGoalStatusSchema.nullish(),
  tokenBudget: Int64Schema.nullish(),
  origin: ThreadGoalMutationOriginSchema.nullish(),
});
export type ThreadGoalSetParams = z.infer<typeof ThreadGoalSetParamsSchema>;

/** `thread/goal/set` result. */
export const ThreadGoalSetResultSchema = z.object({ goal: ThreadGoalSchema });

/** `thread/goal/clear` params. */
export const ThreadGoalClearParamsSchema = z.object({
  threadId: z.string(),
  origin: ThreadGoalMutationOriginSchema.nullish(),
});

/** `thread/goal/clear` result: false when there was no goal. */
export const ThreadGoalClearResultSchema = z.object({ cleared: z.boolean() });

/** `thread/goal/updated` notification. */
export const ThreadGoalUpdatedNotificationSchema = z.object({
  threadId: z.string(),
  /** The turn that changed it, null for a client's change. */
  turnId: z.string().nullable(),
  goal: ThreadGoalSchema,
});

/** Notifications that only name a thread (`thread/goal/cleared`, `thread/reverted`, `thread/deleted`, `thread/queue/changed`). */
export const ThreadIdOnlyNotificationSchema = z.object({ threadId: z.string() });

/** A user submission waiting in a thread's queue. */
export const QueuedSubmissionSchema = z.object({
  /** Server-assigned id. */
  id: z.string(),
  /** The client's id of the message (becomes the user message's `clientId`). */
  clientUserMessageId: z.string(),
  input: z.array(UserInputSchema),
  /** Responses API metadata kept with the input. */
  responsesapiClientMetadata: z.record(z.string(), z.string()).nullable(),
});
export type QueuedSubmission = z.infer<typeof QueuedSubmissionSchema>;

/** `thread/queue/add` params. */
export const ThreadQueueAddParamsSchema = z.object({
  threadId: z.string(),
  clientUserMessageId: z.string(),
  input: z.array(UserInputSchema),
  responsesapiClientMetadata: z.record(z.string(), z.string()).nullish(),
});
export type ThreadQueueAddParams = z.infer<typeof ThreadQueueAddParamsSchema>;

/** Result carrying one queued submission (`add`, `update`). */
export const QueuedSubmissionResultSchema = z.object({ queuedSubmission: QueuedSubmissionSchema });

/** `thread/queue/list` params. */
export const ThreadQueueListParamsSchema = z.object({
  threadId: z.string(),
  /** Cursor from a previous page. */
  cursor: z.string().nullish(),
  /** Page size (default 25). */
  limit: UInt32Schema.nullish(),
});

/** `thread/queue/list` result. */
export const ThreadQueueListResultSchema = z.object({
  data: z.array(QueuedSubmissionSchema),
  nextCursor: z.string().nullable(),
});

/** `thread/queue/update` params: replaces the input. */
export const ThreadQueueUpdateParamsSchema = z.object({
  threadId: z.string(),
  queuedSubmissionId: z.string(),
  input: z.array(UserInputSchema),
  /** Non-empty metadata replaces the stored one; absent or empty keeps it. */
  responsesapiClientMetadata: z.record(z.string(), z.string()).nullish(),
});
export type ThreadQueueUpdateParams = z.infer<typeof ThreadQueueUpdateParamsSchema>;

/** `thread/queue/delete` params. */
export const ThreadQueueDeleteParamsSchema = z.object({ threadId: z.string(), queuedSubmissionId: z.string() });

/** `thread/queue/delete` result. */
export const ThreadQueueDeleteResultSchema = z.object({ deleted: z.boolean() });

/** `thread/queue/reorder` params: every queued id, in the new order. */
export const ThreadQueueReorderParamsSchema = z.object({ threadId: z.string(), queuedSubmissionIds: z.array(z.string()) });

/** `thread/queue/start` params: starts that submission (default: the first) as a turn now. */
export const ThreadQueueStartParamsSchema = z.object({ threadId: z.string(), queuedSubmissionId: z.string().nullish() });

/** `thread/queue/start` result. */
export const ThreadQueueStartResultSchema = z.object({ turn: TurnSchema });

/** Sort keys of `thread/search` (`recency_at` sorts as `updated_at`). */
export const ThreadSearchSortKeySchema = z.enum(['created_at', 'updated_at', 'recency_at']);

/** `thread/search` and `thread/search/stream` params (experimental). */
export const ThreadSearchParamsSchema = z.object({
  /** The text to find (trimmed; at most 65,536 UTF-8 bytes). */
  searchTerm: z.string(),
  cursor: z.string().nullish(),
  /** Page size (default 25, at most 100). */
  limit: UInt32Schema.nullish(),
  sortKey: ThreadSearchSortKeySchema.nullish(),
  sortDirection: PageSortDirectionSchema.nullish(),
  /** Only these sources; absent or `[]` means the interactive ones. */
  sourceKinds: z.array(ThreadSourceKindSchema).nullish(),
  /** `true` searches archived threads only. */
  archived: z.boolean().nullish(),
  /** Accepted; every local thread is the current account's. */
  currentAccountOnly: z.boolean().optional(),
  /** Accepted; Deputy has no attached threads. */
  includeAttachedThreads: z.boolean().optional(),
});
export type ThreadSearchParams = z.infer<typeof ThreadSearchParamsSchema>;

/** One thread found, with the text around the first match. */
export const ThreadSearchResultEntrySchema = z.object({
  thread: ThreadSchema,
  snippet: z.string(),
});
export type ThreadSearchResultEntry = z.infer<typeof ThreadSearchResultEntrySchema>;

/** `thread/search` result. */
export const ThreadSearchResultSchema = z.object({
  data: z.array(ThreadSearchResultEntrySchema),
  nextCursor: z.string().nullable(),
  /** Never set: pages go one way. */
  backwardsCursor: z.string().nullable(),
});
export type ThreadSearchResult = z.infer<typeof ThreadSearchResultSchema>;

/** `thread/search/partial` notification: a batch found so far, for one `thread/search/stream` request. */
export const ThreadSearchPartialNotificationSchema = z.object({
  requestId: PayloadRequestIdSchema,
  data: z.array(ThreadSearchResultEntrySchema),
});

/** `thread/search/cancel` and `thread/search/stream/cancel` params. */
export const ThreadSearchCancelParamsSchema = z.object({ requestId: PayloadRequestIdSchema });

/** `thread/searchOccurrences` params (experimental). */
export const ThreadSearchOccurrencesParamsSchema = z.object({
  threadId: z.string(),
  /** Case-insensitive literal text. */
  searchTerm: z.string(),
  cursor: z.string().nullish(),
  /** Page size (default 25, at most 100). */
  limit: UInt32Schema.nullish(),
});
export type ThreadSearchOccurrencesParams = z.infer<typeof ThreadSearchOccurrencesParamsSchema>;

/** One match inside a thread's messages. */
export const ThreadSearchOccurrenceSchema = z.object({
  turnId: z.string(),
  itemId: z.string(),
  snippet: z.string(),
  /** The match inside `snippet`, in UTF-16 code units, end exclusive. */
  snippetMatchRange: z.object({ start: UInt32Schema, end: UInt32Schema }),
  /** Inclusive `thread/turns/list` cursor of the turn. */
  turnCursor: z.string(),
});
export type ThreadSearchOccurrence = z.infer<typeof ThreadSearchOccurrenceSchema>;

/** `thread/searchOccurrences` result. */
export const ThreadSearchOccurrencesResultSchema = z.object({
  data: z.array(ThreadSearchOccurrenceSchema),
  nextCursor: z.string().nullable(),
});

/** `thread/readState/update` params (experimental). */
export const ThreadReadStateUpdateParamsSchema = z.object({
  threadId: z.string(),
  operation: z.discriminatedUnion('type', [z.object({ type: z.literal('read') }), z.object({ type: z.literal('unread') })]),
  /** The revision the caller saw; a stale one is refused. */
  expectedRevision: z.string(),
});
export type ThreadReadStateUpdateParams = z.infer<typeof ThreadReadStateUpdateParamsSchema>;

/** `thread/readState/update` result. */
export const ThreadReadStateUpdateResultSchema = z.object({ readState: ThreadReadStateSchema });

/** `thread/readState/changed` notification. */
export const ThreadReadStateChangedNotificationSchema = z.object({ threadId: z.string(), readState: ThreadReadStateSchema });

// `ThreadSection` is part of every `Thread` (`Thread.section`), so it lives in shared.ts.
export { ThreadSectionAppearanceSchema, ThreadSectionSchema, type ThreadSection } from './shared.js';

/** `threadSection/list` params. */
export const ThreadSectionListParamsSchema = z.object({ cursor: z.string().nullish(), limit: UInt32Schema.nullish() });

/** `threadSection/list` result. */
export const ThreadSectionListResultSchema = z.object({ data: z.array(ThreadSectionSchema), nextCursor: z.string().nullable() });

/** `threadSection/create` params. */
export const ThreadSectionCreateParamsSchema = z.object({ name: z.string(), appearance: ThreadSectionAppearanceSchema.nullish() });

/** `threadSection/update` params: `appearance` absent keeps it, null clears it. */
export const ThreadSectionUpdateParamsSchema = z.object({
  sectionId: z.string(),
  name: z.string(),
  appearance: ThreadSectionAppearanceSchema.nullish(),
});
export type ThreadSectionUpdateParams = z.infer<typeof ThreadSectionUpdateParamsSchema>;

/** Result carrying one section (`create`, `update`). */
export const ThreadSectionResultSchema = z.object({ section: ThreadSectionSchema });

/** `threadSection/delete` params. */
export const ThreadSectionDeleteParamsSchema = z.object({ sectionId: z.string() });

/** `thread/section/move` params. */
export const ThreadSectionMoveParamsSchema = z.object({
  threadId: z.string(),
  /** Destination section, null to take the thread out of its section. */
  sectionId: z.string().nullable(),
  /** Insert before this thread of the section; absent or null appends. */
  beforeThreadId: z.string().nullish(),
});

/** `thread/section/changed` notification. */
export const ThreadSectionChangedNotificationSchema = z.object({ threadId: z.string(), sectionId: z.string().nullable() });
