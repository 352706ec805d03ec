/**
 * The app-server's logger: one line per event on stderr (stdout carries the protocol in stdio
 * mode, so nothing here may write to it). Levels below the configured one are dropped; details
 * are appended as compact JSON. It implements the `RpcLogger` shape the transports and
 * connections report dropped input to, and never logs secrets it is not handed.
 */
import type { RpcLogger } from '@deputy/rpc/core';

/** How much to log: `error` < `warn` < `info` < `debug`. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** A logger with a debug level on top of `RpcLogger`. */
export interface AppLogger extends RpcLogger {
  /** Chatty diagnostics, off unless the level is `debug`. */
  debug(message: string, details?: Record<string, unknown>): void;
}

/** Parses a level name (`DEPUTY_LOG`); unknown or empty values give `fallback`. */
export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  const v = value?.trim().toLowerCase();
  return v === 'error' || v === 'warn' || v === 'info' || v === 'debug' ? v : fallback;
}

/** Builds a logger writing to `write` (defaults to stderr) at `level` and above. */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): AppLogger {
  const emit = (at: LogLevel, message: string, details?: Record<string, unknown>): void => {
    if (RANK[at] > RANK[level]) return;
    let suffix = '';
    if (details !== undefined && Object.keys(details).length > 0) {
      try {
        suffix = ` ${JSON.stringify(details)}`;
      } catch {
        suffix = ' [details not serializable]';
      }
    }
    write(`deputy app-server ${at}: ${message}${suffix}\n`);
  };
  return {
    error: (m, d) => emit('error', m, d),
    warn: (m, d) => emit('warn', m, d),
    info: (m, d) => emit('info', m, d),
    debug: (m, d) => emit('debug', m, d),
  };
}
