/**
 * The nouns most app-server messages carry: `Thread`, `ThreadStatus`, `Turn`, `TurnError` with
 * its `CodexErrorInfo`, the session source and `ThreadTokenUsage`. Times follow the reference:
 * `createdAt`/`updatedAt`/`startedAt`/`completedAt` are Unix seconds, `*AtMs` are milliseconds.
 * Output fields the reference always sends (null when empty) are required. Items live in
 * `items.ts`, policies in `policies.ts`; this module holds no method names.
 */
import { z } from 'zod';
import { ThreadTokenUsageSchema as CoreThreadTokenUsageSchema, TurnStatusSchema as CoreTurnStatusSchema } from '../core/events.js';
import { ThreadItemSchema } from './items.js';
import { AbsolutePathSchema, Int64Schema, UInt16Schema } from './primitives.js';

/** What a thread is waiting for while it is active. */
export const ThreadActiveFlagSchema = z.enum(['waitingOnApproval', 'waitingOnUserInput']);
export type ThreadActiveFlag = z.infer<typeof ThreadActiveFlagSchema>;

/** Whether a thread is loaded in this process and what it is doing. */
export const ThreadStatusSchema = z.discriminatedUnion('type', [
  z.object({ /** Stored but not loaded in this process. */ type: z.literal('notLoaded') }),
  z.object({ /** Loaded, no turn running. */ type: z.literal('idle') }),
  z.object({ /** The last turn failed; no `idle` follows the failure. */ type: z.literal('systemError') }),
  z.object({
    /** A turn is running. */
    type: z.literal('active'),
    /** What it waits for; `[]` while it works. */
    activeFlags: z.array(ThreadActiveFlagSchema),
  }),
]);
export type ThreadStatus = z.infer<typeof ThreadStatusSchema>;

/** Final or current state of a turn (`inProgress`, `completed`, `interrupted`, `failed`). */
export const TurnStatusSchema = CoreTurnStatusSchema;

/** How much of a turn's items a response carries. */
export const TurnItemsViewSchema = z.enum(['notLoaded', 'summary', 'full']);
export type TurnItemsView = z.infer<typeof TurnItemsViewSchema>;

/** The HTTP status of a failed upstream call, when there was one. */
const HttpStatusDetailSchema = z.object({
  /** HTTP status code, null when the connection failed before a response. */
  httpStatusCode: UInt16Schema.nullish(),
});

/**
 * Machine-readable error category: a plain string, or a single-key object for errors with
 * details (`{httpConnectionFailed:{httpStatusCode}}`, `{activeTurnNotSteerable:{turnKind}}`, …).
 */
export const CodexErrorInfoSchema = z.union([
  z.enum([
    'contextWindowExceeded',
    'usageLimitExceeded',
    'serverOverloaded',
    'cyberPolicy',
    'internalServerError',
    'unauthorized',
    'badRequest',
    'threadRollbackFailed',
    'sandboxError',
    'other',
  ]),
  z.strictObject({ /** Could not connect to the model API. */ httpConnectionFailed: HttpStatusDetailSchema }),
  z.strictObject({ /** The response stream could not be opened. */ responseStreamConnectionFailed: HttpStatusDetailSchema }),
  z.strictObject({ /** The response stream broke off. */ responseStreamDisconnected: HttpStatusDetailSchema }),
  z.strictObject({ /** Retries were exhausted. */ responseTooManyFailedAttempts: HttpStatusDetailSchema }),
  z.strictObject({
    /** `turn/steer` hit a turn that cannot be steered. */
    activeTurnNotSteerable: z.object({
      /** Which kind of turn is running. */
      turnKind: z.enum(['review', 'compact']),
    }),
  }),
]);
export type CodexErrorInfo = z.infer<typeof CodexErrorInfoSchema>;

/** Why a turn failed (also the `error` of the `error` notification). */
export const TurnErrorSchema = z.object({
  /** Human-readable message. */
  message: z.string(),
  /** Category, null when unknown. */
  codexErrorInfo: CodexErrorInfoSchema.nullable(),
  /** More detail for the user, null when none. */
  additionalDetails: z.string().nullable(),
});
export type TurnError = z.infer<typeof TurnErrorSchema>;

/**
 * One turn. In `turn/start` results and `turn/started`/`turn/completed` notifications `items` is
 * `[]` and `itemsView` is `notLoaded`; resume, fork and `thread/read includeTurns` fill them.
 */
export const TurnSchema = z.object({
  /** Turn id (UUIDv7). */
  id: z.string(),
  /** The turn's items, when loaded. */
  items: z.array(ThreadItemSchema),
  /** How much of `items` is present. */
  itemsView: TurnItemsViewSchema,
  /** Current or final state. */
  status: TurnStatusSchema,
  /** Why it failed; null unless `status` is `failed`. */
  error: TurnErrorSchema.nullable(),
  /** Start time in Unix seconds; null in the `turn/start` result. */
  startedAt: Int64Schema.nullable(),
  /** End time in Unix seconds; null while running. */
  completedAt: Int64Schema.nullable(),
  /** Duration in ms; null while running. */
  durationMs: Int64Schema.nullable(),
  /**
   * The first turn of the chain of work that led to this one (0.171): the turn itself unless its
   * `turn/start` named a `rootTurnId`; null for turns recorded before Deputy kept it.
   */
  rootTurnId: z.string().nullish(),
});
export type Turn = z.infer<typeof TurnSchema>;

/** The kind of a sub-agent session. */
export const SubAgentSourceSchema = z.union([
  z.enum(['review', 'compact', 'memory_consolidation']),
  z.strictObject({
    /** Spawned by another thread's agent. */
    thread_spawn: z.object({
      /** The spawning thread. */
      parent_thread_id: z.string(),
      /** Nesting depth. */
      depth: z.number().int(),
      /** Agent path, if any. */
      agent_path: z.string().nullish(),
      /** Agent nickname, if any. */
      agent_nickname: z.string().nullish(),
      /** Agent role, if any. */
      agent_role: z.string().nullish(),
    }),
  }),
  z.strictObject({ /** Another sub-agent kind. */ other: z.string() }),
]);

/**
 * Which front end created a session. Threads made through the app-server report `vscode` in the
 * reference.
 */
export const SessionSourceSchema = z.union([
  z.enum(['cli', 'vscode', 'exec', 'appServer', 'unknown']),
  z.strictObject({ /** A custom source name. */ custom: z.string() }),
  z.strictObject({ /** A sub-agent session. */ subAgent: SubAgentSourceSchema }),
]);
export type SessionSource = z.infer<typeof SessionSourceSchema>;

/** Who started a thread. */
export const ThreadSourceSchema = z.enum(['user', 'subagent', 'memory_consolidation']);
export type ThreadSource = z.infer<typeof ThreadSourceSchema>;

/** Git state of the thread's cwd when it started. */
export const GitInfoSchema = z.object({
  /** HEAD commit, if known. */
  sha: z.string().nullish(),
  /** Current branch, if any. */
  branch: z.string().nullish(),
  /** `origin` URL, if any. */
  originUrl: z.string().nullish(),
});
export type GitInfo = z.infer<typeof GitInfoSchema>;

/** A conversation. Field order follows the reference's emission order. */
/** How a section looks in clients (0.171). */
export const ThreadSectionAppearanceSchema = z.object({ color: z.string().nullish(), icon: z.string().nullish() });

/** A user-defined group of threads (0.171). */
export const ThreadSectionSchema = z.object({
  /** Server-assigned UUIDv7, stable across renames. */
  id: z.string(),
  name: z.string(),
  appearance: ThreadSectionAppearanceSchema.nullable(),
});
export type ThreadSection = z.infer<typeof ThreadSectionSchema>;

export const ThreadSchema = z.object({
  /** Thread id (UUIDv7). */
  id: z.string(),
  /** Equal to `id`. */
  sessionId: z.string(),
  /** The thread this one was forked from; null otherwise (always null in `thread/list`). */
  forkedFromId: z.string().nullable(),
  /** Text of the first user message; `""` before it. */
  preview: z.string(),
  /** In memory only, never written. */
  ephemeral: z.boolean(),
  /** Model provider id, e.g. `openai`. */
  modelProvider: z.string(),
  /** Creation time, Unix seconds. */
  createdAt: Int64Schema,
  /** Last update, Unix seconds. */
  updatedAt: Int64Schema,
  /** Load state in this process. */
  status: ThreadStatusSchema,
  /** Absolute rollout path; null for ephemeral threads. Present before the file exists. */
  path: z.string().nullable(),
  /** Absolute working directory. */
  cwd: AbsolutePathSchema,
  /** Version of the server that created it, e.g. `0.130.0`. */
  cliVersion: z.string(),
  /** Which front end created it. */
  source: SessionSourceSchema,
  /** Who started it, null when unknown. */
  threadSource: ThreadSourceSchema.nullable(),
  /** Sub-agent nickname, null for normal threads. */
  agentNickname: z.string().nullable(),
  /** Sub-agent role, null for normal threads. */
  agentRole: z.string().nullable(),
  /** Git state at start, null outside a repository. */
  gitInfo: GitInfoSchema.nullable(),
  /** Name set by `thread/name/set`, null until then. */
  name: z.string().nullable(),
  /** Turns, filled only where a method says so; `[]` otherwise. */
  turns: z.array(TurnSchema),
  /** Project the thread belongs to (0.171, required there); null when it belongs to none. */
  projectId: z.string().nullable().default(null),
  /** Current model when loaded, else the latest persisted one (0.171). */
  model: z.string().nullish(),
  /** Current reasoning effort when known (0.171; any non-empty string there). */
  reasoningEffort: z.string().min(1).nullish(),
  /** Unix seconds used for recency ordering (0.171); Deputy's is `updatedAt`. */
  recencyAt: Int64Schema.nullish(),
  /** The section the thread is in (`thread/section/move`), null when none (0.171). */
  section: ThreadSectionSchema.nullish(),
  /** Unix seconds when the thread entered its current section, null when none (0.171). */
  sectionEnteredAt: Int64Schema.nullish(),
});
export type Thread = z.infer<typeof ThreadSchema>;

/**
 * Token usage of a thread: cumulative `total`, the `last` request and the model's context window
 * (null when unknown). Same shape as the engine's usage.
 */
export const ThreadTokenUsageSchema = CoreThreadTokenUsageSchema;
export type ThreadTokenUsage = z.infer<typeof ThreadTokenUsageSchema>;
