/**
 * A deliberately small shell reader for approval decisions: it turns `bash -lc "<script>"` into
 * the plain commands the script runs, and only when the script is a list of simple commands
 * (bare words, single- or double-quoted strings without expansions) joined by `&&`, `||`, `;`,
 * `|` or newlines. Anything it cannot prove harmless to split (redirections, `$`, backticks,
 * subshells, background `&`, comments, unterminated quotes) makes it return `null`. Each word
 * also says whether its first character comes from an unquoted glob or brace (`*`, `?`, `[`, `{`),
 * whose expansion (a file name such as `--output=x`) we cannot see. It never runs a shell and must
 * not be used to build commands, only to classify them.
 */
import path from 'node:path';

/** Shells whose `-c`/`-lc` script we look inside (matched on the executable's base name). */
const WRAPPER_SHELLS = new Set(['bash', 'zsh', 'sh']);
const WRAPPER_FLAGS = new Set(['-c', '-lc']);

/** Characters that make a script too complex to classify anywhere outside single quotes. */
const REJECTED_UNQUOTED = new Set(['$', '`', '(', ')', '<', '>']);
/** Escapes that a backslash removes inside double quotes (bash semantics). */
const DQ_ESCAPABLE = new Set(['$', '`', '"', '\\']);
/** Unquoted characters that start pathname or brace expansion. */
const EXPANDING_UNQUOTED = new Set(['*', '?', '[', '{']);

/** One word of a plain command, after quote removal. */
export interface ShellWord {
  /** The word as the command receives it when nothing expands. */
  text: string;
  /**
   * The word's first character is an unquoted `*`, `?`, `[` or `{`: the shell may replace the
   * word by words we cannot see (any file name, or brace alternatives such as `{--out=x,y}`).
   */
  expandsAtStart: boolean;
}

/** The base name of an executable path (`/usr/bin/git` → `git`). */
export function executableName(arg0: string): string {
  return path.posix.basename(arg0);
}

/**
 * The script of a shell wrapper: exactly `[<bash|zsh|sh>, '-c'|'-lc', script]` (a shell given
 * by path counts too). Returns `null` for any other shape, e.g. extra arguments after the script.
 */
export function shellWrapperScript(argv: readonly string[]): string | null {
  if (argv.length !== 3) return null;
  const [shell, flag, script] = argv as [string, string, string];
  if (!WRAPPER_SHELLS.has(executableName(shell)) || !WRAPPER_FLAGS.has(flag)) return null;
  return script;
}

/**
 * The plain commands of a shell wrapper (`bash -lc "ls && pwd"` → `[['ls'], ['pwd']]`), or
 * `null` when `argv` is not a wrapper or its script is not a plain command list.
 */
export function parseShellWrapperCommands(argv: readonly string[]): string[][] | null {
  const script = shellWrapperScript(argv);
  if (script === null) return null;
  const commands = parsePlainShellScript(script);
  return commands !== null && commands.length > 0 ? commands : null;
}

type Separator = '&&' | '||' | '|' | ';' | '\n';

/**
 * Splits a script into its plain commands. Returns `null` when the script uses any construct
 * beyond words, quotes and the list operators, or when an operator has an empty side.
 */
export function parsePlainShellScript(script: string): string[][] | null {
  return parsePlainShellWords(script)?.map((command) => command.map((w) => w.text)) ?? null;
}

/** Like `parsePlainShellScript`, keeping what each word may expand to (see {@link ShellWord}). */
export function parsePlainShellWords(script: string): ShellWord[][] | null {
  const commands: ShellWord[][] = [];
  let current: ShellWord[] = [];
  let word: ShellWord | null = null;
  /** The operator that ended the previous command, when a command must still follow it. */
  let pending: Separator | null = null;

  const finishWord = (): void => {
    if (word !== null) current.push(word);
    word = null;
  };
  /** Ends the current command at an operator; an operator with nothing before it is an error. */
  const endCommand = (sep: Separator): boolean => {
    finishWord();
    if (current.length === 0) {
      // A newline after `&&`/`||`/`|` continues the list, and blank lines are harmless.
      if (sep === '\n') return true;
      return false;
    }
    commands.push(current);
    current = [];
    pending = sep === ';' || sep === '\n' ? null : sep;
    return true;
  };

  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    const next = script[i + 1];
    if (c === ' ' || c === '\t') {
      finishWord();
    } else if (c === '\n' || c === ';') {
      if (c === ';' && next === ';') return null;
      if (!endCommand(c)) return null;
    } else if (c === '&') {
      if (next !== '&') return null; // background jobs and `&>` are out
      if (!endCommand('&&')) return null;
      i++;
    } else if (c === '|') {
      if (next === '&') return null;
      const op: Separator = next === '|' ? '||' : '|';
      if (!endCommand(op)) return null;
      if (op === '||') i++;
    } else if (c === '#' && word === null) {
      return null; // a comment could hide text from us; refuse rather than guess
    } else if (c === '\\' && next === '\n') {
      i++; // line continuation: joins the lines without starting a word
    } else {
      const piece = readWordPiece(script, i);
      if (piece === null) return null;
      const isStart = word === null || word.text === '';
      word ??= { text: '', expandsAtStart: false };
      if (isStart && piece.end === i && EXPANDING_UNQUOTED.has(c)) word.expandsAtStart = true;
      word.text += piece.text;
      i = piece.end;
    }
  }
  finishWord();
  if (current.length > 0) commands.push(current);
  else if (pending !== null) return null; // trailing `&&`, `||` or `|`
  return commands;
}

/**
 * Reads the word piece starting at `start` (a quoted string, an escaped character or one plain
 * character); `end` is the index of its last character. `null` for anything we refuse.
 */
function readWordPiece(script: string, start: number): { text: string; end: number } | null {
  const c = script[start] as string;
  if (c === "'") {
    const close = script.indexOf("'", start + 1);
    return close < 0 ? null : { text: script.slice(start + 1, close), end: close };
  }
  if (c === '"') return readDoubleQuoted(script, start + 1);
  if (c === '\\') {
    const next = script[start + 1];
    if (next === undefined) return null;
    return { text: next, end: start + 1 };
  }
  if (REJECTED_UNQUOTED.has(c)) return null;
  return { text: c, end: start };
}

/** Reads a double-quoted string body starting at `start`; `end` is the closing quote's index. */
function readDoubleQuoted(script: string, start: number): { text: string; end: number } | null {
  let text = '';
  for (let i = start; i < script.length; i++) {
    const c = script[i] as string;
    if (c === '"') return { text, end: i };
    if (c === '$' || c === '`') return null; // expansions inside double quotes
    if (c === '\\') {
      const next = script[i + 1];
      if (next === undefined) return null;
      if (next === '\n') {
        i++;
      } else if (DQ_ESCAPABLE.has(next)) {
        text += next;
        i++;
      } else {
        text += c;
      }
      continue;
    }
    text += c;
  }
  return null;
}
