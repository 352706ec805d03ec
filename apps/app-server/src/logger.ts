/**
 * The app-server's logger: rpc's stderr logger (one line per event, details as compact JSON,
 * never on stdout) under the name `deputy app-server`. It implements the `RpcLogger` shape the
 * transports and connections report dropped input to, and never logs secrets it is not handed.
 */
import { createStderrLogger, type LogLevel, type StderrLogger } from '@deputy/rpc/core';

export { parseLogLevel, type LogLevel } from '@deputy/rpc/core';

/** A logger with a debug level on top of `RpcLogger`. */
export type AppLogger = StderrLogger;

/** Builds a logger writing to `write` (defaults to stderr) at `level` and above. */
export function createLogger(level: LogLevel, write?: (line: string) => void): AppLogger {
  return createStderrLogger({ name: 'deputy app-server', level, ...(write ? { write } : {}) });
}
