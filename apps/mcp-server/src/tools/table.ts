/**
 * Everything `tools/list` and `tools/call` need — the tool definitions (zod schemas of
 * `@deputy/protocol/mcp-tools`) and the handlers (turn calls, event projection) — in one module
 * that server.ts imports on the first such request, so none of it loads before `initialize` is
 * answered (docs/performance.md, "Start-up through the CLI").
 */
import type { McpApp, ToolEntry } from '../app.js';
import { codexReplyTool } from './codex-reply.js';
import { codexTool } from './codex.js';
import { SESSION_TOOLS } from './definitions.js';
import { sessionTools } from './session-tools.js';

export { REFERENCE_TOOLS, SESSION_TOOLS } from './definitions.js';

/** The tools of one server instance, by name. */
export function toolTable(app: McpApp): Map<string, ToolEntry> {
  const entries = [codexTool(app), codexReplyTool(app), ...sessionTools(app)];
  return new Map(entries.map((entry) => [entry.definition.name, entry]));
}

/** Whether `name` is one of the session tools (offered only with `mcp_server.session_tools`). */
export function isSessionTool(name: string): boolean {
  return SESSION_TOOLS.some((tool) => tool.name === name);
}
