/**
 * What a simple command really runs: leading `NAME=value` assignments, wrappers (`command`,
 * `env`, `exec`, `nice`, `timeout`, `time`, `nohup`, `stdbuf`, `sudo`, `xargs`, …) and the
 * executable's directory are seen through. Two readings, one per direction of approvals:
 * - `unwrapHarmlessWrappers` (safe direction) sees only through wrappers that add no effect of
 *   their own, with their options on an allow-list, and gives up at any assignment;
 * - `normalizedForms` / `commandsForStrictCheck` (forbidden/prompt rules, destructive check)
 *   see through everything they can, also into nested `sh -c` scripts, `eval` and `find -exec`,
 *   and list every form, so that the strictest decision over them wins.
 * Pure functions; nothing here runs a command.
 */
import { defineOptions, parseOptions, type OptionTable } from './option-parser.js';
import { scanShellScript } from './shell-scan.js';
import { executableName, shellWrapperScript } from './shell-words.js';

/** Directories whose programs are trusted by absolute path (`/usr/bin/cat` but not `./cat`). */
const TRUSTED_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin']);
/** A plain program name: no glob, brace, tilde, quote, `$` or `=`. */
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+-]*$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
/** Reserved words that may precede a command in a list (`if rm …`, `then rm …`, `! rm …`). */
const RESERVED_PREFIXES = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac', 'coproc']);
/** Shells whose `-c` script is looked into by the strict check. */
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
/** Nesting depth (shell in shell, eval, find -exec) the strict check follows. */
const MAX_DEPTH = 4;

/** How a wrapper is read. */
interface Wrapper {
  /** Options when `untrusted` may see through it (`null`: never, it has effects of its own). */
  strict: OptionTable | null;
  /** Options for the strict check, read leniently (unknown options count as flags). */
  loose: OptionTable;
  /** Positionals between the options and the command (`timeout DURATION CMD`, `chroot DIR CMD`). */
  leading?: number;
}

const NO_OPTIONS = defineOptions({ gnu: false });
const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ['command', { strict: defineOptions({ flags: 'pvV', gnu: false }), loose: defineOptions({ flags: 'pvV', gnu: false }) }],
  ['exec', { strict: defineOptions({ flags: 'cl', valued: 'a', gnu: false }), loose: defineOptions({ flags: 'cl', valued: 'a', gnu: false }) }],
  ['nice', { strict: defineOptions({ valued: 'n', numeric: 'option', longValued: ['adjustment'] }), loose: defineOptions({ valued: 'n', numeric: 'option', longValued: ['adjustment'] }) }],
  [
    'timeout',
    {
      strict: defineOptions({ flags: 'fpv', valued: 'ks', long: ['foreground', 'preserve-status', 'verbose'], longValued: ['kill-after', 'signal'] }),
      loose: defineOptions({ flags: 'fpv', valued: 'ks', longValued: ['kill-after', 'signal'] }),
      leading: 1,
    },
  ],
  // Bash's `time` keyword takes only -p; GNU time's -o/--output writes a file.
  ['time', { strict: defineOptions({ flags: 'p', gnu: false }), loose: defineOptions({ flags: 'apqv', valued: 'fo', longValued: ['format', 'output'] }) }],
  [
    'env',
    {
      strict: defineOptions({ flags: 'i', valued: 'u', long: ['ignore-environment'], longValued: ['unset'] }),
      loose: defineOptions({ flags: 'i0v', valued: 'uCS', longValued: ['unset', 'chdir', 'split-string'], longOptional: ['block-signal', 'default-signal', 'ignore-signal'] }),
    },
  ],
  ['nohup', { strict: null, loose: defineOptions({}) }],
  ['stdbuf', { strict: null, loose: defineOptions({ valued: 'ioe', longValued: ['input', 'output', 'error'] }) }],
  [
    'sudo',
    {
      strict: null,
      loose: defineOptions({
        flags: 'AbBEeHhiKklNnPSsVv',
        valued: 'agCcDpRrTtUu',
        longValued: ['user', 'group', 'close-from', 'chdir', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot', 'login-class'],
      }),
    },
  ],
  ['doas', { strict: null, loose: defineOptions({ flags: 'ns', valued: 'uC', gnu: false }) }],
  [
    'xargs',
    {
      strict: null,
      loose: defineOptions({
        flags: '0prtxiel',
        valued: 'adEILnPs',
        longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
        longOptional: ['eof', 'replace', 'max-lines'],
      }),
    },
  ],
  ['setsid', { strict: null, loose: defineOptions({ flags: 'cfw' }) }],
  ['ionice', { strict: null, loose: defineOptions({ flags: 't', valued: 'cnpPu' }) }],
  ['chroot', { strict: null, loose: defineOptions({ longValued: ['userspec', 'groups'] }), leading: 1 }],
  ['builtin', { strict: null, loose: NO_OPTIONS }],
  ['busybox', { strict: null, loose: NO_OPTIONS }],
]);

/** True for a word that assigns a variable when it stands before the command (`LD_PRELOAD=x`). */
export function isAssignmentWord(word: string): boolean {
  return ASSIGNMENT.test(word);
}

/** True when `arg0` names a program by a plain name or by a path in a system directory. */
export function isTrustedExecutable(arg0: string): boolean {
  const slash = arg0.lastIndexOf('/');
  if (slash < 0) return PLAIN_NAME.test(arg0);
  return TRUSTED_DIRS.has(arg0.slice(0, slash)) && PLAIN_NAME.test(arg0.slice(slash + 1));
}

/** True for `command -v NAME` / `command -V NAME`: a lookup that runs nothing. */
export function isCommandLookup(argv: readonly string[]): boolean {
  const wrapper = WRAPPERS.get('command') as Wrapper;
  const parsed = parseOptions(argv.slice(1), wrapper.strict as OptionTable, { stopAtPositional: true });
  return parsed !== null && parsed.options.some((o) => o.name === '-v' || o.name === '-V');
}

/**
 * The safe direction: the command that `argv` runs through harmless wrappers (`command`,
 * `exec`, `nice`, `timeout`, `time -p`, `env -i`/`-u`), each with allow-listed options. `null`
 * when any word is an assignment, an executable is not trusted, a wrapper could have effects of
 * its own (`nohup`, `sudo`, `xargs`, `env -S`, `env NAME=value`, …) or nothing is left to run.
 * `command -v NAME` is returned as it is (it only looks up).
 */
export function unwrapHarmlessWrappers(argv: readonly string[]): readonly string[] | null {
  let current = argv;
  for (;;) {
    const arg0 = current[0];
    if (arg0 === undefined || isAssignmentWord(arg0) || !isTrustedExecutable(arg0)) return null;
    const name = executableName(arg0);
    const wrapper = WRAPPERS.get(name);
    if (wrapper === undefined) return current;
    if (wrapper.strict === null) return null;
    if (name === 'command' && isCommandLookup(current)) return current;
    const parsed = parseOptions(current.slice(1), wrapper.strict, { stopAtPositional: true });
    if (parsed === null) return null;
    let start = 1 + parsed.end + (wrapper.leading ?? 0);
    // `env -` is an old spelling of `env -i`.
    if (name === 'env' && current[start] === '-') start++;
    current = current.slice(start);
  }
}

/**
 * The stricter direction: `argv` and every form it reduces to, outermost first: reserved words
 * and assignments stripped, the executable by base name (`/bin/rm` → `rm`), each wrapper seen
 * through. An empty form means a wrapper or assignment with no command after it.
 */
export function normalizedForms(argv: readonly string[]): string[][] {
  const forms: string[][] = [[...argv]];
  let current: readonly string[] = argv;
  for (let guard = 0; guard < 32; guard++) {
    let skip = 0;
    while (skip < current.length && (RESERVED_PREFIXES.has(current[skip] as string) || isAssignmentWord(current[skip] as string))) skip++;
    if (skip > 0) {
      current = current.slice(skip);
      forms.push([...current]);
    }
    const arg0 = current[0];
    if (arg0 === undefined) break;
    const name = executableName(arg0);
    if (name !== arg0) forms.push([name, ...current.slice(1)]);
    const inner = seeThroughLoosely(name, current.slice(1));
    if (inner === null) break;
    current = inner;
    forms.push([...current]);
  }
  return forms;
}

/** The command a wrapper runs, read leniently; `null` when `name` is no wrapper or only looks up. */
function seeThroughLoosely(name: string, args: readonly string[]): readonly string[] | null {
  const wrapper = WRAPPERS.get(name);
  if (wrapper === undefined) return null;
  const parsed = parseOptions(args, wrapper.loose, { stopAtPositional: true, lenient: true });
  if (parsed === null) return null;
  if (name === 'command' && parsed.options.some((o) => o.name === '-v' || o.name === '-V')) return null;
  let rest = args.slice(parsed.end + (wrapper.leading ?? 0));
  if (name === 'env') {
    if (rest[0] === '-') rest = rest.slice(1);
    const split = parsed.options.filter((o) => (o.name === '-S' || o.name === '--split-string') && o.value !== null);
    rest = [...split.flatMap((o) => (o.value as string).split(/\s+/).filter((w) => w !== '')), ...rest];
  }
  if (name === 'xargs' && rest.length === 0) return ['echo'];
  return rest;
}

/**
 * Every command form the strictest checks look at for `argv`: for a `bash -lc` wrapper, each
 * piece of its script as scanned loosely (`shell-scan.ts`), else `argv` itself; each with its
 * normalised forms, and, nested up to a few levels, the commands inside `sh -c` scripts,
 * `eval` arguments and `find -exec`. Never use it to allow anything.
 */
export function commandsForStrictCheck(argv: readonly string[]): string[][] {
  const out: string[][] = [];
  const script = shellWrapperScript(argv);
  if (script !== null) for (const piece of scanShellScript(script)) collectForms(piece, 1, out);
  else collectForms(argv, 0, out);
  const seen = new Set<string>();
  return out.filter((form) => {
    const key = JSON.stringify(form);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function collectForms(argv: readonly string[], depth: number, out: string[][]): void {
  for (const form of normalizedForms(argv)) {
    if (form.length === 0) continue;
    out.push(form);
    if (depth < MAX_DEPTH) for (const inner of innerCommands(form)) collectForms(inner, depth + 1, out);
  }
}

/** Commands that a form runs through a nested script: `sh -c '…'`, `eval …`, `find … -exec …`. */
function innerCommands(form: readonly string[]): string[][] {
  const name = executableName(form[0] as string);
  const args = form.slice(1);
  if (SHELLS.has(name)) {
    const script = shellScriptArgument(args);
    return script === null ? [] : scanShellScript(script);
  }
  if (name === 'eval') return scanShellScript(args.join(' '));
  if (name === 'find') return findExecCommands(args);
  return [];
}

/** The script of `sh [options] -c SCRIPT …` (any option cluster holding `c`), or `null`. */
function shellScriptArgument(args: readonly string[]): string | null {
  let hasC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--' || a === '-') return hasC ? (args[i + 1] ?? null) : null;
    if (a === '-o' || a === '+o' || a === '-O' || a === '+O' || a === '--rcfile' || a === '--init-file') i++;
    else if (/^[-+][A-Za-z]+$/.test(a) && a.startsWith('-')) hasC ||= a.includes('c');
    else if (!a.startsWith('-') && !a.startsWith('+')) return hasC ? a : null;
  }
  return null;
}

/** The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` actions. */
function findExecCommands(args: readonly string[]): string[][] {
  const commands: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i] as string)) continue;
    const command: string[] = [];
    for (i++; i < args.length && args[i] !== ';' && args[i] !== '+'; i++) command.push(args[i] as string);
    if (command.length > 0) commands.push(command);
  }
  return commands;
}
