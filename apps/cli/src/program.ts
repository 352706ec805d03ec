/**
 * The `deputy` command line: `deputy exec` (one turn), `deputy exec resume`, `deputy mcp`
 * (config.toml's MCP servers, mcp-command.ts) and the two servers as subcommands. Argument
 * parsing only; the work is in exec.ts, mcp.ts and the apps. Exit codes: 0 ok, 1 the turn (or an
 * `mcp` subcommand) failed, 2 usage errors. Loaded by deputy.ts when the servers' bundles are
 * not there to start directly.
 */
import { Command, CommanderError, Option } from 'commander';
import type { ExecOptions, ExecTarget } from './exec.js';
import { addMcpCommand, separateAddCommand } from './mcp-command.js';
import { CLI_VERSION, UsageError } from './usage-error.js';

// The engine and the servers are loaded only when a subcommand needs them, so `--version`,
// `--help` and server start-up stay fast.
const runExec = async (target: ExecTarget, prompt: string | undefined, options: ExecOptions) => (await import('./exec.js')).runExec(target, prompt, options);

const collect = (value: string, previous: string[]) => [...previous, value];

function execOptions(command: Command): Command {
  return command
    .option('-C, --cd <dir>', 'working directory of the thread')
    .option('-m, --model <model>', 'model to use')
    .option('-c, --config <key=value>', 'override a config.toml key (TOML value, or a raw string)', collect, [])
    .option('-p, --profile <name>', 'config profile to use')
    .option('-i, --image <file...>', 'image(s) to attach to the prompt', collectImages, [])
    .option('--json', "print codex exec's JSONL events on stdout", false)
    .addOption(new Option('--experimental-json', 'same as --json').hideHelp())
    .option('--engine-json', "print Deputy's own engine events as JSON lines on stdout", false)
    .option('-o, --output-last-message <file>', 'write the last agent message to this file')
    .option('--output-schema <file>', 'JSON Schema file the final answer must follow')
    .addOption(new Option('-s, --sandbox <mode>', 'sandbox mode').choices(['read-only', 'workspace-write', 'danger-full-access']))
    .addOption(new Option('-a, --ask-for-approval <policy>', 'approval policy').choices(['untrusted', 'on-failure', 'on-request', 'never']))
    .option('--add-dir <dir>', 'another writable directory besides the workspace (repeatable)', collect, [])
    .option('--skip-git-repo-check', 'allow running outside a git repository', false)
    .option('--full-auto', 'shortcut for --ask-for-approval on-request --sandbox workspace-write', false)
    .option('--dangerously-bypass-approvals-and-sandbox', 'no approvals and no sandbox (only inside an external sandbox)', false)
    .addOption(new Option('--color <when>', 'accepted for compatibility; Deputy prints no colour').choices(['always', 'never', 'auto']).hideHelp());
}

/** `-i a.png,b.png` and repeated `-i`: every path, in order. */
const collectImages = (value: string, previous: string[]) => [...previous, ...value.split(',').filter((p) => p !== '')];

/** Builds the program; `exit` receives the exit code. */
export function buildProgram(exit: (code: number) => void): Command {
  const program = new Command('deputy')
    .description('Deputy: a coding agent that other programs drive (MCP server, app-server, exec).')
    .version(CLI_VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  const exec = execOptions(program.command('exec').description('run one turn in a new thread and print the final answer (codex exec compatible)'))
    .argument('[prompt]', 'the prompt (absent or -: read from stdin)')
    .exitOverride()
    .action(async (prompt: string | undefined, options: ExecOptions) => {
      exit(await runExec({ kind: 'new' }, prompt, options));
    });
  execOptions(exec.command('resume').description('continue a thread: resume <threadId|--last> PROMPT'))
    .argument('[threadOrPrompt]', 'thread id (or the prompt with --last)')
    .argument('[prompt]', 'the prompt (- reads stdin)')
    .option('--last', 'resume the most recently updated thread', false)
    .exitOverride()
    .action(async (first: string | undefined, second: string | undefined, _options: unknown, resume: Command) => {
      const options = mergeResumeOptions(exec, resume);
      const target: ExecTarget = options.last ? { kind: 'resume', threadId: 'last' } : { kind: 'resume', threadId: first ?? '' };
      const prompt = options.last ? first : second;
      if (!options.last && !first) throw new UsageError('deputy exec resume: give a thread id or --last');
      exit(await runExec(target, prompt, options));
    });
  addMcpCommand(program, exit);
  program.command('mcp-server').description('serve Deputy as an MCP server (tools codex, codex-reply); --help for its options');
  program.command('app-server').description('serve the Codex-compatible JSON-RPC app-server; --help for its options');
  program.command('acp').description('serve Deputy as an Agent Client Protocol agent on stdio (editors); --help for its options');
  return program;
}

/**
 * The options of `exec resume`. Commander lets `exec` consume its own options wherever they
 * appear, so an option may have landed on either command: a value given on the command line
 * wins over a default, and `-c` overrides from both places are kept in order.
 */
function mergeResumeOptions(exec: Command, resume: Command): ExecOptions & { last: boolean } {
  const merged: Record<string, unknown> = { ...exec.opts() };
  for (const [key, value] of Object.entries(resume.opts())) {
    if (resume.getOptionValueSource(key) === 'default' && merged[key] !== undefined) continue;
    merged[key] = value;
  }
  for (const key of ['config', 'addDir', 'image']) merged[key] = [...(exec.opts()[key] as string[]), ...(resume.opts()[key] as string[])];
  return merged as unknown as ExecOptions & { last: boolean };
}

/** The servers take their own arguments; they are loaded only when asked for. */
const SERVERS: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  'mcp-server': async () => (await import('@deputy/mcp-server')).runMcpServer,
  'app-server': async () => (await import('@deputy/app-server')).runAppServer,
  acp: async () => (await import('@deputy/acp-server')).runAcpServer,
};

async function main(): Promise<void> {
  const sub = process.argv[2];
  const server = sub ? SERVERS[sub] : undefined;
  if (server) {
    process.exitCode = await (await server())(process.argv.slice(3));
    return;
  }
  let code = 0;
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(separateAddCommand(process.argv.slice(2)), { from: 'user' });
  } catch (error) {
    code = exitCodeFor(error);
  }
  process.exitCode = code;
}

/** Engine error codes that are the user's configuration to fix: exit 2. */
const CONFIG_ERROR_CODES = new Set(['config_error', 'missing_api_key']);

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  if (error instanceof Error && CONFIG_ERROR_CODES.has((error as Error & { code?: string }).code ?? '')) {
    process.stderr.write(`deputy: ${error.message}\n`);
    return 2;
  }
  process.stderr.write(`deputy: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

// No top-level await: the npm package runs the CLI as CommonJS chunks (scripts/package.mjs).
main().catch((error: unknown) => {
  process.stderr.write(`deputy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
