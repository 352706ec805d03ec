/**
 * Command classification for approvals, after Codex's `is_safe_command.rs` and
 * `is_dangerous_command.rs`: which argv vectors only read (known safe, may run without asking
 * under `untrusted`), and which look destructive enough to ask about even inside a sandbox.
 *
 * Known safe is an allow-list of commands and of their options (`safe-options.ts`,
 * `safe-git.ts`, `find` and `sed` below), decided on the strict parse of the shell text
 * (`shell-words.ts`): no assignment before the command, an executable by plain name or from a
 * system directory, only harmless wrappers seen through (`command-normalize.ts`), and no word
 * whose start the shell could expand into something unseen. Anything not provably read-only asks.
 * Destructive is decided over every form the command may take (`commandsForStrictCheck`), so
 * `A=x rm -rf d`, `command rm -rf d`, `/bin/rm -rf d` and `rm -rf d > /dev/null` all count.
 * Both are pure and conservative; this module never runs anything.
 */
import { commandsForStrictCheck, isCommandLookup, isTrustedExecutable, unwrapHarmlessWrappers } from './command-normalize.js';
import { parseOptions } from './option-parser.js';
import { isReadOnlyGit } from './safe-git.js';
import { GLOB_TOLERANT_COMMANDS, LINUX_ONLY_COMMANDS, PRINT_ONLY_COMMANDS, SAFE_OPTIONS } from './safe-options.js';
import { executableName, parsePlainShellWords, shellWrapperScript, type ShellWord } from './shell-words.js';

/** `find` options before the starting points. */
const FIND_GLOBAL_FLAGS = new Set(['-H', '-L', '-P']);
/** Read-only `find` tests, options, actions and operators that take no value. */
const FIND_NO_VALUE = new Set([
  '(', ')', '!', ',', '-not', '-a', '-and', '-o', '-or', '-empty', '-executable', '-false', '-nogroup', '-nouser',
  '-readable', '-true', '-writable', '-d', '-depth', '-follow', '-help', '--help', '-ignore_readdir_race', '-mount',
  '-noignore_readdir_race', '-noleaf', '-version', '--version', '-warn', '-nowarn', '-xdev', '-daystart', '-print',
  '-print0', '-ls', '-prune', '-quit',
]);
/**
 * Read-only `find` predicates that take one value. Never listed: `-exec`, `-execdir`, `-ok`,
 * `-okdir` (run programs), `-delete`, `-fprint`, `-fprint0`, `-fprintf`, `-fls` (write files).
 */
const FIND_WITH_VALUE = new Set([
  '-amin', '-anewer', '-atime', '-cmin', '-cnewer', '-ctime', '-fstype', '-gid', '-group', '-ilname', '-iname', '-inum',
  '-ipath', '-iregex', '-iwholename', '-links', '-lname', '-mmin', '-mtime', '-name', '-newer', '-path', '-perm', '-regex',
  '-samefile', '-size', '-type', '-uid', '-used', '-user', '-wholename', '-xtype', '-context', '-maxdepth', '-mindepth',
  '-regextype', '-printf', '-files0-from',
]);

/** How strict a safe-list check is. */
export interface SafeListOptions {
  /**
   * Count read-only git as safe (default true). Git runs programs the configuration of the
   * repository it finds names (fsmonitor, filters, textconv), so `false` is for callers that
   * would run the command where nothing confines those programs.
   */
  allowGit?: boolean;
}

/**
 * True when `argv` only reads: a known read-only tool with allowed options, or a
 * `bash -lc` / `zsh -lc` / `sh -c` script (the shell trusted like any executable) made only of
 * such commands joined by `&&`, `||`, `;` or `|`.
 */
export function isKnownSafeCommand(argv: readonly string[], options: SafeListOptions = {}): boolean {
  if (isSafeToExec(argv, options)) return true;
  const script = shellWrapperScript(argv);
  if (script === null || !isTrustedExecutable(argv[0] as string)) return false;
  const commands = parsePlainShellWords(script);
  return commands !== null && commands.length > 0 && commands.every((c) => isSafeShellCommand(c, options));
}

/**
 * True when `argv` looks destructive (`rm -f…`, `git reset`, `git rm`), in any form it may take:
 * behind assignments, wrappers (`command`, `env`, `sudo`, `xargs`, …), by path, inside a script
 * the strict parser refuses (redirections, substitutions) or a nested `sh -c`. Such commands are
 * asked about even when a sandbox would run them.
 */
export function commandMightBeDangerous(argv: readonly string[]): boolean {
  return commandsForStrictCheck(argv).some(isDangerousToExec);
}

/**
 * A command of a plain script. A word whose start the shell expands (`*`, `{a,b}`, …) may become
 * any words, options included: it is accepted only as an argument of a command none of whose
 * options has an effect (`GLOB_TOLERANT_COMMANDS`), never among a wrapper's words.
 */
export function isSafeShellCommand(words: readonly ShellWord[], options: SafeListOptions = {}): boolean {
  const argv = words.map((w) => w.text);
  const command = unwrapHarmlessWrappers(argv);
  if (command === null) return false;
  const start = argv.length - command.length;
  const isTolerant = GLOB_TOLERANT_COMMANDS.has(executableName(command[0] as string));
  if (words.some((w, i) => w.expandsAtStart && !(isTolerant && i > start))) return false;
  return isSafeUnwrapped(command, options);
}

function isSafeToExec(argv: readonly string[], options: SafeListOptions): boolean {
  const command = unwrapHarmlessWrappers(argv);
  return command !== null && isSafeUnwrapped(command, options);
}

/** The safe-list check of a command with its wrappers already removed. */
function isSafeUnwrapped(command: readonly string[], options: SafeListOptions): boolean {
  const name = executableName(command[0] as string);
  const args = command.slice(1);
  if (PRINT_ONLY_COMMANDS.has(name)) return true;
  if (LINUX_ONLY_COMMANDS.has(name) && process.platform !== 'linux') return false;
  const table = SAFE_OPTIONS.get(name);
  if (table !== undefined) {
    const parsed = parseOptions(args, table);
    // `uniq IN OUT` writes OUT.
    return parsed !== null && (name !== 'uniq' || parsed.positionals.length <= 1);
  }
  switch (name) {
    case 'command':
      return isCommandLookup(command);
    case 'find':
      return isReadOnlyFind(args);
    case 'sed':
      return args.length <= 3 && args[0] === '-n' && isSedPrintRange(args[1]);
    case 'git':
      return options.allowGit !== false && isReadOnlyGit(args);
    default:
      return false;
  }
}

/** `N p` or `M,N p` as in `sed -n 10p` / `sed -n 1,5p`. */
function isSedPrintRange(arg: string | undefined): boolean {
  return arg !== undefined && /^(\d+,)?\d+p$/.test(arg);
}

/** `find [-H|-L|-P|-D x|-Olevel] [paths] [expression]` with only read-only predicates. */
function isReadOnlyFind(args: readonly string[]): boolean {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-D') i++;
    else if (!FIND_GLOBAL_FLAGS.has(a) && !/^-O\d$/.test(a)) break;
  }
  while (i < args.length && !isFindExpressionStart(args[i] as string)) i++;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (FIND_NO_VALUE.has(a)) continue;
    if (!FIND_WITH_VALUE.has(a) && !/^-newer[aBcmt][aBcmt]$/.test(a)) return false;
    if (i + 1 >= args.length) return false;
    i++;
  }
  return true;
}

function isFindExpressionStart(arg: string): boolean {
  return arg.startsWith('-') || arg === '(' || arg === '!' || arg === ')' || arg === ',';
}

function isDangerousToExec(argv: readonly string[]): boolean {
  const arg0 = argv[0];
  if (arg0 === undefined) return false;
  const name = executableName(arg0);
  const args = argv.slice(1);
  if (name === 'rm') return args.some((a) => a === '--force' || isShortFlagClusterWith(a, 'f'));
  if (name === 'git') {
    const found = findGitSubcommandLoose(args);
    return found === 'reset' || found === 'rm' || args[0] === '--force';
  }
  return false;
}

/** `-abc`-style short flag cluster containing `letter` (not a `--long` option). */
function isShortFlagClusterWith(arg: string, letter: string): boolean {
  return arg.startsWith('-') && !arg.startsWith('--') && arg.slice(1).includes(letter);
}

/** Git global options that take the next argument as their value. */
const GIT_GLOBALS_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix']);

/** The first positional of a git command line, skipping global options and their values. */
function findGitSubcommandLoose(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (GIT_GLOBALS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return null;
}
