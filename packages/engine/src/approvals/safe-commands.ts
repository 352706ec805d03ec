/**
 * Command classification for approvals, after Codex's `is_safe_command.rs` and
 * `is_dangerous_command.rs`: which argv vectors only read (known safe, may run without asking
 * under `untrusted`), and which look destructive enough to ask about even inside a sandbox.
 * Both are pure and conservative: an unknown command is neither safe nor dangerous. This module
 * never runs anything.
 */
import { executableName, parseShellWrapperCommands } from './shell-words.js';

/** Commands that only read, whatever their arguments. */
const ALWAYS_SAFE = new Set([
  'cat', 'cd', 'cut', 'echo', 'expr', 'false', 'grep', 'head', 'id', 'ls', 'nl', 'paste', 'pwd',
  'rev', 'seq', 'stat', 'tail', 'tr', 'true', 'uname', 'wc', 'which', 'whoami',
]);
/** GNU-only tools Codex trusts on Linux. */
const LINUX_SAFE = new Set(['numfmt', 'tac']);

/** `find` options that run commands, delete files or write files. */
const UNSAFE_FIND_OPTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fls', '-fprint', '-fprint0', '-fprintf']);
/** `rg` options that run external programs (`--pre`, `--hostname-bin`) or decompressors. */
const UNSAFE_RG_WITH_VALUE = ['--pre', '--hostname-bin'];
const UNSAFE_RG_FLAGS = new Set(['--search-zip', '-z']);
/** Git subcommands that can be read-only, and flags that write files or run external tools. */
const READ_ONLY_GIT_SUBCOMMANDS = new Set(['status', 'log', 'diff', 'show', 'branch']);
const UNSAFE_GIT_FLAGS = new Set(['--output', '--ext-diff', '--textconv', '--exec', '--paginate']);
/** Git global options that take the next argument as their value. */
const GIT_GLOBALS_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix']);
/** `git branch` flags that only list or show. */
const READ_ONLY_BRANCH_FLAGS = new Set(['--list', '-l', '--show-current', '-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose']);

/**
 * True when `argv` only reads: a known read-only tool with harmless arguments, or a `bash -lc`
 * / `zsh -lc` / `sh -c` script made only of such commands joined by `&&`, `||`, `;` or `|`.
 */
export function isKnownSafeCommand(argv: readonly string[]): boolean {
  if (isSafeToExec(argv)) return true;
  const commands = parseShellWrapperCommands(argv);
  return commands !== null && commands.every(isSafeToExec);
}

/**
 * True when `argv` looks destructive (`rm -f…`, `git reset`, `git rm`, also behind `sudo` or
 * inside a plain shell script). Such commands are asked about even when a sandbox would run them.
 */
export function commandMightBeDangerous(argv: readonly string[]): boolean {
  if (isDangerousToExec(argv)) return true;
  const commands = parseShellWrapperCommands(argv);
  return commands !== null && commands.some(isDangerousToExec);
}

function isSafeToExec(argv: readonly string[]): boolean {
  const arg0 = argv[0];
  if (arg0 === undefined) return false;
  const name = executableName(arg0);
  const args = argv.slice(1);
  if (ALWAYS_SAFE.has(name)) return true;
  if (LINUX_SAFE.has(name)) return process.platform === 'linux';
  switch (name) {
    case 'base64':
      return !args.some((a) => a === '-o' || a === '--output' || a.startsWith('--output=') || (a.startsWith('-o') && a.length > 2));
    case 'find':
      return !args.some((a) => UNSAFE_FIND_OPTIONS.has(a));
    case 'rg':
      return !args.some(
        (a) => UNSAFE_RG_FLAGS.has(a) || isShortFlagClusterWith(a, 'z') || UNSAFE_RG_WITH_VALUE.some((o) => a === o || a.startsWith(`${o}=`)),
      );
    case 'sort':
      return !args.some(
        (a) => a === '--output' || a.startsWith('--output=') || a.startsWith('--compress-program') || isShortFlagClusterWith(a, 'o'),
      );
    case 'uniq':
      // `uniq IN OUT` writes OUT; only allow reading one input.
      return uniqPositionals(args) <= 1;
    case 'file':
      return !args.some((a) => a === '-C' || a === '--compile');
    case 'sed':
      return argv.length <= 4 && args[0] === '-n' && isSedPrintRange(args[1]);
    case 'git':
      return isReadOnlyGit(args);
    default:
      return false;
  }
}

/** `-abc`-style short flag cluster containing `letter` (not a `--long` option). */
function isShortFlagClusterWith(arg: string, letter: string): boolean {
  return arg.startsWith('-') && !arg.startsWith('--') && arg.slice(1).includes(letter);
}

/** Counts `uniq`'s positional arguments, skipping the values of `-f`, `-s` and `-w`. */
function uniqPositionals(args: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') return count + (args.length - i - 1);
    if (a === '-f' || a === '-s' || a === '-w') i++;
    else if (!a.startsWith('-') || a === '-') count++;
  }
  return count;
}

/** `N p` or `M,N p` as in `sed -n 10p` / `sed -n 1,5p`. */
function isSedPrintRange(arg: string | undefined): boolean {
  return arg !== undefined && /^(\d+,)?\d+p$/.test(arg);
}

/** Git status/log/diff/show/branch with read-only arguments and no config or pager overrides. */
function isReadOnlyGit(args: readonly string[]): boolean {
  const found = findGitSubcommand(args);
  if (found === null || !READ_ONLY_GIT_SUBCOMMANDS.has(found.name)) return false;
  const subArgs = args.slice(found.index + 1);
  const argsAreReadOnly = !subArgs.some((a) => UNSAFE_GIT_FLAGS.has(a) || a.startsWith('--output=') || a.startsWith('--exec='));
  if (!argsAreReadOnly) return false;
  return found.name === 'branch' ? isReadOnlyBranch(subArgs) : true;
}

/**
 * The first positional argument of a git command line (its subcommand), skipping global
 * options. Returns `null` when a global option could run other programs (`-c`, `--config-env`,
 * `--exec-path=…`, `-p`/`--paginate`) or there is no subcommand.
 */
function findGitSubcommand(args: readonly string[]): { name: string; index: number } | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-c' || a === '--config-env' || (a.startsWith('-c') && a.length > 2) || a.startsWith('--config-env=')) return null;
    if (a.startsWith('--exec-path=') || a === '-p' || a === '--paginate') return null;
    if (GIT_GLOBALS_WITH_VALUE.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return { name: a, index: i };
  }
  return null;
}

/** `git branch` that lists (no args, or only listing flags), never creates/renames/deletes. */
function isReadOnlyBranch(args: readonly string[]): boolean {
  if (args.length === 0) return true;
  return args.every((a) => READ_ONLY_BRANCH_FLAGS.has(a) || a.startsWith('--format='));
}

function isDangerousToExec(argv: readonly string[]): boolean {
  const arg0 = argv[0];
  if (arg0 === undefined) return false;
  const name = executableName(arg0);
  const args = argv.slice(1);
  if (name === 'sudo') return isDangerousToExec(args);
  if (name === 'rm') return args.some((a) => a === '--force' || isShortFlagClusterWith(a, 'f'));
  if (name === 'git') {
    const found = findGitSubcommandLoose(args);
    return found === 'reset' || found === 'rm' || args[0] === '--force';
  }
  return false;
}

/** Like `findGitSubcommand` but never gives up on config overrides (for the dangerous check). */
function findGitSubcommandLoose(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (GIT_GLOBALS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return null;
}
