/**
 * Human-readable progress for `deputy exec` on stderr: plan, commands with exit codes, MCP tool
 * calls, patched files, warnings and errors. The final answer goes to stdout separately.
 */
import type { EngineEvent, ThreadItem } from '@deputy/protocol';

/** Renders one engine event as zero or more stderr lines. */
export function renderEvent(event: EngineEvent): string[] {
  switch (event.type) {
    case 'plan.updated':
      return ['plan:', ...event.plan.map((s) => `  ${s.status === 'completed' ? '[x]' : s.status === 'in_progress' ? '[>]' : '[ ]'} ${s.step}`)];
    case 'item.started':
      if (event.item.type === 'commandExecution') return [`$ ${event.item.command} (in ${event.item.cwd})`];
      if (event.item.type === 'mcpToolCall') return [`mcp: ${mcpCallLabel(event.item)}`];
      return [];
    case 'item.completed': {
      const item = event.item;
      if (item.type === 'commandExecution') {
        if (item.status === 'declined') return ['  (declined)'];
        return [`  exit ${item.exitCode ?? 'running'} in ${item.durationMs ?? 0} ms`];
      }
      if (item.type === 'fileChange') return item.changes.map((c) => `  ${item.status === 'completed' ? 'patched' : item.status}: ${c.kind.type} ${c.path}`);
      if (item.type === 'mcpToolCall') {
        if (item.status === 'declined') return ['  (declined)'];
        const secs = ((item.durationMs ?? 0) / 1000).toFixed(2);
        if (item.status === 'completed') return [`  ok in ${secs}s`];
        return [`  failed in ${secs}s${item.error ? `: ${item.error}` : ''}`];
      }
      if (item.type === 'contextCompaction') return ['(history compacted)'];
      return [];
    }
    case 'warning':
      return [`warning: ${event.message}`];
    case 'error':
      return [event.willRetry ? `retrying: ${event.error.message}` : `error: ${event.error.message}`];
    case 'turn.completed':
      if (event.turn.status === 'interrupted') return ['turn interrupted'];
      return [];
    default:
      return [];
  }
}

const MAX_ARGS = 120;

/** `server.tool(<compact JSON arguments, clipped>)`. */
export function mcpCallLabel(item: Pick<Extract<ThreadItem, { type: 'mcpToolCall' }>, 'server' | 'tool' | 'arguments'>): string {
  const json = item.arguments === undefined || item.arguments === null ? '' : JSON.stringify(item.arguments);
  const args = json.length > MAX_ARGS ? `${json.slice(0, MAX_ARGS - 1)}…` : json;
  return `${item.server}.${item.tool}(${args})`;
}

/**
 * The `--json` line of an engine event. Engine events go out as they are, except MCP tool call
 * items, which take Codex exec's item shape (`type: "mcp_tool_call"`, `server`, `tool`,
 * `arguments`, `result: {content, structured_content} | null`, `error: {message} | null`,
 * `status: in_progress | completed | failed`).
 */
export function jsonEvent(event: EngineEvent): unknown {
  if ((event.type === 'item.started' || event.type === 'item.completed') && event.item.type === 'mcpToolCall') return { ...event, item: codexMcpItem(event.item) };
  return event;
}

/** Codex exec's `mcp_tool_call` item. */
export function codexMcpItem(item: Extract<ThreadItem, { type: 'mcpToolCall' }>): Record<string, unknown> {
  const raw = item.result as { content?: unknown; structuredContent?: unknown } | null | undefined;
  const result = raw && typeof raw === 'object' && Array.isArray(raw.content) ? { content: raw.content, structured_content: raw.structuredContent ?? null } : null;
  const status = item.status === 'inProgress' ? 'in_progress' : item.status === 'completed' ? 'completed' : 'failed';
  const error = status === 'failed' && result === null ? { message: item.error ?? (item.status === 'declined' ? 'user rejected MCP tool call' : 'tool call failed') } : null;
  return { id: item.id, type: 'mcp_tool_call', server: item.server, tool: item.tool, arguments: item.arguments ?? null, result, error, status };
}
