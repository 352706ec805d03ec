/**
 * The opt-in session tools (`mcp_server.session_tools = true`): `codex-list`, `codex-status`,
 * `codex-interrupt` and `codex-fork`. Each answers with one text block (the JSON) plus the same
 * object as structured content; an unknown thread is an `isError` result, as in `codex-reply`.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { errorResult, type McpApp, type ToolEntry } from '../app.js';
import type { EngineHost } from '../engine-host.js';
import { describeValue, parseUuid } from './arguments.js';
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
  const limit = args?.limit ?? 20;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100) return errorResult(`invalid limit: ${describeValue(limit)}, expected an integer from 1 to 100`);
  const cursor = args?.cursor ?? null;
  if (cursor !== null && typeof cursor !== 'string') return errorResult(`invalid cursor: ${describeValue(cursor)}, expected a string`);
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
  return structured({ threads, nextCursor: page.nextCursor });
}

async function threadStatus(host: EngineHost, args: Args): Promise<CallToolResult> {
  const id = threadIdOf(args);
  if (!id.ok) return errorResult(id.message);
  const loaded = await host.loadedThread(id.value);
  if (!loaded) {
    const snapshot = await (await host.defaultManager()).read(id.value);
    const last = [...snapshot.turns].reverse().find((t) => t.info.lastAgentMessage !== null);
    return structured({ threadId: id.value, state: 'notLoaded', runningTurnId: null, lastAgentMessage: last?.info.lastAgentMessage ?? null, pendingApprovals: [] });
  }
  const pendingApprovals = [...loaded.pendingApprovals.values()].map((p) => ({
    approvalId: p.approvalId,
    kind: p.request.kind,
    summary: p.request.kind === 'exec' ? p.request.command.join(' ') : p.request.changes.map((c) => c.path).join(', '),
  }));
  const last = [...loaded.turns].reverse().find((t) => t.info.lastAgentMessage !== null);
  const state = loaded.activeTurnId === null ? 'idle' : pendingApprovals.length > 0 ? 'waitingForApproval' : 'running';
  return structured({ threadId: loaded.id, state, runningTurnId: loaded.activeTurnId, lastAgentMessage: last?.info.lastAgentMessage ?? null, pendingApprovals });
}

async function interruptThread(host: EngineHost, args: Args): Promise<CallToolResult> {
  const id = threadIdOf(args);
  if (!id.ok) return errorResult(id.message);
  const thread = await host.findThread(id.value);
  const turnId = thread.activeTurnId;
  if (turnId === null) return structured({ threadId: thread.id, interrupted: false, turnId: null });
  await thread.interrupt(turnId);
  return structured({ threadId: thread.id, interrupted: true, turnId });
}

async function forkThread(host: EngineHost, args: Args): Promise<CallToolResult> {
  const id = threadIdOf(args);
  if (!id.ok) return errorResult(id.message);
  const upTo = args?.upToTurnId;
  if (upTo !== undefined && typeof upTo !== 'string') return errorResult(`invalid upToTurnId: ${describeValue(upTo)}, expected a string`);
  const manager = await host.defaultManager();
  const fork = await manager.fork(id.value, upTo === undefined ? {} : { upToTurnId: upTo });
  return structured({ threadId: fork.id, forkedFromId: id.value });
}

function threadIdOf(args: Args): { ok: true; value: string } | { ok: false; message: string } {
  const raw = args?.threadId;
  if (typeof raw !== 'string') return { ok: false, message: raw === undefined ? 'missing field `threadId`' : `invalid type: ${describeValue(raw)}, expected a string` };
  const id = parseUuid(raw);
  return id.ok ? id : { ok: false, message: `Failed to parse thread_id: ${id.message}` };
}

function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
