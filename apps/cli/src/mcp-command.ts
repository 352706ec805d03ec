/**
 * The argument parsing of `deputy mcp add|list|get|remove|login|logout` (Codex's `codex mcp`): commander
 * wiring only; the work is in mcp.ts, loaded when a subcommand runs. `-c`, `--enable` and
 * `--disable` belong to `mcp` and are recognised before or after the subcommand, as in the
 * reference.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { McpAddOptions, McpGlobalOptions } from './mcp.js';
import { UsageError } from './usage-error.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `--env KEY=VALUE`: the key is trimmed and must not be empty; the value is everything after the first `=`. */
function collectEnvPair(raw: string, previous: [string, string][]): [string, string][] {
  const at = raw.indexOf('=');
  const key = (at < 0 ? raw : raw.slice(0, at)).trim();
  if (at < 0 || key === '') throw new InvalidArgumentError('environment entries must be in KEY=VALUE form');
  return [...previous, [key, raw.slice(at + 1)]];
}

const mcpModule = async () => await import('./mcp.js');

/** Adds `mcp` and its subcommands to `program`; `exit` receives the exit code. */
export function addMcpCommand(program: Command, exit: (code: number) => void): void {
  const mcp = program
    .command('mcp')
    .description('manage external MCP servers ([mcp_servers.<name>] in config.toml)')
    .option('-c, --config <key=value>', 'override a config.toml key (TOML value, or a raw string)', collect, [])
    .option('--enable <feature>', 'enable a feature (repeatable); same as -c features.<name>=true', collect, [])
    .option('--disable <feature>', 'disable a feature (repeatable); same as -c features.<name>=false', collect, []);
  const globals = (command: Command) => command.optsWithGlobals<McpGlobalOptions>();

  mcp
    .command('list')
    .description('list the configured MCP servers')
    .option('--json', 'output the configured servers as JSON', false)
    .action(async (options: { json: boolean }, command: Command) => {
      exit(await (await mcpModule()).runMcpList(globals(command), options.json));
    });
  mcp
    .command('get')
    .description('show one configured MCP server')
    .argument('<name>', 'name of the MCP server to display')
    .option('--json', 'output the server configuration as JSON', false)
    .action(async (name: string, options: { json: boolean }, command: Command) => {
      exit(await (await mcpModule()).runMcpGet(globals(command), name, options.json));
    });
  mcp
    .command('add')
    .description('add an MCP server: add <NAME> [--env KEY=VALUE]... -- <COMMAND> [ARGS]... | add <NAME> --url <URL>')
    .usage('[options] <name> (--url <URL> | -- <COMMAND>...)')
    .argument('<name>', 'name for the MCP server configuration')
    .argument('[command...]', 'command to launch the MCP server (use --url for a Streamable HTTP server)')
    .option('--env <KEY=VALUE>', 'environment variable to set when launching the server (stdio servers only; repeatable)', collectEnvPair, [])
    .option('--url <URL>', 'URL of a Streamable HTTP MCP server')
    .option('--bearer-token-env-var <ENV_VAR>', 'environment variable that holds a bearer token (Streamable HTTP servers only)')
    .option('--force', 'replace an existing entry of the same name', false)
    .action(async (name: string, commandLine: string[], options: Omit<McpAddOptions, 'command'>, command: Command) => {
      if (options.url !== undefined && commandLine.length > 0) throw new UsageError('deputy mcp add: --url cannot be used with a command');
      if (options.url === undefined && commandLine.length === 0) throw new UsageError('deputy mcp add: give a command (after --) or --url <URL>');
      if (options.bearerTokenEnvVar !== undefined && options.url === undefined) throw new UsageError('deputy mcp add: --bearer-token-env-var requires --url');
      if (options.url !== undefined && options.env.length > 0) throw new UsageError('deputy mcp add: --env is only valid with stdio servers (a command)');
      exit(await (await mcpModule()).runMcpAdd(globals(command), name, { ...options, command: commandLine }));
    });
  mcp
    .command('login')
    .description('log in to a Streamable HTTP MCP server with OAuth (prints the URL to open, waits for the browser)')
    .argument('<name>', 'name of the MCP server')
    .option('--scopes <scopes>', 'comma-separated OAuth scopes to ask for (default: the config\'s scopes, else what the server advertises)')
    .action(async (name: string, options: { scopes?: string }, command: Command) => {
      const scopes = options.scopes === undefined ? null : options.scopes.split(',').map((s) => s.trim()).filter((s) => s !== '');
      exit(await (await mcpModule()).runMcpLogin(globals(command), name, scopes));
    });
  mcp
    .command('logout')
    .description('delete the stored OAuth tokens of an MCP server (revoking them where the server offers it)')
    .argument('<name>', 'name of the MCP server')
    .action(async (name: string, _options: unknown, command: Command) => {
      exit(await (await mcpModule()).runMcpLogout(globals(command), name));
    });
  mcp
    .command('remove')
    .description('remove a configured MCP server')
    .argument('<name>', 'name of the MCP server configuration to remove')
    .action(async (name: string, _options: unknown, command: Command) => {
      exit(await (await mcpModule()).runMcpRemove(globals(command), name));
    });
}

/** Options of `mcp` and `mcp add` that take a value (the others are flags). */
const VALUE_OPTIONS = new Set(['-c', '--config', '--enable', '--disable', '--env', '--url', '--bearer-token-env-var', '--scopes']);

/**
 * As in the reference, everything after `mcp add <NAME> <COMMAND>` belongs to the command, so
 * `deputy mcp add docs npx -y server` works without `--`: this inserts the `--` before the first
 * operand after NAME. `args` are the arguments after `deputy`; other commands pass unchanged.
 */
export function separateAddCommand(args: readonly string[]): string[] {
  if (args[0] !== 'mcp') return [...args];
  const operands: number[] = [];
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return [...args];
    if (arg.startsWith('-') && arg !== '-') {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    operands.push(i);
    if (operands.length === 1 && arg !== 'add') return [...args];
    if (operands.length === 3) return [...args.slice(0, i), '--', ...args.slice(i)];
  }
  return [...args];
}
