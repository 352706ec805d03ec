/**
 * EngineEvent: everything the engine tells a front door, as one zod discriminated union on
 * `type`. Every event carries `threadId`, `turnId` (null for thread-level events) and a
 * per-thread monotonic `seq`. No wire names live here; each app projects these to its own wire.
 */
import { z } from 'zod';
import { FileUpdateSchema, PlanStepSchema, ThreadItemSchema } from './items.js';
import { ReviewDecisionSchema } from './policies.js';

/** Token counts of one model request, or of a sum of them. */
export const TokenUsageSchema = z.object({
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  reasoningOutputTokens: z.number().int(),
  totalTokens: z.number().int(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** Usage of a thread: cumulative `total`, the `last` request, and the model's window. */
export const ThreadTokenUsageSchema = z.object({
  total: TokenUsageSchema,
  last: TokenUsageSchema,
  modelContextWindow: z.number().int().nullable(),
});
export type ThreadTokenUsage = z.infer<typeof ThreadTokenUsageSchema>;

/** Why a turn failed, in a form every front door can show (codes follow Codex `CodexErrorInfo`). */
export const TurnErrorSchema = z.object({
  message: z.string(),
  code: z.enum([
    'contextWindowExceeded',
    'usageLimitExceeded',
    'serverOverloaded',
    'internalServerError',
    'unauthorized',
    'badRequest',
    'sandboxError',
    'connectionFailed',
    'other',
  ]),
  httpStatus: z.number().int().nullable().default(null),
});
export type TurnError = z.infer<typeof TurnErrorSchema>;

/** Final state of a turn. */
export const TurnStatusSchema = z.enum(['inProgress', 'completed', 'interrupted', 'failed']);
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

/** A turn as reported in events (items travel separately). Times are Unix milliseconds. */
export const TurnInfoSchema = z.object({
  id: z.string(),
  status: TurnStatusSchema,
  error: TurnErrorSchema.nullable(),
  startedAtMs: z.number().int(),
  completedAtMs: z.number().int().nullable(),
  /** The text of the turn's last agent message, if any. */
  lastAgentMessage: z.string().nullable(),
  /**
   * The first turn of the chain of work that led to this one: the turn itself unless its starter
   * named another. Absent in rollouts written before it was recorded.
   */
  rootTurnId: z.string().nullish(),
});
export type TurnInfo = z.infer<typeof TurnInfoSchema>;

/** A command the engine wants to run and needs a decision on. */
export const ExecApprovalRequestSchema = z.object({
  kind: z.literal('exec'),
  callId: z.string(),
  command: z.array(z.string()),
  cwd: z.string(),
  reason: z.string().nullable(),
  /** A command prefix that "approve and remember" would allow from now on. */
  proposedPrefixRule: z.array(z.string()).nullable(),
  /** True when the command already failed in the sandbox and this asks to rerun it without. */
  isSandboxRetry: z.boolean(),
});
export type ExecApprovalRequest = z.infer<typeof ExecApprovalRequestSchema>;

/** A patch the engine wants to apply and needs a decision on. */
export const PatchApprovalRequestSchema = z.object({
  kind: z.literal('patch'),
  callId: z.string(),
  changes: z.array(FileUpdateSchema),
  reason: z.string().nullable(),
  /** A directory outside the writable roots the patch needs write access to, if any. */
  grantRoot: z.string().nullable(),
});
export type PatchApprovalRequest = z.infer<typeof PatchApprovalRequestSchema>;

/**
 * An MCP tool call the engine wants to make and needs a decision on. Asked through the
 * ApprovalPort's optional `requestMcpToolCall`; a port without it declines.
 */
export const McpToolCallApprovalRequestSchema = z.object({
  kind: z.literal('mcpToolCall'),
  callId: z.string(),
  /** The configured server name. */
  server: z.string(),
  /** The raw MCP tool name. */
  tool: z.string(),
  /** The parsed arguments. */
  arguments: z.unknown(),
  /** `Allow the <server> MCP server to run tool "<tool>"?` */
  message: z.string(),
  toolTitle: z.string().nullable(),
  toolDescription: z.string().nullable(),
  /** False for `approval_mode = "prompt"`: no "remember" options. */
  canRemember: z.boolean(),
});
export type McpToolCallApprovalRequest = z.infer<typeof McpToolCallApprovalRequestSchema>;

/**
 * An MCP server's `elicitation/create` for the user (server-initiated, during a call or not).
 * `form`: `requestedSchema` is the server's schema normalised to a flat object of primitive
 * properties; `url`: the user is sent to `url`.
 */
export const McpElicitationRequestSchema = z.object({
  kind: z.literal('mcpElicitation'),
  /** The configured server name. */
  server: z.string(),
  message: z.string(),
  mode: z.enum(['form', 'url']),
  requestedSchema: z.record(z.string(), z.unknown()).nullable(),
  url: z.string().nullable(),
  /** The server's id for a url elicitation. */
  elicitationId: z.string().nullable(),
});
export type McpElicitationRequest = z.infer<typeof McpElicitationRequestSchema>;

/** The user's answer to an elicitation: the MCP `ElicitResult`. */
export const McpElicitationResponseSchema = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).nullable(),
});
export type McpElicitationResponse = z.infer<typeof McpElicitationResponseSchema>;

/** Start-up status of a thread's MCP server. */
export const McpServerStartupStatusSchema = z.enum(['starting', 'ready', 'failed', 'cancelled']);

export const ApprovalRequestSchema = z.discriminatedUnion('kind', [ExecApprovalRequestSchema, PatchApprovalRequestSchema]);
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** The run of one hook: what ran, for which event, and how it ended (the app-server's `HookRunSummary`). */
export const HookRunSchema = z.object({
  id: z.string(),
  eventName: z.enum(['preToolUse', 'permissionRequest', 'postToolUse', 'preCompact', 'postCompact', 'sessionStart', 'userPromptSubmit', 'stop']),
  handlerType: z.enum(['command', 'prompt', 'agent']),
  executionMode: z.enum(['sync', 'async']),
  /** `thread` for SessionStart, `turn` for the rest. */
  scope: z.enum(['thread', 'turn']),
  source: z.enum(['user', 'project', 'sessionFlags']),
  sourcePath: z.string(),
  displayOrder: z.number().int(),
  status: z.enum(['running', 'completed', 'failed', 'blocked', 'stopped']),
  statusMessage: z.string().nullable(),
  startedAtMs: z.number().int(),
  completedAtMs: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  entries: z.array(z.object({ kind: z.enum(['warning', 'stop', 'feedback', 'context', 'error']), text: z.string() })),
});
export type HookRun = z.infer<typeof HookRunSchema>;

const base = { threadId: z.string(), turnId: z.string().nullable(), seq: z.number().int() };

/** The engine's event stream. */
export const EngineEventSchema = z.discriminatedUnion('type', [
  /** A turn began. `model` and `modelContextWindow` describe what it runs on. */
  z.object({ ...base, type: z.literal('turn.started'), turn: TurnInfoSchema, model: z.string(), modelContextWindow: z.number().int().nullable() }),
  /** An item appeared (in progress for tools and streamed messages). */
  z.object({ ...base, type: z.literal('item.started'), item: ThreadItemSchema, atMs: z.number().int() }),
  /** Streamed text for an item. */
  z.object({
    ...base,
    type: z.literal('item.delta'),
    itemId: z.string(),
    kind: z.enum(['agentMessage', 'reasoningSummary', 'reasoningContent', 'commandOutput']),
    delta: z.string(),
    /** For commandOutput: which stream (a PTY reports stdout). */
    stream: z.enum(['stdout', 'stderr']).optional(),
    /** For reasoning summaries: which summary part. */
    index: z.number().int().optional(),
  }),
  /** An item reached its final state; it is persisted before this event is published. */
  z.object({ ...base, type: z.literal('item.completed'), item: ThreadItemSchema, atMs: z.number().int() }),
  /** The engine waits for a decision from the front door. */
  z.object({ ...base, type: z.literal('approval.requested'), approvalId: z.string(), request: ApprovalRequestSchema }),
  /** A pending approval got its answer (or timed out, or was aborted). */
  z.object({ ...base, type: z.literal('approval.resolved'), approvalId: z.string(), decision: ReviewDecisionSchema }),
  /** The model updated its plan. */
  z.object({ ...base, type: z.literal('plan.updated'), explanation: z.string().nullable(), plan: z.array(PlanStepSchema) }),
  /** The aggregate unified diff of everything the turn changed so far. */
  z.object({ ...base, type: z.literal('diff.updated'), diff: z.string() }),
  /** Token usage after a model request. */
  z.object({ ...base, type: z.literal('tokenUsage.updated'), usage: ThreadTokenUsageSchema }),
  /** Something the user should know that does not stop the turn. */
  z.object({ ...base, type: z.literal('warning'), message: z.string() }),
  /** A transient failure; `willRetry` says whether the engine tries again. */
  z.object({ ...base, type: z.literal('error'), error: TurnErrorSchema, willRetry: z.boolean() }),
  /** A configured MCP server of the thread changed status (`error` set when failed). */
  z.object({ ...base, type: z.literal('mcp.serverStatus'), server: z.string(), status: McpServerStartupStatusSchema, error: z.string().nullable() }),
  /** Progress an MCP server reported for a running tool call (`itemId` is its mcpToolCall item); at most 10 a second per item. */
  z.object({
    ...base,
    type: z.literal('mcp.toolCallProgress'),
    itemId: z.string(),
    progress: z.number(),
    total: z.number().nullable(),
    message: z.string().nullable(),
  }),
  /** A raw Responses API item that went to or came from the model (for Codex's raw_response_item). */
  z.object({ ...base, type: z.literal('model.item'), item: z.record(z.string(), z.unknown()) }),
  /** A hook started running (`run.status` is `running`). */
  z.object({ ...base, type: z.literal('hook.started'), run: HookRunSchema }),
  /** A hook ended: completed, failed, blocked or stopped. */
  z.object({ ...base, type: z.literal('hook.completed'), run: HookRunSchema }),
  /** The turn ended: completed, interrupted or failed. */
  z.object({ ...base, type: z.literal('turn.completed'), turn: TurnInfoSchema }),
]);
export type EngineEvent = z.infer<typeof EngineEventSchema>;
export type EngineEventType = EngineEvent['type'];
/** An event before the thread stamps it with `threadId`, `turnId` and `seq`. */
export type EngineEventBody = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'threadId' | 'turnId' | 'seq'> : never) : never;
