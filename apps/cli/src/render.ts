/**
 * Human-readable progress for `deputy exec` on stderr: plan, commands with exit codes, MCP tool
 * calls, patched files, warnings and errors. The final answer goes to stdout separately. Every
 * text the model, the workspace or an MCP server chose is neutralised (displayText), so a line
 * here cannot redraw an earlier one or forge a question.
 */
import { displayJson, displayText, type EngineEvent, type FileUpdate, type ThreadItem } from '@deputy/protocol';

/** Renders one engine event as zero or more stderr lines. */
export function renderEvent(event: EngineEvent): string[] {
  switch (event.type) {
    case 'plan.updated':
      return ['plan:', ...event.plan.map((s) => `  ${s.status === 'completed' ? '[x]' : s.status === 'in_progress' ? '[>]' : '[ ]'} ${displayText(s.step)}`)];
    case 'item.started':
      if (event.item.type === 'commandExecution') return [`$ ${displayText(event.item.command)} (in ${displayText(event.item.cwd)})`];
      if (event.item.type === 'mcpToolCall') return [`mcp: ${mcpCallLabel(event.item)}`];
      return [];
    case 'item.completed': {
      const item = event.item;
      if (item.type === 'commandExecution') {
        if (item.status === 'declined') return ['  (declined)'];
        return [`  exit ${item.exitCode ?? 'running'} in ${item.durationMs ?? 0} ms`];
      }
      if (item.type === 'fileChange') return item.changes.map((c) => `  ${item.status === 'completed' ? 'patched' : item.status}: ${changeLabel(c)}`);
      if (item.type === 'mcpToolCall') {
        if (item.status === 'declined') return ['  (declined)'];
        const secs = ((item.durationMs ?? 0) / 1000).toFixed(2);
        if (item.status === 'completed') return [`  ok in ${secs}s`];
        return [`  failed in ${secs}s${item.error ? `: ${displayText(item.error)}` : ''}`];
      }
      if (item.type === 'contextCompaction') return ['(history compacted)'];
      return [];
    }
    case 'warning':
      return [`warning: ${displayText(event.message)}`];
    case 'error':
      return [event.willRetry ? `retrying: ${displayText(event.error.message)}` : `error: ${displayText(event.error.message)}`];
    case 'turn.completed':
      if (event.turn.status === 'interrupted') return ['turn interrupted'];
      return [];
    default:
      return [];
  }
}

const MAX_ARGS = 120;

/**
 * `server.tool(<compact JSON arguments, clipped>)`, neutralised: the names through displayText,
 * the arguments as JSON with every hidden character as a JSON escape (displayJson). Clipping
 * never cuts an escape in two: it happens before the names and after the JSON is made safe, on
 * whole code points, and the ellipsis says text is missing. A question passes `Infinity`: the
 * user decides on every argument.
 */
export function mcpCallLabel(item: Pick<Extract<ThreadItem, { type: 'mcpToolCall' }>, 'server' | 'tool' | 'arguments'>, maxArgs = MAX_ARGS): string {
  const json = item.arguments === undefined || item.arguments === null ? '' : displayJson(item.arguments);
  const points = Array.from(json);
  const args = points.length > maxArgs ? `${points.slice(0, maxArgs - 1).join('')}…` : json;
  return `${displayText(item.server)}.${displayText(item.tool)}(${args})`;
}

/** `update PATH`, `update PATH -> NEW PATH` for a move, `add PATH`, `delete PATH`; paths neutralised. */
export function changeLabel(change: FileUpdate): string {
  const move = change.kind.type === 'update' && change.kind.move_path !== null ? ` -> ${displayText(change.kind.move_path)}` : '';
  return `${change.kind.type} ${displayText(change.path)}${move}`;
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
