/**
 * Projection of the engine's items and user input to the app-server wire (`ThreadItem`,
 * `UserInput`, `CommandAction`). Pure functions, no I/O: the engine's `commandExecution` loses its
 * `argv` and gains `source` and `commandActions`, agent messages gain `memoryCitation`, MCP calls
 * get the wire's result/error objects. Wire input is mapped back to engine input here too, so the
 * shape conversion lives in one place.
 */
import path from 'node:path';
import { diffHunks, diffSideText, displayCommand, scriptOf } from '@deputy/engine/facts';
import type { ThreadItem as EngineItem, UserInput as EngineInput } from '@deputy/protocol';
import { AppServer } from '@deputy/protocol';

// The full shell line shown for an argv (`/bin/bash -lc 'echo hi'`) is the engine's display line.
export { displayCommand as commandLineOf } from '@deputy/engine/facts';

const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~"'\\\n]/;

/**
 * What a command does, for display. Simple one-command scripts that read a file (`cat`, `head`,
 * `tail`), list a directory (`ls`) or search (`rg`, `grep`) get a specific action; anything with
 * shell syntax or more than one command is `unknown`.
 */
export function commandActionsOf(argv: readonly string[], cwd: string): AppServer.CommandAction[] {
  const command = scriptOf(argv);
  const unknown: AppServer.CommandAction[] = [{ type: 'unknown', command }];
  if (SHELL_SYNTAX.test(command)) return unknown;
  const words = command.trim().split(/\s+/);
  const [program, ...rest] = words;
  const operands = rest.filter((w) => !w.startsWith('-'));
  if ((program === 'cat' || program === 'head' || program === 'tail') && operands.length === 1 && operands[0] !== undefined) {
    const file = path.resolve(cwd, operands[0]);
    return [{ type: 'read', command, name: path.basename(file), path: file }];
  }
  if (program === 'ls' && operands.length <= 1) return [{ type: 'listFiles', command, path: operands[0] ?? null }];
  if ((program === 'rg' || program === 'grep') && operands.length >= 1 && operands.length <= 2) {
    return [{ type: 'search', command, query: operands[0] ?? null, path: operands[1] ?? null }];
  }
  return unknown;
}

/** Engine user input → wire (`text_elements` always present on text, as the reference echoes it). */
export function projectUserInput(input: EngineInput): AppServer.UserInput {
  return input.type === 'text' ? { type: 'text', text: input.text, text_elements: input.text_elements ?? [] } : input;
}

/** An MCP `CallToolResult` as the item carries it: `structuredContent` and `_meta` always present, null when absent. */
function mcpResult(result: unknown): { content: unknown[]; structuredContent: unknown; _meta: unknown } | null {
  if (typeof result !== 'object' || result === null) return null;
  const record = result as Record<string, unknown>;
  if (!Array.isArray(record.content)) return null;
  return { content: record.content, structuredContent: record.structuredContent ?? null, _meta: record._meta ?? null };
}

/**
 * The wire's `diff` of one changed file, as the reference fills it: the file's content for an
 * add or a delete, the hunks of the unified diff (no `diff --git`/`---`/`+++` header) for an
 * update. The engine keeps a git-style diff for every kind; clients such as the Codex TUI count
 * and render an add's `diff` as the new file's lines.
 */
export function wireChangeDiff(kind: 'add' | 'delete' | 'update', gitDiff: string): string {
  if (kind === 'update') return diffHunks(gitDiff);
  return diffSideText(gitDiff, kind === 'add' ? 'new' : 'old');
}

/** Engine item → wire item; `id` replaces the item's id (synthetic `item-N` ids of reads). */
export function projectItem(item: EngineItem, id: string = item.id): AppServer.ThreadItem {
  switch (item.type) {
    case 'userMessage':
      return { type: 'userMessage', id, content: item.content.map(projectUserInput), clientId: item.clientId ?? null };
    case 'agentMessage':
      return { type: 'agentMessage', id, text: item.text, phase: item.phase, memoryCitation: null };
    case 'reasoning':
      return { type: 'reasoning', id, summary: item.summary, content: item.content };
    case 'commandExecution':
      return {
        type: 'commandExecution',
        id,
        command: item.command,
        cwd: item.cwd,
        processId: item.processId,
        source: item.source ?? 'agent',
        status: item.status,
        commandActions: commandActionsOf(item.argv, item.cwd),
        aggregatedOutput: item.aggregatedOutput,
        exitCode: item.exitCode,
        durationMs: item.durationMs,
      };
    case 'fileChange':
      return {
        type: 'fileChange',
        id,
        changes: item.changes.map((change) => ({ ...change, diff: wireChangeDiff(change.kind.type, change.diff) })),
        status: item.status,
      };
    case 'mcpToolCall':
      return {
        type: 'mcpToolCall',
        id,
        server: item.server,
        tool: item.tool,
        // The wire has no `declined` for calls; a declined call did not succeed.
        status: item.status === 'declined' ? 'failed' : item.status,
        arguments: item.arguments ?? null,
        result: mcpResult(item.result),
        error: item.error ? { message: item.error } : null,
        durationMs: item.durationMs ?? null,
      };
    case 'dynamicToolCall':
      return {
        type: 'dynamicToolCall',
        id,
        tool: item.tool,
        namespace: item.namespace,
        arguments: item.arguments ?? null,
        status: item.status === 'declined' ? 'failed' : item.status,
        contentItems: item.contentItems,
        success: item.success,
        durationMs: item.durationMs,
      };
    case 'imageView':
      return { type: 'imageView', id, path: item.path };
    case 'contextCompaction':
      return { type: 'contextCompaction', id };
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return { type: item.type, id, review: item.review };
    case 'hookPrompt':
      return { type: 'hookPrompt', id, fragments: item.fragments };
  }
}

/** The in-progress commandExecution item shown while its approval is pending. */
export function pendingCommandItem(callId: string, argv: readonly string[], cwd: string): AppServer.ThreadItem {
  return {
    type: 'commandExecution',
    id: callId,
    command: displayCommand(argv),
    cwd,
    processId: null,
    source: 'agent',
    status: 'inProgress',
    commandActions: commandActionsOf(argv, cwd),
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
  };
}

/**
 * The final state of an item that never got its own `item/completed` because the turn ended
 * first (interrupt, cancel, failure): streamed text is kept, tools end `declined` when
 * `declined` (the user cancelled at an approval) and `failed` otherwise.
 */
export function closeOpenItem(item: AppServer.ThreadItem, text: string, declined: boolean): AppServer.ThreadItem {
  switch (item.type) {
    case 'agentMessage':
      return { ...item, text };
    case 'commandExecution':
    case 'fileChange':
      return { ...item, status: declined ? 'declined' : 'failed' };
    case 'mcpToolCall':
      return { ...item, status: 'failed', error: item.error ?? { message: 'interrupted' } };
    case 'dynamicToolCall':
    case 'collabAgentToolCall':
      return { ...item, status: 'failed' };
    default:
      return item;
  }
}
