/**
 * User input and thread items on the app-server wire (`UserInput`, `ThreadItem` with every item
 * kind of the 0.130 schema, and their parts). Item ids: userMessage gets a random UUID,
 * agentMessage the model's output id, tool items the model's `call_id`; items read back from a
 * rollout get synthetic ids `item-1`, `item-2`, … The reference always sends every field of an
 * item (null when empty), so output fields are required here. No projection logic lives here.
 */
import { z } from 'zod';
import { FileChangeKindSchema, FileUpdateSchema, TextElementSchema } from '../core/items.js';
import { ReasoningEffortSchema } from '../core/policies.js';
import { AbsolutePathSchema, Int32Schema, Int64Schema, UInt32Schema } from './primitives.js';

/**
 * One piece of user input (`turn/start.input[]`, `turn/steer.input[]`, userMessage `content[]`).
 * Note the snake_case `text_elements`; the server echoes `text_elements: []` when it was absent.
 */
export const UserInputSchema = z.discriminatedUnion('type', [
  z.object({
    /** Plain text. */
    type: z.literal('text'),
    /** The text. */
    text: z.string(),
    /** Byte ranges the client rendered as placeholders (default `[]`). */
    text_elements: z.array(TextElementSchema).optional(),
  }),
  z.object({
    /** An image by URL (http(s) or data URL). */
    type: z.literal('image'),
    /** The image URL. */
    url: z.string(),
  }),
  z.object({
    /** An image file on the server's filesystem. */
    type: z.literal('localImage'),
    /** Its path. */
    path: z.string(),
  }),
  z.object({
    /** A skill the user invoked explicitly. */
    type: z.literal('skill'),
    /** Skill name. */
    name: z.string(),
    /** Path of its SKILL.md. */
    path: z.string(),
  }),
  z.object({
    /** A mention of an app or plugin. */
    type: z.literal('mention'),
    /** Display name. */
    name: z.string(),
    /** Target, e.g. `app://…` or `plugin://…`. */
    path: z.string(),
  }),
]);

/** Why a current client's input part is refused, or null when `UserInputSchema` may judge it. */
function refusedInput(part: unknown): string | null {
  if (typeof part !== 'object' || part === null) return null;
  const { type, url, fileId } = part as Record<string, unknown>;
  if (type === 'image' && fileId !== undefined && url === undefined) {
    return 'image input by `fileId` (an uploaded file) is not supported by this server; send the image as `url` or `localImage`';
  }
  if (type === 'audio' || type === 'localAudio') return `\`${type}\` input is not supported by this server`;
  return null;
}

/**
 * A user input part of `turn/start` and `turn/steer`: `UserInputSchema`, except that the parts
 * only current clients send and Deputy cannot use (an image by `fileId`, `audio`, `localAudio`)
 * are refused with a plain message instead of a parser error.
 */
export const TurnUserInputSchema = z
  .unknown()
  .superRefine((part, ctx) => {
    const reason = refusedInput(part);
    if (reason !== null) ctx.addIssue({ code: 'custom', message: reason, continue: false });
  })
  .pipe(UserInputSchema);
export type UserInput = z.infer<typeof UserInputSchema>;

/** What a shell command does, as parsed for display. */
export const CommandActionSchema = z.discriminatedUnion('type', [
  z.object({
    /** Reads a file. */
    type: z.literal('read'),
    /** The command text. */
    command: z.string(),
    /** File name shown to the user. */
    name: z.string(),
    /** Absolute path of the file. */
    path: AbsolutePathSchema,
  }),
  z.object({
    /** Lists files. */
    type: z.literal('listFiles'),
    /** The command text. */
    command: z.string(),
    /** Directory listed, if known. */
    path: z.string().nullable(),
  }),
  z.object({
    /** Searches file contents or names. */
    type: z.literal('search'),
    /** The command text. */
    command: z.string(),
    /** Search pattern, if known. */
    query: z.string().nullable(),
    /** Where it searches, if known. */
    path: z.string().nullable(),
  }),
  z.object({
    /** Anything else. */
    type: z.literal('unknown'),
    /** The command text, e.g. `touch a.txt && echo done`. */
    command: z.string(),
  }),
]);
export type CommandAction = z.infer<typeof CommandActionSchema>;

/** Who started a command execution. */
export const CommandExecutionSourceSchema = z.enum(['agent', 'userShell', 'unifiedExecStartup', 'unifiedExecInteraction']);
export type CommandExecutionSource = z.infer<typeof CommandExecutionSourceSchema>;

/** State of a command or file-change item. `declined` = the user said no. */
export const ToolItemStatusSchema = z.enum(['inProgress', 'completed', 'failed', 'declined']);
export type ToolItemStatus = z.infer<typeof ToolItemStatusSchema>;

/** State of an MCP, dynamic-tool or collab-agent call. */
export const CallStatusSchema = z.enum(['inProgress', 'completed', 'failed']);
export type CallStatus = z.infer<typeof CallStatusSchema>;

/** Kind of a file change (`{type:"add"}`, `{type:"delete"}`, `{type:"update", move_path}`). */
export const PatchChangeKindSchema = FileChangeKindSchema;

/** One file of a fileChange item: absolute path, kind and unified diff. */
export const FileUpdateChangeSchema = FileUpdateSchema;

/** Where an agent message sits in the answer. */
export const MessagePhaseSchema = z.enum(['commentary', 'final_answer']);
export type MessagePhase = z.infer<typeof MessagePhaseSchema>;

/** Memory notes an agent message cites. */
export const MemoryCitationSchema = z.object({
  /** The cited note ranges. */
  entries: z.array(
    z.object({
      /** Memory file path. */
      path: z.string(),
      /** First cited line. */
      lineStart: UInt32Schema,
      /** Last cited line. */
      lineEnd: UInt32Schema,
      /** The cited note. */
      note: z.string(),
    }),
  ),
  /** Threads the memories came from. */
  threadIds: z.array(z.string()),
});
export type MemoryCitation = z.infer<typeof MemoryCitationSchema>;

/** Content returned by a dynamic tool call. */
export const DynamicToolCallOutputContentItemSchema = z.discriminatedUnion('type', [
  z.object({ /** Text output. */ type: z.literal('inputText'), /** The text. */ text: z.string() }),
  z.object({ /** Image output. */ type: z.literal('inputImage'), /** The image URL. */ imageUrl: z.string() }),
]);

/** The web search action the model performed. */
export const WebSearchActionSchema = z.discriminatedUnion('type', [
  z.object({
    /** A search. */
    type: z.literal('search'),
    /** The query. */
    query: z.string().nullish(),
    /** Several queries, when batched. */
    queries: z.array(z.string()).nullish(),
  }),
  z.object({ /** Opened a page. */ type: z.literal('openPage'), /** Its URL. */ url: z.string().nullish() }),
  z.object({
    /** Searched inside a page. */
    type: z.literal('findInPage'),
    /** The page URL. */
    url: z.string().nullish(),
    /** The pattern. */
    pattern: z.string().nullish(),
  }),
  z.object({ /** Anything else. */ type: z.literal('other') }),
]);

/** State of a sub-agent seen by a collab tool call. */
export const CollabAgentStateSchema = z.object({
  /** Lifecycle state. */
  status: z.enum(['pendingInit', 'running', 'interrupted', 'completed', 'errored', 'shutdown', 'notFound']),
  /** Last message, if any. */
  message: z.string().nullable(),
});

/** Every item a thread records, tagged by `type`. */
export const ThreadItemSchema = z.discriminatedUnion('type', [
  z.object({
    /** What the user sent. */
    type: z.literal('userMessage'),
    /** Item id (a random UUID live, `item-N` when read back). */
    id: z.string(),
    /** The input pieces. */
    content: z.array(UserInputSchema),
    /** The client's id of the message (`clientUserMessageId` of `turn/start` or `turn/steer`), null when none was given (0.171). */
    clientId: z.string().nullish(),
  }),
  z.object({
    /** Prompt text injected by a hook. */
    type: z.literal('hookPrompt'),
    /** Item id. */
    id: z.string(),
    /** The fragments, each from one hook run. */
    fragments: z.array(z.object({ /** Hook run id. */ hookRunId: z.string(), /** Text. */ text: z.string() })),
  }),
  z.object({
    /** Text the model wrote. */
    type: z.literal('agentMessage'),
    /** Item id (the model's output id, e.g. `msg_8`). */
    id: z.string(),
    /** Full text; `""` in `item/started`, the deltas concatenated in `item/completed`. */
    text: z.string(),
    /** Commentary or final answer, null when the model did not say. */
    phase: MessagePhaseSchema.nullable(),
    /** Memory citation, null when none. */
    memoryCitation: MemoryCitationSchema.nullable(),
  }),
  z.object({
    /** A plan written as text (plan mode). */
    type: z.literal('plan'),
    /** Item id. */
    id: z.string(),
    /** The plan text. */
    text: z.string(),
  }),
  z.object({
    /** Model reasoning. */
    type: z.literal('reasoning'),
    /** Item id. */
    id: z.string(),
    /** Summary parts. */
    summary: z.array(z.string()),
    /** Raw reasoning text parts (usually empty). */
    content: z.array(z.string()),
  }),
  z.object({
    /** A shell command. */
    type: z.literal('commandExecution'),
    /** Item id (the tool call id, e.g. `call_39`). */
    id: z.string(),
    /** The full shell line as shown, e.g. `/bin/bash -lc 'echo hi'`. */
    command: z.string(),
    /** Absolute working directory. */
    cwd: AbsolutePathSchema,
    /** Id of the background terminal running it, if any. */
    processId: z.string().nullable(),
    /** Who started it. */
    source: CommandExecutionSourceSchema,
    /** Current state. */
    status: ToolItemStatusSchema,
    /** What the command does, parsed for display. */
    commandActions: z.array(CommandActionSchema),
    /** stdout and stderr interleaved; null until it ran. */
    aggregatedOutput: z.string().nullable(),
    /** Exit code; null until it exited. */
    exitCode: Int32Schema.nullable(),
    /** Run time in ms; null until it exited. */
    durationMs: Int64Schema.nullable(),
  }),
  z.object({
    /** A patch (apply_patch). */
    type: z.literal('fileChange'),
    /** Item id (the tool call id). */
    id: z.string(),
    /** The files it touches. */
    changes: z.array(FileUpdateChangeSchema),
    /** Current state. */
    status: ToolItemStatusSchema,
  }),
  z.object({
    /** A call to an MCP server tool. */
    type: z.literal('mcpToolCall'),
    /** Item id. */
    id: z.string(),
    /** Server name from config. */
    server: z.string(),
    /** Tool name. */
    tool: z.string(),
    /** Current state. */
    status: CallStatusSchema,
    /** Arguments as sent (any JSON). */
    arguments: z.unknown(),
    /** The tool result (`{content, structuredContent?, _meta?}`), null until done or on error. */
    result: z
      .object({
        /** MCP content blocks. */
        content: z.array(z.unknown()),
        /** Structured result, if the tool returns one. */
        structuredContent: z.unknown().optional(),
        /** MCP `_meta`. */
        _meta: z.unknown().optional(),
      })
      .nullable(),
    /** The failure, null unless it failed. */
    error: z.object({ /** Error text. */ message: z.string() }).nullable(),
    /** Run time in ms, null until done. */
    durationMs: Int64Schema.nullable(),
    /** UI resource of an MCP app; left out when there is none (as the reference does). */
    mcpAppResourceUri: z.string().nullish(),
  }),
  z.object({
    /** A call to a client-provided dynamic tool (experimental). */
    type: z.literal('dynamicToolCall'),
    /** Item id. */
    id: z.string(),
    /** Tool name. */
    tool: z.string(),
    /** Tool namespace, if any. */
    namespace: z.string().nullable(),
    /** Arguments (any JSON). */
    arguments: z.unknown(),
    /** Current state. */
    status: CallStatusSchema,
    /** Returned content, null until done. */
    contentItems: z.array(DynamicToolCallOutputContentItemSchema).nullable(),
    /** Whether the client reported success, null until done. */
    success: z.boolean().nullable(),
    /** Run time in ms, null until done. */
    durationMs: Int64Schema.nullable(),
  }),
  z.object({
    /** A multi-agent tool call. */
    type: z.literal('collabAgentToolCall'),
    /** Item id. */
    id: z.string(),
    /** Which collab tool. */
    tool: z.enum(['spawnAgent', 'sendInput', 'resumeAgent', 'wait', 'closeAgent']),
    /** Current state. */
    status: CallStatusSchema,
    /** The calling thread. */
    senderThreadId: z.string(),
    /** Threads addressed. */
    receiverThreadIds: z.array(z.string()),
    /** Prompt sent, if any. */
    prompt: z.string().nullable(),
    /** Model of a spawned agent, if any. */
    model: z.string().nullable(),
    /** Reasoning effort of a spawned agent, if any. */
    reasoningEffort: ReasoningEffortSchema.nullable(),
    /** Agent states by thread id. */
    agentsStates: z.record(z.string(), CollabAgentStateSchema),
  }),
  z.object({
    /** A web search. */
    type: z.literal('webSearch'),
    /** Item id. */
    id: z.string(),
    /** The query. */
    query: z.string(),
    /** The detailed action, null when unknown. */
    action: WebSearchActionSchema.nullable(),
  }),
  z.object({
    /** The model looked at an image file. */
    type: z.literal('imageView'),
    /** Item id. */
    id: z.string(),
    /** Absolute image path. */
    path: AbsolutePathSchema,
  }),
  z.object({
    /** An image the model generated. */
    type: z.literal('imageGeneration'),
    /** Item id. */
    id: z.string(),
    /** Generation status text. */
    status: z.string(),
    /** The result (base64 image data). */
    result: z.string(),
    /** The prompt as revised by the model, if any. */
    revisedPrompt: z.string().nullable(),
    /** Where the image was saved, if it was. */
    savedPath: AbsolutePathSchema.nullable(),
  }),
  z.object({
    /** A review started. */
    type: z.literal('enteredReviewMode'),
    /** Item id. */
    id: z.string(),
    /** What is reviewed. */
    review: z.string(),
  }),
  z.object({
    /** A review ended. */
    type: z.literal('exitedReviewMode'),
    /** Item id. */
    id: z.string(),
    /** The review text. */
    review: z.string(),
  }),
  z.object({
    /** The history was compacted. */
    type: z.literal('contextCompaction'),
    /** Item id. */
    id: z.string(),
  }),
]);
export type ThreadItem = z.infer<typeof ThreadItemSchema>;
export type ThreadItemType = ThreadItem['type'];
