/**
 * A loose, over-approximating scan of a shell script for the stricter direction of approvals
 * (forbidden/prompt rules and the destructive-command check): it lists the word vectors of every
 * simple command the script might run, also inside `$(…)`, backquotes, `<(…)`, subshells,
 * groups and the expansions of an unquoted heredoc, with redirection operators and their targets
 * dropped. It never refuses and may report pieces that are not commands (a false positive only
 * makes a check stricter). It must never be used to decide that something is safe or allowed:
 * `shell-words.ts` is the strict reader for that.
 */

/** Stands for an expansion whose result is unknown (command substitution inside a word). */
const UNKNOWN_EXPANSION = '\u0000';

type Frame =
  | { kind: 'dq' }
  | { kind: 'heredoc' }
  | { kind: 'group' }
  | { kind: 'subst' | 'backquote'; saved: WordState };

interface WordState {
  current: string[];
  word: string | null;
  skipNext: boolean;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
}

const ANSI_C_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** The simple commands (as word vectors) that `script` might run. */
export function scanShellScript(script: string): string[][] {
  return new Scanner(script, false).run();
}

/** Scans `text` as the body of a heredoc whose delimiter was unquoted: only its substitutions run. */
function scanHeredocBody(text: string): string[][] {
  return new Scanner(text, true).run();
}

class Scanner {
  private readonly pieces: string[][] = [];
  private readonly stack: Frame[] = [];
  private state: WordState = { current: [], word: null, skipNext: false };
  /** The next finished word is a heredoc delimiter (`<<` / `<<-`). */
  private heredocNext: { stripTabs: boolean } | null = null;
  private wordWasQuoted = false;
  private readonly heredocs: PendingHeredoc[] = [];
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly isHeredocBody: boolean,
  ) {
    if (isHeredocBody) this.stack.push({ kind: 'heredoc' });
  }

  run(): string[][] {
    for (this.i = 0; this.i < this.text.length; this.i++) {
      const top = this.stack.at(-1);
      if (top?.kind === 'dq' || top?.kind === 'heredoc') this.quotedChar(top.kind);
      else this.plainChar();
    }
    // Unterminated substitutions end with the text; their words still count.
    while (this.stack.length > 0) {
      const frame = this.stack.pop() as Frame;
      if (frame.kind === 'subst' || frame.kind === 'backquote') this.closeSubstitution(frame.saved);
    }
    // A heredoc body's own words are data, not a command.
    if (!this.isHeredocBody) this.finishPiece();
    return this.pieces;
  }

  private append(text: string): void {
    this.state.word = (this.state.word ?? '') + text;
  }

  private finishWord(): void {
    const { word } = this.state;
    this.state.word = null;
    const quoted = this.wordWasQuoted;
    this.wordWasQuoted = false;
    if (word === null) return;
    if (this.heredocNext !== null) {
      this.heredocs.push({ delimiter: word, stripTabs: this.heredocNext.stripTabs, quoted });
      this.heredocNext = null;
    } else if (this.state.skipNext) {
      this.state.skipNext = false;
    } else {
      this.state.current.push(word);
    }
  }

  private finishPiece(): void {
    this.finishWord();
    if (this.state.current.length > 0) this.pieces.push(this.state.current);
    this.state.current = [];
    this.state.skipNext = false;
  }

  private openSubstitution(kind: 'subst' | 'backquote'): void {
    this.stack.push({ kind, saved: this.state });
    this.state = { current: [], word: null, skipNext: false };
  }

  private closeSubstitution(saved: WordState): void {
    this.finishPiece();
    this.state = saved;
    this.append(UNKNOWN_EXPANSION);
  }

  /** A character inside double quotes or an unquoted heredoc body. */
  private quotedChar(kind: 'dq' | 'heredoc'): void {
    const c = this.text[this.i] as string;
    const next = this.text[this.i + 1];
    if (c === '"' && kind === 'dq') {
      this.stack.pop();
    } else if (c === '\\' && next !== undefined) {
      this.i++;
      if (next !== '\n') this.append('$`"\\'.includes(next) ? next : `\\${next}`);
    } else if (c === '$' && next === '(') {
      this.i++;
      this.openSubstitution('subst');
    } else if (c === '`') {
      this.openSubstitution('backquote');
    } else if (kind === 'dq') {
      this.append(c);
    }
  }

  /** A character outside quotes (at top level or inside a substitution or group). */
  private plainChar(): void {
    const c = this.text[this.i] as string;
    const next = this.text[this.i + 1];
    const top = this.stack.at(-1);
    if (c === ' ' || c === '\t') this.finishWord();
    else if (c === '\n') this.newline();
    else if (c === ';' || c === '|') this.finishPiece();
    else if (c === '&') {
      if (next === '>') this.redirection();
      else this.finishPiece();
    } else if (c === '<' || c === '>') {
      if (next === '(') {
        this.finishWord();
        this.i++;
        this.openSubstitution('subst');
      } else this.redirection();
    } else if (c === '(') {
      this.stack.push({ kind: 'group' });
      this.finishPiece();
    } else if (c === ')') {
      if (top?.kind === 'subst') {
        this.stack.pop();
        this.closeSubstitution(top.saved);
      } else {
        if (top?.kind === 'group') this.stack.pop();
        this.finishPiece();
      }
    } else if (c === '`') {
      if (top?.kind === 'backquote') {
        this.stack.pop();
        this.closeSubstitution(top.saved);
      } else this.openSubstitution('backquote');
    } else if (c === '$' && next === '(') {
      this.i++;
      this.openSubstitution('subst');
    } else if (c === '$' && next === "'") {
      this.i++;
      this.ansiCQuoted();
    } else if (c === "'") {
      const close = this.text.indexOf("'", this.i + 1);
      const end = close < 0 ? this.text.length : close;
      this.append(this.text.slice(this.i + 1, end));
      this.wordWasQuoted = true;
      this.i = end;
    } else if (c === '"') {
      this.append('');
      this.wordWasQuoted = true;
      this.stack.push({ kind: 'dq' });
    } else if (c === '\\') {
      // A backslash-newline joins lines; any other escaped character is a quoted part of the word.
      if (next !== undefined && next !== '\n') {
        this.append(next);
        this.wordWasQuoted = true;
      }
      this.i++;
    } else if (c === '#' && this.state.word === null) {
      const end = this.text.indexOf('\n', this.i);
      this.i = (end < 0 ? this.text.length : end) - 1;
    } else this.append(c);
  }

  /** A redirection operator at `this.i`: drops a leading fd number and marks the target to skip. */
  private redirection(): void {
    const { word } = this.state;
    if (word !== null && /^(\d+|\{[A-Za-z_]\w*\})$/.test(word)) this.state.word = null;
    else this.finishWord();
    const rest = this.text.slice(this.i, this.i + 3);
    const op = ['<<<', '&>>', '<<-', '<<', '>>', '>&', '<&', '>|', '<>', '&>', '<', '>'].find((o) => rest.startsWith(o)) as string;
    this.i += op.length - 1;
    if (op === '<<' || op === '<<-') this.heredocNext = { stripTabs: op === '<<-' };
    else this.state.skipNext = true;
  }

  /** A newline outside quotes: ends the command, then reads the bodies of pending heredocs. */
  private newline(): void {
    this.finishPiece();
    while (this.heredocs.length > 0) {
      const heredoc = this.heredocs.shift() as PendingHeredoc;
      const body: string[] = [];
      let start = this.i + 1;
      while (start <= this.text.length) {
        const end = this.text.indexOf('\n', start);
        const lineEnd = end < 0 ? this.text.length : end;
        const line = this.text.slice(start, lineEnd);
        this.i = lineEnd;
        start = lineEnd + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
        body.push(line);
      }
      if (!heredoc.quoted) this.pieces.push(...scanHeredocBody(body.join('\n')));
    }
  }

  /** `$'…'` at `this.i` (the quote): bash's ANSI-C quoting, decoded roughly. */
  private ansiCQuoted(): void {
    let text = '';
    let i = this.i + 1;
    for (; i < this.text.length && this.text[i] !== "'"; i++) {
      const c = this.text[i] as string;
      if (c !== '\\') {
        text += c;
        continue;
      }
      const decoded = decodeAnsiCEscape(this.text, i + 1);
      text += decoded.text;
      i = decoded.end;
    }
    this.append(text);
    this.wordWasQuoted = true;
    this.i = i;
  }
}

/** Decodes one backslash escape of `$'…'` starting at `start` (after the backslash). */
function decodeAnsiCEscape(text: string, start: number): { text: string; end: number } {
  const c = text[start];
  if (c === undefined) return { text: '', end: start - 1 };
  const simple = ANSI_C_ESCAPES[c];
  if (simple !== undefined) return { text: simple, end: start };
  const numeric = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(text.slice(start));
  if (numeric !== null) {
    const [all, hex, u4, u8, octal] = numeric;
    const code = hex !== undefined || u4 !== undefined || u8 !== undefined ? parseInt(hex ?? u4 ?? u8 ?? '0', 16) : parseInt(octal ?? '0', 8);
    return { text: code <= 0x10ffff ? String.fromCodePoint(code) : '', end: start + all.length - 1 };
  }
  if (c === 'c' && text[start + 1] !== undefined) {
    return { text: String.fromCharCode((text.charCodeAt(start + 1) & 0x1f) >>> 0), end: start + 1 };
  }
  return { text: c === "'" || c === '"' || c === '\\' || c === '?' ? c : `\\${c}`, end: start };
}
