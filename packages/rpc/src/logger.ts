/**
 * The servers' stderr logger: one line per event, `<name> <level>: <message>` plus the details as
 * compact JSON, dropped below the configured level. Stdout carries the protocol in stdio mode, so
 * nothing here may write to it. It has the `RpcLogger` shape the transports and connections
 * report to, plus `debug`. Both front doors build theirs here; the level usually comes from
 * `DEPUTY_LOG`. It never logs secrets it is not handed.
 */
import type { RpcLogger } from './transport/transport.js';

/** How much to log: `error` < `warn` < `info` < `debug`. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** A logger with a debug level on top of `RpcLogger`. */
export interface StderrLogger extends RpcLogger {
  /** Chatty diagnostics, off unless the level is `debug`. */
  debug(message: string, details?: Record<string, unknown>): void;
}

/** Parses a level name (`DEPUTY_LOG`), ignoring case and blanks; unknown or empty values give `fallback`. */
export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  const v = value?.trim().toLowerCase();
  return v === 'error' || v === 'warn' || v === 'info' || v === 'debug' ? v : fallback;
}

/** Options of {@link createStderrLogger}. */
export interface StderrLoggerOptions {
  /** The prefix of every line, e.g. `deputy app-server`. */
  name: string;
  /** The most detailed level written. */
  level: LogLevel;
  /** Where lines go; default `process.stderr`. */
  write?: (line: string) => void;
}

/** Builds a logger writing `<name> <level>: <message>[ <details>]\n` lines at `level` and above. */
export function createStderrLogger({ name, level, write = (line) => void process.stderr.write(line) }: StderrLoggerOptions): StderrLogger {
  const emit = (at: LogLevel, message: string, details?: Record<string, unknown>): void => {
    if (RANK[at] > RANK[level]) return;
    let suffix = '';
    if (details !== undefined && Object.keys(details).length > 0) {
      try {
        // A request id beyond ±(2^53−1) is a bigint: logged by its digits.
        suffix = ` ${JSON.stringify(details, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`;
      } catch {
        suffix = ' [details not serializable]';
      }
    }
    write(`${name} ${at}: ${message}${suffix}\n`);
  };
  return {
    error: (m, d) => emit('error', m, d),
    warn: (m, d) => emit('warn', m, d),
    info: (m, d) => emit('info', m, d),
    debug: (m, d) => emit('debug', m, d),
  };
}
