/**
 * `thread/timeline/list` (Codex 0.171, experimental; docs/app-server.md "0.171 additions"): a
 * thread's history as one list in rollout order, each entry with its running `position`: a
 * `turnStarted` boundary, the turn's items, and a `turnCompleted` boundary once the turn ended.
 * The reference's `realtime` entries are never sent (Deputy has no realtime sessions). The turn
 * boundaries use snake_case fields, as the reference does.
 */
import { z } from 'zod';
import { ThreadItemSchema } from './items.js';
import { Int64Schema, UInt32Schema, UIntSchema } from './primitives.js';
import { TurnErrorSchema, TurnStatusSchema } from './shared.js';

/** `thread/timeline/list` params. */
export const ThreadTimelineListParamsSchema = z.object({
  threadId: z.string(),
  /** A `nextCursor` this server returned. */
  cursor: z.string().nullish(),
  limit: UInt32Schema.nullish(),
});

/** One timeline entry. Times are Unix seconds. */
export const ThreadTimelineEntrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('turnStarted'), position: UIntSchema, turn_id: z.string(), started_at: Int64Schema.nullish() }),
  z.object({ type: z.literal('item'), position: UIntSchema, turnId: z.string(), item: ThreadItemSchema }),
  z.object({
    type: z.literal('turnCompleted'),
    position: UIntSchema,
    turn_id: z.string(),
    status: TurnStatusSchema,
    started_at: Int64Schema.nullish(),
    completed_at: Int64Schema.nullish(),
    duration_ms: Int64Schema.nullish(),
    error: TurnErrorSchema.nullish(),
  }),
]);
export type ThreadTimelineEntry = z.infer<typeof ThreadTimelineEntrySchema>;

/** `thread/timeline/list` result. */
export const ThreadTimelineListResultSchema = z.object({
  data: z.array(ThreadTimelineEntrySchema),
  nextCursor: z.string().nullable(),
  /** Always null: Deputy has no realtime sessions. */
  activeRealtimeSessionAtPageStart: z.string().nullable(),
});
