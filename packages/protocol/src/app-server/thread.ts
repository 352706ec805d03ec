/**
 * Params and results of the `thread/*` methods: start, resume, fork (all three answer with the
 * same "thread session" result), archive, unarchive, unsubscribe, name/set, rollback, list,
 * loaded/list and read. Params are lenient about unknown fields (the reference ignores them) and
 * strict about spellings; experimental fields are listed in `methods.ts`, not enforced here.
 */
import { z } from 'zod';
import { ReasoningEffortSchema, SandboxModeSchema } from '../core/policies.js';
import {
  ActivePermissionProfileSchema,
  ApprovalsReviewerSchema,
  AskForApprovalSchema,
  PermissionProfileSchema,
  PermissionProfileSelectionSchema,
  PersonalitySchema,
  SandboxPolicySchema,
} from './policies.js';
import { AbsolutePathSchema, UInt32Schema } from './primitives.js';
import { ThreadSchema } from './shared.js';
import { ThreadReadStateSchema } from './thread-read-state.js';

/** The fields of one client function tool. */
const dynamicFunctionFields = {
  /** Tool name (letters, digits, `_`, `-`). */
  name: z.string(),
  /** Description shown to the model. */
  description: z.string(),
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: z.unknown(),
  /** Load the tool only when the model searches for it. */
  deferLoading: z.boolean().optional(),
};

/** A client function tool in the current tagged form (also the member of a namespace). */
export const DynamicToolFunctionSpecSchema = z.object({
  /** Tag. */
  type: z.literal('function'),
  ...dynamicFunctionFields,
});

/** A namespace grouping client function tools (current tagged form). */
export const DynamicToolNamespaceSpecSchema = z.object({
  /** Tag. */
  type: z.literal('namespace'),
  /** Namespace name. */
  name: z.string(),
  /** Description of the namespace, shown to the model. */
  description: z.string(),
  /** Its functions (at least one). */
  tools: z.array(DynamicToolFunctionSpecSchema),
});

/** A client tool in the 0.130 untagged form: a function with an optional flat namespace. */
export const LegacyDynamicToolSpecSchema = z.object({
  /** Absent in this form. */
  type: z.never().optional(),
  ...dynamicFunctionFields,
  /** Namespace, if any. */
  namespace: z.string().nullish(),
});

/**
 * A client-provided tool the model may call on this thread (experimental): the current tagged
 * form (`function` or `namespace`) or the 0.130 untagged form.
 */
export const DynamicToolSpecSchema = z.union([DynamicToolFunctionSpecSchema, DynamicToolNamespaceSpecSchema, LegacyDynamicToolSpecSchema]);
export type DynamicToolSpec = z.infer<typeof DynamicToolSpecSchema>;

/** A remote execution environment selected for a thread or turn (experimental). */
export const TurnEnvironmentSchema = z.object({
  /** Environment id. */
  environmentId: z.string(),
  /** Absolute cwd inside it. */
  cwd: AbsolutePathSchema,
});
export type TurnEnvironment = z.infer<typeof TurnEnvironmentSchema>;

/** Overrides shared by thread/start, resume and fork; each null or absent means "default". */
const threadOverrides = {
  /** Model id, e.g. `gpt-5.5`. */
  model: z.string().nullish(),
  /** Model provider id from config. */
  modelProvider: z.string().nullish(),
  /** Service tier, e.g. `fast`. */
  serviceTier: z.string().nullish(),
  /** Working directory; a relative path is resolved against the server cwd. */
  cwd: z.string().nullish(),
  /** Approval policy. */
  approvalPolicy: AskForApprovalSchema.nullish(),
  /** Who reviews approvals. */
  approvalsReviewer: ApprovalsReviewerSchema.nullish(),
  /** Thread-level sandbox mode, kebab-case (`read-only`, …; camelCase is rejected). */
  sandbox: SandboxModeSchema.nullish(),
  /** Named permission profile (experimental). */
  permissions: PermissionProfileSelectionSchema.nullish(),
  /** Dotted or nested config overrides, e.g. `{"model_reasoning_effort":"high"}`. */
  config: z.record(z.string(), z.unknown()).nullish(),
  /** Replaces the built-in base instructions. */
  baseInstructions: z.string().nullish(),
  /** Extra developer instructions. */
  developerInstructions: z.string().nullish(),
};

/** `thread/start` params; every field is optional. */
export const ThreadStartParamsSchema = z.object({
  ...threadOverrides,
  /** Personality preset. */
  personality: PersonalitySchema.nullish(),
  /** Keep the thread in memory only (`path: null`). */
  ephemeral: z.boolean().nullish(),
  /** Metrics tag. */
  serviceName: z.string().nullish(),
  /** Why the session starts. */
  sessionStartSource: z.enum(['startup', 'clear']).nullish(),
  /**
   * Who starts the thread: 0.130's `user` / `subagent` / `memory_consolidation`, or any string a
   * current client sends (0.171 made it open; the TUI's title threads say `thread_title`).
   */
  threadSource: z.string().nullish(),
  /** Client tools for the model (experimental). */
  dynamicTools: z.array(DynamicToolSpecSchema).nullish(),
  /** Remote environments (experimental). */
  environments: z.array(TurnEnvironmentSchema).nullish(),
  /** Emit raw Responses API items (experimental; default false). */
  experimentalRawEvents: z.boolean().optional(),
  /** Persist extended history for later reads (experimental; default false). */
  persistExtendedHistory: z.boolean().optional(),
  /** Test-only experimental field. */
  mockExperimentalField: z.string().nullish(),
  /** The project the new thread belongs to (0.171, experimental); an unknown id is refused. */
  projectId: z.string().nullish(),
});
export type ThreadStartParams = z.infer<typeof ThreadStartParamsSchema>;

/**
 * The "thread session" result of thread/start, thread/resume and thread/fork: the thread plus the
 * settings it runs with. `permissionProfile` and `activePermissionProfile` are experimental in
 * the schema, but the reference sends them to every client.
 */
export const ThreadSessionResultSchema = z.object({
  /** The thread; `turns` is `[]` for start and filled for resume and fork. */
  thread: ThreadSchema,
  /** Effective model. */
  model: z.string(),
  /** Effective model provider. */
  modelProvider: z.string(),
  /** Effective service tier, null for the default. */
  serviceTier: z.string().nullable(),
  /** Absolute working directory. */
  cwd: AbsolutePathSchema,
  /** Absolute paths of the AGENTS.md-style files in use. */
  instructionSources: z.array(AbsolutePathSchema),
  /** Effective approval policy. */
  approvalPolicy: AskForApprovalSchema,
  /** Effective approvals reviewer. */
  approvalsReviewer: ApprovalsReviewerSchema,
  /** Effective sandbox, always in object form. */
  sandbox: SandboxPolicySchema,
  /** Effective permissions, null when not computed. */
  permissionProfile: PermissionProfileSchema.nullable(),
  /** Named profile in force, null when none. */
  activePermissionProfile: ActivePermissionProfileSchema.nullable(),
  /** Effective reasoning effort, null for the model default. */
  reasoningEffort: ReasoningEffortSchema.nullable(),
});
export type ThreadSessionResult = z.infer<typeof ThreadSessionResultSchema>;

/** `thread/resume` params. */
export const ThreadResumeParamsSchema = z.object({
  /** Thread to resume. */
  threadId: z.string(),
  ...threadOverrides,
  /** Personality preset. */
  personality: PersonalitySchema.nullish(),
  /** Resume from these Responses API items instead of the rollout (experimental). */
  history: z.array(z.record(z.string(), z.unknown())).nullish(),
  /** Resume from this rollout path instead of the id (experimental). */
  path: z.string().nullish(),
  /** Leave `thread.turns` empty (experimental). */
  excludeTurns: z.boolean().optional(),
  /** Persist extended history from now on (experimental; default false). */
  persistExtendedHistory: z.boolean().optional(),
});
export type ThreadResumeParams = z.infer<typeof ThreadResumeParamsSchema>;

/** `thread/fork` params. */
export const ThreadForkParamsSchema = z.object({
  /** Thread to fork. */
  threadId: z.string(),
  ...threadOverrides,
  /** Make the fork ephemeral. */
  ephemeral: z.boolean().optional(),
  /** Who starts the fork (an open string, as on `thread/start`). */
  threadSource: z.string().nullish(),
  /** Fork from this rollout path instead of the id (experimental). */
  path: z.string().nullish(),
  /** Leave `thread.turns` empty (experimental). */
  excludeTurns: z.boolean().optional(),
  /** Persist extended history (experimental; default false). */
  persistExtendedHistory: z.boolean().optional(),
});
export type ThreadForkParams = z.infer<typeof ThreadForkParamsSchema>;

/** Params of methods that only name a thread (archive, unarchive, unsubscribe). */
export const ThreadIdParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
});
export type ThreadIdParams = z.infer<typeof ThreadIdParamsSchema>;

/** Result carrying one thread (`thread/unarchive`, `thread/rollback`, `thread/read`). */
export const ThreadResultSchema = z.object({
  /** The thread. */
  thread: ThreadSchema,
});
export type ThreadResult = z.infer<typeof ThreadResultSchema>;

/** `thread/read` result: the thread and (0.171) its read state; null when it has none (ephemeral). */
export const ThreadReadResultSchema = ThreadResultSchema.extend({
  readState: ThreadReadStateSchema.nullish(),
});
export type ThreadReadResult = z.infer<typeof ThreadReadResultSchema>;

/** `thread/unsubscribe` result. The thread stays loaded either way. */
export const ThreadUnsubscribeResultSchema = z.object({
  /** What happened. */
  status: z.enum(['unsubscribed', 'notSubscribed', 'notLoaded']),
});
export type ThreadUnsubscribeResult = z.infer<typeof ThreadUnsubscribeResultSchema>;

/** `thread/name/set` params. An empty name is refused by the handler. */
export const ThreadSetNameParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The new name. */
  name: z.string(),
});
export type ThreadSetNameParams = z.infer<typeof ThreadSetNameParamsSchema>;

/** `thread/rollback` params: drop the last turns from the thread. */
export const ThreadRollbackParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** How many turns to drop from the end. */
  numTurns: UInt32Schema,
});
export type ThreadRollbackParams = z.infer<typeof ThreadRollbackParamsSchema>;

/** Source kinds `thread/list` can filter on. */
export const ThreadSourceKindSchema = z.enum([
  'cli',
  'vscode',
  'exec',
  'appServer',
  'subAgent',
  'subAgentReview',
  'subAgentCompact',
  'subAgentThreadSpawn',
  'subAgentOther',
  'unknown',
]);
export type ThreadSourceKind = z.infer<typeof ThreadSourceKindSchema>;

/** `thread/list` params; all optional. */
export const ThreadListParamsSchema = z.object({
  /** Opaque cursor from a previous page. */
  cursor: z.string().nullish(),
  /** Page size. */
  limit: UInt32Schema.nullish(),
  /** Sort field (default `created_at`); `recency_at` sorts as `updated_at`; `section_position` needs `sectionId` (0.171). */
  sortKey: z.enum(['created_at', 'updated_at', 'recency_at', 'section_position']).nullish(),
  /** Sort direction (default `desc`). */
  sortDirection: z.enum(['asc', 'desc']).nullish(),
  /** Only these providers. */
  modelProviders: z.array(z.string()).nullish(),
  /** Only these sources; absent or `[]` means the interactive ones (`cli`, `vscode`). */
  sourceKinds: z.array(ThreadSourceKindSchema).nullish(),
  /** `true` lists archived threads only. */
  archived: z.boolean().nullish(),
  /** Exact cwd match, one path or several. */
  cwd: z.union([z.string(), z.array(z.string())]).nullish(),
  /** Substring match on the preview. */
  searchTerm: z.string().nullish(),
  /** Answer from the index only. */
  useStateDbOnly: z.boolean().optional(),
  /** Only this section's threads; null: only threads in no section; absent: all (0.171). */
  sectionId: z.string().nullish(),
  /** Only this project's threads; null: only threads in no project; absent: all (0.171, experimental). */
  projectId: z.string().nullish(),
});
export type ThreadListParams = z.infer<typeof ThreadListParamsSchema>;

/** `thread/list` result. Threads have `turns: []`; unmaterialized threads are not listed. */
export const ThreadListResultSchema = z.object({
  /** The page. */
  data: z.array(ThreadSchema),
  /** Cursor of the next page, null at the end. */
  nextCursor: z.string().nullable(),
  /** Cursor for paging back, null when none. */
  backwardsCursor: z.string().nullable(),
  /** Read state of each listed thread, by id (0.171, experimental). */
  readStates: z.record(z.string(), ThreadReadStateSchema).nullish(),
});
export type ThreadListResult = z.infer<typeof ThreadListResultSchema>;

/** `thread/loaded/list` params. */
export const ThreadLoadedListParamsSchema = z.object({
  /** The last id of the previous page. */
  cursor: z.string().nullish(),
  /** Page size. */
  limit: UInt32Schema.nullish(),
});
export type ThreadLoadedListParams = z.infer<typeof ThreadLoadedListParamsSchema>;

/** `thread/loaded/list` result. */
export const ThreadLoadedListResultSchema = z.object({
  /** Ids of the threads loaded in this process. */
  data: z.array(z.string()),
  /** Cursor of the next page, null at the end. */
  nextCursor: z.string().nullable(),
});
export type ThreadLoadedListResult = z.infer<typeof ThreadLoadedListResultSchema>;

/** `thread/read` params. */
export const ThreadReadParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** Fill `turns` (synthetic item ids; fails before the first turn and for ephemeral threads). */
  includeTurns: z.boolean().optional(),
});
export type ThreadReadParams = z.infer<typeof ThreadReadParamsSchema>;
