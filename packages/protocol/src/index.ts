/** @deputy/protocol: zod schemas shared by the engine and the front doors. */
export * from './core/index.js';
export * from './jsonrpc.js';
export * as AppServer from './app-server/index.js';
export * as McpTools from './mcp-tools.js';
