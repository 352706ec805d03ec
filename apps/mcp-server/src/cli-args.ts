/**
 * The command line of `deputy mcp-server` / `deputy-mcp-server`: `--listen URL`,
 * `--insecure-no-auth`, `-c key=value` (repeatable), `--profile NAME`, `--help`, `--version`.
 * Parsing only; a mistake is a UsageError whose message is shown as is.
 */
import { parseArgs } from 'node:util';
import { CONFIG_ARGS_USAGE, configArgOptions, overrideSyntaxError } from '@deputy/engine/facts';

/** Parsed options. */
export interface McpServerArgs {
  /** Streamable HTTP URL; absent = stdio. */
  listen?: string;
  insecureNoAuth: boolean;
  /** `-c key=value` overrides, in order. */
  overrides: string[];
  profile?: string;
  help: boolean;
  version: boolean;
}

/** A command-line mistake (exit code 2). */
export class UsageError extends Error {}

/** The `--help` text. */
export const USAGE = `Usage: deputy mcp-server [options]

Runs Deputy as an MCP server (tools: codex, codex-reply) on stdio, or on Streamable HTTP.

Options:
  --listen <url>        serve Streamable HTTP at this URL, e.g. http://127.0.0.1:8787/mcp
                        (default: stdio); a bare port means http://127.0.0.1:PORT/mcp.
                        Port 0 picks a free port.
  --insecure-no-auth    do not require the bearer token (HTTP on a loopback address only)
${CONFIG_ARGS_USAGE}  -h, --help            show this help
  -V, --version         print the version
`;

/** Parses argv (without the node and script paths). */
export function parseMcpServerArgs(argv: string[]): McpServerArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        listen: { type: 'string' },
        'insecure-no-auth': { type: 'boolean', default: false },
        ...configArgOptions(),
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'V', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const override of values.config) {
    const syntaxError = overrideSyntaxError(override);
    if (syntaxError !== null) throw new UsageError(syntaxError);
  }
  if (values['insecure-no-auth'] && values.listen === undefined) throw new UsageError('--insecure-no-auth only applies with --listen');
  return {
    ...(values.listen !== undefined ? { listen: values.listen } : {}),
    insecureNoAuth: values['insecure-no-auth'],
    overrides: values.config,
    ...(values.profile !== undefined ? { profile: values.profile } : {}),
    help: values.help,
    version: values.version,
  };
}
