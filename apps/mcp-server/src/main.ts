#!/usr/bin/env node
/**
 * The `deputy-mcp-server` executable: runs the MCP server and exits with its code. The only
 * place that calls `process.exit` (lingering handles such as killed children must not keep a
 * stopped server alive).
 */
import { runMcpServer } from './run.js';

runMcpServer(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`deputy-mcp-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
