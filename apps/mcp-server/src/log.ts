/**
 * The MCP server's logger: rpc's stderr logger (one line per message, filtered by level) under
 * the name `deputy-mcp-server`. Stdout belongs to the protocol, so nothing here may ever write to
 * it. The level comes from `DEPUTY_LOG` (`error` | `warn` | `info` | `debug`, default `info`).
 */
import { createStderrLogger, parseLogLevel, type StderrLogger } from '@deputy/rpc/core';

/** A logger writing to stderr. */
export type Logger = StderrLogger;

/** Builds the stderr logger for the level named by `level` (unknown values fall back to `info`). */
export function createLogger(level: string | undefined, write?: (line: string) => void): Logger {
  return createStderrLogger({ name: 'deputy-mcp-server', level: parseLogLevel(level), ...(write ? { write } : {}) });
}
