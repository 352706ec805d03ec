/**
 * The server's logger: one line per message on stderr, filtered by level. Stdout belongs to the
 * protocol, so nothing here may ever write to it. The level comes from `DEPUTY_LOG`
 * (`error` | `warn` | `info` | `debug`, default `info`).
 */

/** Log levels, most severe first. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** A logger writing to stderr. */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Builds the stderr logger for `level` (unknown values fall back to `info`). */
export function createLogger(level: string | undefined, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const max = RANK[(level ?? 'info') as LogLevel] ?? RANK.info;
  const at = (lvl: LogLevel) => (message: string) => {
    if (RANK[lvl] <= max) write(`deputy-mcp-server ${lvl}: ${message}\n`);
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
