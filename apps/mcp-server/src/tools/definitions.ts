/**
 * The tool list exactly as `tools/list` returns it: names, argument names and JSON Schemas match
 * the reference (hosts and models depend on them); descriptions are Deputy's own words. The
 * opt-in session tools carry annotations and output schemas. Data only.
 */
import type { Tool } from '@modelcontextprotocol/server';

/** Both reference tools return this structured content. */
const THREAD_RESULT_SCHEMA: Tool['outputSchema'] = {
  type: 'object',
  properties: { threadId: { type: 'string' }, content: { type: 'string' } },
  required: ['threadId', 'content'],
};

/** `codex`: start a new thread with a prompt and run one turn. */
export const CODEX_TOOL: Tool = {
  name: 'codex',
  title: 'Codex',
  description:
    'Start a new Deputy coding session (a thread) and run the prompt as its first turn. Returns the final answer and the threadId to continue with codex-reply. Optional arguments override config.toml for this session.',
  inputSchema: {
    type: 'object',
    required: ['prompt'],
    properties: {
      prompt: { type: 'string', description: 'What the agent should do: the first user message of the new session.' },
      'approval-policy': {
        type: 'string',
        enum: ['untrusted', 'on-failure', 'on-request', 'never'],
        description: 'When to ask before running commands: `untrusted`, `on-failure`, `on-request` or `never`.',
      },
      sandbox: {
        type: 'string',
        enum: ['read-only', 'workspace-write', 'danger-full-access'],
        description: 'How commands are confined: `read-only`, `workspace-write` or `danger-full-access`.',
      },
      cwd: { type: 'string', description: 'Working directory of the session; a relative path is taken from the server\'s own working directory.' },
      model: { type: 'string', description: 'Model to use instead of the configured one (for example gpt-5.2-codex).' },
      profile: { type: 'string', description: 'A [profiles.<name>] table of config.toml to start from.' },
      config: { type: 'object', additionalProperties: true, description: 'Config keys (dotted paths allowed) that override config.toml for this session.' },
      'base-instructions': { type: 'string', description: 'Replace the built-in system instructions with this text.' },
      'developer-instructions': { type: 'string', description: 'Extra instructions sent to the model as a developer message.' },
      'compact-prompt': { type: 'string', description: 'Prompt used to summarise the conversation when it is compacted.' },
    },
  },
  outputSchema: THREAD_RESULT_SCHEMA,
};

/** `codex-reply`: continue a thread. */
export const CODEX_REPLY_TOOL: Tool = {
  name: 'codex-reply',
  title: 'Codex Reply',
  description:
    'Continue a Deputy session: run the prompt as the next turn of the thread named by threadId and return the final answer. Threads survive a server restart.',
  inputSchema: {
    type: 'object',
    required: ['prompt'],
    properties: {
      prompt: { type: 'string', description: 'The next user message of the session.' },
      threadId: { type: 'string', description: 'The thread to continue, as returned by codex. Required; optional in the schema only for clients that still send conversationId.' },
      conversationId: { type: 'string', description: 'Deprecated name of threadId.' },
    },
  },
  outputSchema: THREAD_RESULT_SCHEMA,
};

const THREAD_ID_INPUT: Tool['inputSchema'] = {
  type: 'object',
  required: ['threadId'],
  properties: { threadId: { type: 'string', description: 'The thread id returned by codex.' } },
};

/** `codex-list`: threads, newest first. */
export const CODEX_LIST_TOOL: Tool = {
  name: 'codex-list',
  title: 'List Deputy sessions',
  description: 'List Deputy threads, most recently updated first, with a cursor for the next page.',
  inputSchema: {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size (default 20).' },
      cursor: { type: 'string', description: 'The nextCursor of the previous page.' },
    },
  },
  outputSchema: {
    type: 'object',
    properties: {
      threads: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            threadId: { type: 'string' },
            preview: { type: 'string' },
            cwd: { type: 'string' },
            model: { type: 'string' },
            source: { type: 'string' },
            name: { type: ['string', 'null'] },
            createdAt: { type: 'string' },
            updatedAt: { type: 'string' },
            running: { type: 'boolean' },
          },
          required: ['threadId', 'preview', 'cwd', 'model', 'source', 'name', 'createdAt', 'updatedAt', 'running'],
        },
      },
      nextCursor: { type: ['string', 'null'] },
    },
    required: ['threads', 'nextCursor'],
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** `codex-status`: what a thread is doing. */
export const CODEX_STATUS_TOOL: Tool = {
  name: 'codex-status',
  title: 'Deputy session status',
  description: 'Show whether a thread is idle, running or waiting for an approval, with its running turn, last answer and pending approvals.',
  inputSchema: THREAD_ID_INPUT,
  outputSchema: {
    type: 'object',
    properties: {
      threadId: { type: 'string' },
      state: { type: 'string', enum: ['idle', 'running', 'waitingForApproval', 'notLoaded'] },
      runningTurnId: { type: ['string', 'null'] },
      lastAgentMessage: { type: ['string', 'null'] },
      pendingApprovals: {
        type: 'array',
        items: {
          type: 'object',
          properties: { approvalId: { type: 'string' }, kind: { type: 'string', enum: ['exec', 'patch'] }, summary: { type: 'string' } },
          required: ['approvalId', 'kind', 'summary'],
        },
      },
    },
    required: ['threadId', 'state', 'runningTurnId', 'lastAgentMessage', 'pendingApprovals'],
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** `codex-interrupt`: stop a running turn. */
export const CODEX_INTERRUPT_TOOL: Tool = {
  name: 'codex-interrupt',
  title: 'Interrupt a Deputy session',
  description: 'Stop the running turn of a thread (model stream, commands and pending approvals). The thread stays usable.',
  inputSchema: THREAD_ID_INPUT,
  outputSchema: {
    type: 'object',
    properties: { threadId: { type: 'string' }, interrupted: { type: 'boolean' }, turnId: { type: ['string', 'null'] } },
    required: ['threadId', 'interrupted', 'turnId'],
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

/** `codex-fork`: copy a thread into a new one. */
export const CODEX_FORK_TOOL: Tool = {
  name: 'codex-fork',
  title: 'Fork a Deputy session',
  description: 'Copy a thread (all turns, or up to a given turn) into a new thread that can be continued with codex-reply.',
  inputSchema: {
    type: 'object',
    required: ['threadId'],
    properties: {
      threadId: { type: 'string', description: 'The thread to copy.' },
      upToTurnId: { type: 'string', description: 'Keep turns up to and including this one (default: all).' },
    },
  },
  outputSchema: {
    type: 'object',
    properties: { threadId: { type: 'string' }, forkedFromId: { type: 'string' } },
    required: ['threadId', 'forkedFromId'],
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

/** The tools listed when session tools are off. */
export const REFERENCE_TOOLS: readonly Tool[] = [CODEX_TOOL, CODEX_REPLY_TOOL];

/** The opt-in session tools. */
export const SESSION_TOOLS: readonly Tool[] = [CODEX_LIST_TOOL, CODEX_STATUS_TOOL, CODEX_INTERRUPT_TOOL, CODEX_FORK_TOOL];
