/**
 * @deputy/mcp-server: Deputy as an MCP server. `runMcpServer(argv)` is what `deputy mcp-server`
 * and the `deputy-mcp-server` bin run; the rest is exported for embedding and tests.
 */
export { runMcpServer, type ServerIo } from './run.js';
export { parseMcpServerArgs, USAGE, UsageError, type McpServerArgs } from './cli-args.js';
export { McpServerSettingsSchema, type McpServerSettings } from './settings.js';
export { projectEvent, projectSessionStart, type CodexEvent, type CodexMsg, type ProjectionContext } from './project-events.js';
