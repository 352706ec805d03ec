/**
 * The ACP server's logger: one line per message on stderr (stdout carries the protocol only),
 * filtered by `DEPUTY_LOG` (`error` | `warn` | `info` | `debug`, default `info`).
 */
const LEVELS = ['error', 'warn', 'info', 'debug'] as const;
type Level = (typeof LEVELS)[number];

/** A stderr logger. */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Builds the logger for `level` (unknown values mean `info`). */
export function createLogger(level: string | undefined, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const max = LEVELS.indexOf((LEVELS as readonly string[]).includes(level ?? '') ? (level as Level) : 'info');
  const at = (l: Level) => (message: string) => {
    if (LEVELS.indexOf(l) <= max) write(`deputy-acp ${l}: ${message}\n`);
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
