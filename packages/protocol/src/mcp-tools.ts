/**
 * The MCP server's tool contract: the arguments and structured results of `codex` and
 * `codex-reply` (names and shapes of the reference, Codex 0.130.0; argument names kebab-case
 * where Codex uses it) and of the opt-in session tools `codex-list`, `codex-status`,
 * `codex-interrupt` and `codex-fork`. These zod schemas are the one definition: the server parses
 * arguments with them and lists their JSON Schema (`toolJsonSchema`) in `tools/list`, and a test
 * pins the two reference tools' JSON Schema to the reference's. Descriptions are Deputy's own
 * words. Policy values come from `core/policies.ts`. Schemas only; no I/O. This is also the
 * `@deputy/protocol/mcp-tools` entry point, which loads only these schemas and zod.
 */
import { z } from 'zod';
import { ApprovalPolicySchema, SandboxModeSchema } from './core/policies.js';

// ---------------------------------------------------------------------------------------------
// codex, codex-reply

/** `codex` arguments: start a new thread with a prompt and run one turn. */
export const CodexToolArgsSchema = z.object({
  /** The first user message of the new thread (`""` is allowed). */
  prompt: z.string().describe('What the agent should do: the first user message of the new session.'),
  /** When to ask before running commands. */
  'approval-policy': ApprovalPolicySchema.optional().describe('When to ask before running commands: `untrusted`, `on-failure`, `on-request` or `never`.'),
  /** How commands are confined. */
  sandbox: SandboxModeSchema.optional().describe('How commands are confined: `read-only`, `workspace-write` or `danger-full-access`.'),
  /** Working directory; relative to the server's own. */
  cwd: z.string().optional().describe("Working directory of the session; a relative path is taken from the server's own working directory."),
  /** Model instead of the configured one. */
  model: z.string().optional().describe('Model to use instead of the configured one (for example gpt-5.2-codex).'),
  /** A `[profiles.<name>]` table of config.toml. */
  profile: z.string().optional().describe('A [profiles.<name>] table of config.toml to start from.'),
  /** Config keys (dotted paths allowed) → JSON values, on top of config.toml for this session. */
  config: z.record(z.string(), z.unknown()).optional().describe('Config keys (dotted paths allowed) that override config.toml for this session.'),
  /** Replaces the built-in system instructions. */
  'base-instructions': z.string().optional().describe('Replace the built-in system instructions with this text.'),
  /** An extra developer message. */
  'developer-instructions': z.string().optional().describe('Extra instructions sent to the model as a developer message.'),
  /** Prompt used to summarise the conversation when compacting. */
  'compact-prompt': z.string().optional().describe('Prompt used to summarise the conversation when it is compacted.'),
});
export type CodexToolArgs = z.infer<typeof CodexToolArgsSchema>;

/**
 * `codex-reply` arguments: continue a thread. `threadId` is required in practice; the schema
 * keeps it optional, as the reference does, for clients that still send `conversationId`.
 */
export const CodexReplyToolArgsSchema = z.object({
  /** The next user message. */
  prompt: z.string().describe('The next user message of the session.'),
  /** The thread to continue (the `threadId` a `codex` call returned). */
  threadId: z
    .string()
    .optional()
    .describe('The thread to continue, as returned by codex. Required; optional in the schema only for clients that still send conversationId.'),
  /** Deprecated name of `threadId`; `threadId` wins when both are given. */
  conversationId: z.string().optional().describe('Deprecated name of threadId.'),
});
export type CodexReplyToolArgs = z.infer<typeof CodexReplyToolArgsSchema>;

/** The structured result of `codex` and `codex-reply`: the thread and its final answer. */
export const ThreadToolResultSchema = z.object({
  /** The thread the turn ran in. */
  threadId: z.string(),
  /** The turn's final agent message (or the error text of a failed turn). */
  content: z.string(),
});
export type ThreadToolResult = z.infer<typeof ThreadToolResultSchema>;

// ---------------------------------------------------------------------------------------------
// Session tools (opt-in)

/** Arguments naming one thread (`codex-status`, `codex-interrupt`). */
export const ThreadIdToolArgsSchema = z.object({
  /** The thread, as `codex` returned it. */
  threadId: z.string().describe('The thread id returned by codex.'),
});
export type ThreadIdToolArgs = z.infer<typeof ThreadIdToolArgsSchema>;

/** `codex-list` arguments: one page of threads. */
export const CodexListToolArgsSchema = z.object({
  /** Page size, 1–100 (default 20). */
  limit: z.number().int().min(1).max(100).optional().describe('Page size (default 20).'),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().optional().describe('The nextCursor of the previous page.'),
});
export type CodexListToolArgs = z.infer<typeof CodexListToolArgsSchema>;

/** One thread of a `codex-list` page. */
export const ListedThreadSchema = z.object({
  threadId: z.string(),
  /** The first user message, shortened. */
  preview: z.string(),
  cwd: z.string(),
  model: z.string(),
  /** Which front door created it (`mcp`, `cli`, …). */
  source: z.string(),
  name: z.string().nullable(),
  /** ISO 8601 times. */
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Whether a turn is running now. */
  running: z.boolean(),
});

/** `codex-list` result: threads, most recently updated first. */
export const CodexListToolResultSchema = z.object({
  threads: z.array(ListedThreadSchema),
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type CodexListToolResult = z.infer<typeof CodexListToolResultSchema>;

/** `codex-status` result: what a thread is doing. */
export const CodexStatusToolResultSchema = z.object({
  threadId: z.string(),
  state: z.enum(['idle', 'running', 'waitingForApproval', 'notLoaded']),
  runningTurnId: z.string().nullable(),
  lastAgentMessage: z.string().nullable(),
  /** Approvals waiting for an answer. */
  pendingApprovals: z.array(
    z.object({
      approvalId: z.string(),
      kind: z.enum(['exec', 'patch']),
      /** The command line, or the changed paths. */
      summary: z.string(),
    }),
  ),
});
export type CodexStatusToolResult = z.infer<typeof CodexStatusToolResultSchema>;

/** `codex-interrupt` result. */
export const CodexInterruptToolResultSchema = z.object({
  threadId: z.string(),
  /** False when no turn was running. */
  interrupted: z.boolean(),
  turnId: z.string().nullable(),
});
export type CodexInterruptToolResult = z.infer<typeof CodexInterruptToolResultSchema>;

/** `codex-fork` arguments: copy a thread, up to a turn. */
export const CodexForkToolArgsSchema = z.object({
  /** The thread to copy. */
  threadId: z.string().describe('The thread to copy.'),
  /** Keep turns up to and including this one (default: all). */
  upToTurnId: z.string().optional().describe('Keep turns up to and including this one (default: all).'),
});
export type CodexForkToolArgs = z.infer<typeof CodexForkToolArgsSchema>;

/** `codex-fork` result. */
export const CodexForkToolResultSchema = z.object({
  /** The new thread. */
  threadId: z.string(),
  forkedFromId: z.string(),
});
export type CodexForkToolResult = z.infer<typeof CodexForkToolResultSchema>;

// ---------------------------------------------------------------------------------------------
// JSON Schema for tools/list

/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema object as `tools/list` carries it (`inputSchema`, `outputSchema`). */
export interface ToolJsonSchema {
  [key: string]: unknown;
  type: 'object';
  properties?: { [name: string]: JsonValue };
  required?: string[];
}

/**
 * The JSON Schema of a tool's arguments or result, in the reference's shape: no `$schema`, no
 * `additionalProperties: false` on objects (unknown argument names are ignored), and a map of
 * any values (`config`) as `{type: object, additionalProperties: true}`.
 */
export function toolJsonSchema(schema: z.ZodObject): ToolJsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'throw',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type !== 'record') return;
      delete jsonSchema.propertyNames;
      jsonSchema.additionalProperties = true;
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  // z.toJSONSchema of an object schema is an object schema of JSON values.
  return json as ToolJsonSchema;
}
