/**
 * The tool list exactly as `tools/list` returns it: names, titles, descriptions and annotations
 * here; argument and result JSON Schemas generated from the zod schemas of
 * `@deputy/protocol/mcp-tools` (the reference tools' schemas match the reference, which hosts and
 * models depend on). Descriptions are Deputy's own words. Data only.
 */
import {
  CodexForkToolArgsSchema,
  CodexForkToolResultSchema,
  CodexInterruptToolResultSchema,
  CodexListToolArgsSchema,
  CodexListToolResultSchema,
  CodexReplyToolArgsSchema,
  CodexStatusToolResultSchema,
  CodexToolArgsSchema,
  ThreadIdToolArgsSchema,
  ThreadToolResultSchema,
  toolJsonSchema,
} from '@deputy/protocol/mcp-tools';
import type { Tool } from '@modelcontextprotocol/server';

/**
 * The JSON Schema of a zod schema, generated on first use and kept: `tools/list` comes after
 * `initialize`, and start-up should not pay for it.
 */
const generated = new WeakMap<object, unknown>();
function jsonSchemaOf(schema: Parameters<typeof toolJsonSchema>[0]): unknown {
  if (!generated.has(schema)) generated.set(schema, toolJsonSchema(schema));
  return generated.get(schema);
}
const inputOf = (schema: Parameters<typeof toolJsonSchema>[0]) => jsonSchemaOf(schema) as Tool['inputSchema'];
const outputOf = (schema: Parameters<typeof toolJsonSchema>[0]) => jsonSchemaOf(schema) as Tool['outputSchema'];

/** `codex`: start a new thread with a prompt and run one turn. */
export const CODEX_TOOL: Tool = {
  name: 'codex',
  title: 'Codex',
  description:
    'Start a new Deputy coding session (a thread) and run the prompt as its first turn. Returns the final answer and the threadId to continue with codex-reply. Optional arguments override config.toml for this session.',
  get inputSchema() {
    return inputOf(CodexToolArgsSchema);
  },
  get outputSchema() {
    return outputOf(ThreadToolResultSchema);
  },
};

/** `codex-reply`: continue a thread. */
export const CODEX_REPLY_TOOL: Tool = {
  name: 'codex-reply',
  title: 'Codex Reply',
  description:
    'Continue a Deputy session: run the prompt as the next turn of the thread named by threadId and return the final answer. Threads survive a server restart.',
  get inputSchema() {
    return inputOf(CodexReplyToolArgsSchema);
  },
  get outputSchema() {
    return outputOf(ThreadToolResultSchema);
  },
};


/** `codex-list`: threads, newest first. */
export const CODEX_LIST_TOOL: Tool = {
  name: 'codex-list',
  title: 'List Deputy sessions',
  description: 'List Deputy threads, most recently updated first, with a cursor for the next page.',
  get inputSchema() {
    return inputOf(CodexListToolArgsSchema);
  },
  get outputSchema() {
    return outputOf(CodexListToolResultSchema);
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** `codex-status`: what a thread is doing. */
export const CODEX_STATUS_TOOL: Tool = {
  name: 'codex-status',
  title: 'Deputy session status',
  description: 'Show whether a thread is idle, running or waiting for an approval, with its running turn, last answer and pending approvals.',
  get inputSchema() {
    return inputOf(ThreadIdToolArgsSchema);
  },
  get outputSchema() {
    return outputOf(CodexStatusToolResultSchema);
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** `codex-interrupt`: stop a running turn. */
export const CODEX_INTERRUPT_TOOL: Tool = {
  name: 'codex-interrupt',
  title: 'Interrupt a Deputy session',
  description: 'Stop the running turn of a thread (model stream, commands and pending approvals). The thread stays usable.',
  get inputSchema() {
    return inputOf(ThreadIdToolArgsSchema);
  },
  get outputSchema() {
    return outputOf(CodexInterruptToolResultSchema);
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

/** `codex-fork`: copy a thread into a new one. */
export const CODEX_FORK_TOOL: Tool = {
  name: 'codex-fork',
  title: 'Fork a Deputy session',
  description: 'Copy a thread (all turns, or up to a given turn) into a new thread that can be continued with codex-reply.',
  get inputSchema() {
    return inputOf(CodexForkToolArgsSchema);
  },
  get outputSchema() {
    return outputOf(CodexForkToolResultSchema);
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

/** The tools listed when session tools are off. */
export const REFERENCE_TOOLS: readonly Tool[] = [CODEX_TOOL, CODEX_REPLY_TOOL];

/** The opt-in session tools. */
export const SESSION_TOOLS: readonly Tool[] = [CODEX_LIST_TOOL, CODEX_STATUS_TOOL, CODEX_INTERRUPT_TOOL, CODEX_FORK_TOOL];
