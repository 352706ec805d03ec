/**
 * Params of the server→client notifications we send. The method table in `methods.ts` maps wire
 * names to these schemas, and says in its `audience` column who receives each one (every
 * initialized connection, the thread's subscribers, or one connection). The payloads of
 * `command/exec/outputDelta` and `fs/changed` live next to their methods in `command.ts` and
 * `fs.ts`.
 */
import { z } from 'zod';
import { AuthModeSchema, PlanTypeSchema, RateLimitSnapshotSchema } from './account.js';
import { ThreadItemSchema } from './items.js';
import { Int64Schema, PayloadRequestIdSchema, UIntSchema } from './primitives.js';
import { ThreadSchema, ThreadStatusSchema, ThreadTokenUsageSchema, TurnErrorSchema, TurnSchema } from './shared.js';

/** Payload naming only a thread (`thread/archived`, `thread/unarchived`, `thread/closed`). */
export const ThreadIdNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
});
export type ThreadIdNotification = z.infer<typeof ThreadIdNotificationSchema>;

/** `thread/started`, after the thread/start or thread/fork response. */
export const ThreadStartedNotificationSchema = z.object({
  /** The new thread. */
  thread: ThreadSchema,
});
export type ThreadStartedNotification = z.infer<typeof ThreadStartedNotificationSchema>;

/** `thread/status/changed`. */
export const ThreadStatusChangedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** Its new status. */
  status: ThreadStatusSchema,
});
export type ThreadStatusChangedNotification = z.infer<typeof ThreadStatusChangedNotificationSchema>;

/** `thread/name/updated`. */
export const ThreadNameUpdatedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The new name, null when cleared. */
  threadName: z.string().nullable(),
});
export type ThreadNameUpdatedNotification = z.infer<typeof ThreadNameUpdatedNotificationSchema>;

/** `thread/tokenUsage/updated`: cumulative `total` and the `last` request. */
export const ThreadTokenUsageUpdatedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn that used the tokens. */
  turnId: z.string(),
  /** The usage. */
  tokenUsage: ThreadTokenUsageSchema,
});
export type ThreadTokenUsageUpdatedNotification = z.infer<typeof ThreadTokenUsageUpdatedNotificationSchema>;

/**
 * `turn/started` and `turn/completed`. `turn.items` is `[]`; `turn/completed`
 * carries the final status, times and, on failure, the error.
 */
export const TurnNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turn: TurnSchema,
});
export type TurnNotification = z.infer<typeof TurnNotificationSchema>;

/** `turn/diff/updated`: the aggregated unified diff of the whole turn so far. */
export const TurnDiffUpdatedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** Git-style unified diff. */
  diff: z.string(),
});
export type TurnDiffUpdatedNotification = z.infer<typeof TurnDiffUpdatedNotificationSchema>;

/** One step of the plan; note the wire's camelCase `inProgress`. */
export const TurnPlanStepSchema = z.object({
  /** Step text. */
  step: z.string(),
  /** Step state. */
  status: z.enum(['pending', 'inProgress', 'completed']),
});
export type TurnPlanStep = z.infer<typeof TurnPlanStepSchema>;

/** `turn/plan/updated`, from the plan tool; no item is created. */
export const TurnPlanUpdatedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** Why the plan changed, null when not given. */
  explanation: z.string().nullable(),
  /** The whole plan. */
  plan: z.array(TurnPlanStepSchema),
});
export type TurnPlanUpdatedNotification = z.infer<typeof TurnPlanUpdatedNotificationSchema>;

/** `item/started`. */
export const ItemStartedNotificationSchema = z.object({
  /** The item in its initial state. */
  item: ThreadItemSchema,
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** Start time, Unix ms. */
  startedAtMs: Int64Schema,
});
export type ItemStartedNotification = z.infer<typeof ItemStartedNotificationSchema>;

/** `item/completed`. */
export const ItemCompletedNotificationSchema = z.object({
  /** The item in its final state. */
  item: ThreadItemSchema,
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** Completion time, Unix ms. */
  completedAtMs: Int64Schema,
});
export type ItemCompletedNotification = z.infer<typeof ItemCompletedNotificationSchema>;

/**
 * A text delta of an item (`item/agentMessage/delta`, `item/plan/delta`,
 * `item/commandExecution/outputDelta`, `item/fileChange/outputDelta`). The deltas of
 * an agent message concatenate to its final `text`.
 */
export const ItemDeltaNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** The item. */
  itemId: z.string(),
  /** The new text. */
  delta: z.string(),
});
export type ItemDeltaNotification = z.infer<typeof ItemDeltaNotificationSchema>;

/** `item/reasoning/summaryTextDelta`. */
export const ReasoningSummaryTextDeltaNotificationSchema = ItemDeltaNotificationSchema.extend({
  /** Which summary part the text belongs to. */
  summaryIndex: Int64Schema,
});
export type ReasoningSummaryTextDeltaNotification = z.infer<typeof ReasoningSummaryTextDeltaNotificationSchema>;

/** `item/reasoning/summaryPartAdded`: a new summary part begins. */
export const ReasoningSummaryPartAddedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** The reasoning item. */
  itemId: z.string(),
  /** Index of the new part. */
  summaryIndex: Int64Schema,
});
export type ReasoningSummaryPartAddedNotification = z.infer<typeof ReasoningSummaryPartAddedNotificationSchema>;

/** `item/reasoning/textDelta`: raw reasoning text. */
export const ReasoningTextDeltaNotificationSchema = ItemDeltaNotificationSchema.extend({
  /** Which content part the text belongs to. */
  contentIndex: Int64Schema,
});
export type ReasoningTextDeltaNotification = z.infer<typeof ReasoningTextDeltaNotificationSchema>;

/**
 * `serverRequest/resolved`: a server→client request was answered (by any
 * connection) or cleared; later answers are ignored.
 */
export const ServerRequestResolvedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The resolved request's id on the receiving connection. */
  requestId: PayloadRequestIdSchema,
});
export type ServerRequestResolvedNotification = z.infer<typeof ServerRequestResolvedNotificationSchema>;

/**
 * `error`: a turn error. With `willRetry: false` the turn then completes `failed`;
 * with `true` the error is transient and the turn continues.
 */
export const ErrorNotificationSchema = z.object({
  /** The error. */
  error: TurnErrorSchema,
  /** Whether the server retries. */
  willRetry: z.boolean(),
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
});
export type ErrorNotification = z.infer<typeof ErrorNotificationSchema>;

/** `warning`: something the user should know that does not stop the turn. */
export const WarningNotificationSchema = z.object({
  /** The thread it concerns, null when global. */
  threadId: z.string().nullable(),
  /** Text shown as a ⚠ line. */
  message: z.string(),
});
export type WarningNotification = z.infer<typeof WarningNotificationSchema>;

/** A line/column position in a config file. */
const TextPositionSchema = z.object({ /** Line. */ line: UIntSchema, /** Column. */ column: UIntSchema });

/** `configWarning`: a problem found in the config at start-up (rendered as a ⚠ line). */
export const ConfigWarningNotificationSchema = z.object({
  /** One-line summary. */
  summary: z.string(),
  /** More detail, null when none. */
  details: z.string().nullable(),
  /** The file, when the warning is about one. */
  path: z.string().nullish(),
  /** The range in that file, when known. */
  range: z.object({ /** Start. */ start: TextPositionSchema, /** End. */ end: TextPositionSchema }).nullish(),
});
export type ConfigWarningNotification = z.infer<typeof ConfigWarningNotificationSchema>;

/** `deprecationNotice`: a deprecated setting or behaviour is in use. */
export const DeprecationNoticeNotificationSchema = z.object({
  /** One-line summary. */
  summary: z.string(),
  /** More detail, null when none. */
  details: z.string().nullable(),
});
export type DeprecationNoticeNotification = z.infer<typeof DeprecationNoticeNotificationSchema>;

/** `thread/compacted`: the history was summarised. */
export const ContextCompactedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn during which it happened. */
  turnId: z.string(),
});
export type ContextCompactedNotification = z.infer<typeof ContextCompactedNotificationSchema>;

/** `model/rerouted`: the request went to another model. */
export const ModelReroutedNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** Requested model. */
  fromModel: z.string(),
  /** Model actually used. */
  toModel: z.string(),
  /** Why. */
  reason: z.enum(['highRiskCyberActivity']),
});
export type ModelReroutedNotification = z.infer<typeof ModelReroutedNotificationSchema>;

/** `account/updated`, after a login or logout. */
export const AccountUpdatedNotificationSchema = z.object({
  /** New auth mode, null when signed out. */
  authMode: AuthModeSchema.nullable(),
  /** Plan, null when unknown. */
  planType: PlanTypeSchema.nullable(),
});
export type AccountUpdatedNotification = z.infer<typeof AccountUpdatedNotificationSchema>;

/** `account/login/completed`. */
export const AccountLoginCompletedNotificationSchema = z.object({
  /** The login, null for API-key logins. */
  loginId: z.string().nullable(),
  /** Whether it succeeded. */
  success: z.boolean(),
  /** Why it failed, null on success. */
  error: z.string().nullable(),
});
export type AccountLoginCompletedNotification = z.infer<typeof AccountLoginCompletedNotificationSchema>;

/** `account/rateLimits/updated`: limits from the latest upstream response headers. */
export const AccountRateLimitsUpdatedNotificationSchema = z.object({
  /** The snapshot. */
  rateLimits: RateLimitSnapshotSchema,
});
export type AccountRateLimitsUpdatedNotification = z.infer<typeof AccountRateLimitsUpdatedNotificationSchema>;

/** `remoteControl/status/changed`: sent to each connection once, right after its initialize. */
export const RemoteControlStatusChangedNotificationSchema = z.object({
  /** Connection state of remote control. */
  status: z.enum(['disabled', 'connecting', 'connected', 'errored']),
  /** Remote environment id, null when none. */
  environmentId: z.string().nullable(),
  /** This machine's name (0.171, required there). */
  serverName: z.string(),
  /** A stable id of this installation (0.171, required there). */
  installationId: z.string(),
});
export type RemoteControlStatusChangedNotification = z.infer<typeof RemoteControlStatusChangedNotificationSchema>;

/** `skills/changed`: skills on disk changed; clients re-run `skills/list`. */
export const SkillsChangedNotificationSchema = z.object({});
export type SkillsChangedNotification = z.infer<typeof SkillsChangedNotificationSchema>;
