/**
 * The opt-in session tools (`mcp_server.session_tools = true`): `codex-list`, `codex-status`,
 * `codex-interrupt` and `codex-fork`, their arguments parsed with the schemas of
 * `@deputy/protocol/mcp-tools`. Each answers with one text block (the JSON) plus the same object
 * as structured content; an unknown thread is an `isError` result, as in `codex-reply`.
 */
import { displayCommand } from '@deputy/engine/facts';
import {
  CodexForkToolArgsSchema,
  CodexListToolArgsSchema,
  ThreadIdToolArgsSchema,
  type CodexForkToolResult,
  type CodexInterruptToolResult,
  type CodexListToolResult,
  type CodexStatusToolResult,
} from '@deputy/protocol/mcp-tools';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { errorResult, type McpApp, type ToolEntry } from '../app.js';
import type { EngineHost } from '../engine-host.js';
import { parseToolArgs, parseUuid, type Parsed } from './arguments.js';
import { CODEX_FORK_TOOL, CODEX_INTERRUPT_TOOL, CODEX_LIST_TOOL, CODEX_STATUS_TOOL } from './definitions.js';

type Args = Record<string, unknown> | undefined;

/** Builds the four session tools. */
export function sessionTools(app: McpApp): ToolEntry[] {
  const withHost = (run: (host: EngineHost, args: Args) => Promise<CallToolResult>) => async (args: Args) => {
    let host;
    try {
      host = await app.host();
    } catch (error) {
      return errorResult(`Failed to load Codex configuration: ${(error as Error).message}`);
    }
    try {
      return await run(host, args);
    } catch (error) {
      if (error instanceof host.engine.ThreadNotFoundError) return errorResult(`Session not found for thread_id: ${error.threadId}`);
      if (error instanceof host.engine.EngineError) return errorResult(error.message);
      throw error;
    }
  };
  return [
    { definition: CODEX_LIST_TOOL, handle: withHost(listThreads) },
    { definition: CODEX_STATUS_TOOL, handle: withHost(threadStatus) },
    { definition: CODEX_INTERRUPT_TOOL, handle: withHost(interruptThread) },
    { definition: CODEX_FORK_TOOL, handle: withHost(forkThread) },
  ];
}

async function listThreads(host: EngineHost, args: Args): Promise<CallToolResult> {
  const parsed = parseToolArgs(CodexListToolArgsSchema, args ?? {});
  if (!parsed.ok) return errorResult(parsed.message);
  const { limit = 20, cursor = null } = parsed.value;
  const manager = await host.defaultManager();
  const page = manager.list({ limit, cursor, sortKey: 'updated_at' });
  const threads = await Promise.all(
    page.threads.map(async (t) => ({
      threadId: t.id,
      preview: t.preview,
      cwd: t.cwd,
      model: t.model,
      source: t.source,
      name: t.name,
      createdAt: new Date(t.createdAtMs).toISOString(),
      updatedAt: new Date(t.updatedAtMs).toISOString(),
      running: ((await host.loadedThread(t.id))?.activeTurnId ?? null) !== null,
    })),
  );
  return structured({ threads, nextCursor: page.nextCursor } satisfies CodexListToolResult);
}

async function threadStatus(host: EngineHost, args: Args): Promise<CallToolResult> {
  const id = threadIdArg(args);
  if (!id.ok) return errorResult(id.message);
  const loaded = await host.loadedThread(id.value);
  if (!loaded) {
    const snapshot = await (await host.defaultManager()).read(id.value);
    const last = [...snapshot.turns].reverse().find((t) => t.info.lastAgentMessage !== null);
    return structured({ threadId: id.value, state: 'notLoaded', runningTurnId: null, lastAgentMessage: last?.info.lastAgentMessage ?? null, pendingApprovals: [] } satisfies CodexStatusToolResult);
  }
  const pendingApprovals = [...loaded.pendingApprovals.values()].map((p) => ({
    approvalId: p.approvalId,
    kind: p.request.kind,
    summary: p.request.kind === 'exec' ? displayCommand(p.request.command) : p.request.changes.map((c) => c.path).join(', '),
  }));
  const last = [...loaded.turns].reverse().find((t) => t.info.lastAgentMessage !== null);
  const state = loaded.activeTurnId === null ? 'idle' : pendingApprovals.length > 0 ? 'waitingForApproval' : 'running';
  return structured({ threadId: loaded.id, state, runningTurnId: loaded.activeTurnId, lastAgentMessage: last?.info.lastAgentMessage ?? null, pendingApprovals } satisfies CodexStatusToolResult);
}

async function interruptThread(host: EngineHost, args: Args): Promise<CallToolResult> {
  const id = threadIdArg(args);
  if (!id.ok) return errorResult(id.message);
  const thread = await host.findThread(id.value);
  const turnId = thread.activeTurnId;
  if (turnId === null) return structured({ threadId: thread.id, interrupted: false, turnId: null } satisfies CodexInterruptToolResult);
  await thread.interrupt(turnId);
  return structured({ threadId: thread.id, interrupted: true, turnId } satisfies CodexInterruptToolResult);
}

async function forkThread(host: EngineHost, args: Args): Promise<CallToolResult> {
  const parsed = parseToolArgs(CodexForkToolArgsSchema, args ?? {});
  if (!parsed.ok) return errorResult(parsed.message);
  const id = threadIdOf(parsed.value.threadId);
  if (!id.ok) return errorResult(id.message);
  const upTo = parsed.value.upToTurnId;
  const manager = await host.defaultManager();
  const fork = await manager.fork(id.value, upTo === undefined ? {} : { upToTurnId: upTo });
  return structured({ threadId: fork.id, forkedFromId: id.value } satisfies CodexForkToolResult);
}

/** The thread named by `threadId` (`codex-status`, `codex-interrupt`), normalised. */
function threadIdArg(args: Args): Parsed<string> {
  const parsed = parseToolArgs(ThreadIdToolArgsSchema, args ?? {});
  return parsed.ok ? threadIdOf(parsed.value.threadId) : parsed;
}

function threadIdOf(raw: string): Parsed<string> {
  const id = parseUuid(raw);
  return id.ok ? id : { ok: false, message: `Failed to parse thread_id: ${id.message}` };
}

function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
