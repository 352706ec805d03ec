/**
 * Reads and writes the subset of Codex's execpolicy language (Starlark) that Deputy uses:
 * `prefix_rule(pattern=[...], decision="allow"|"prompt"|"forbidden", justification="...")`
 * calls, one rule per call, calls possibly spread over several lines, `#` comments. The reader
 * is tolerant: a call it cannot read becomes a warning naming the file and line, and reading
 * goes on. It knows nothing about files or matching; `rules.ts` does.
 */
import type { RuleDecision } from './policy.js';

/** One element of a pattern: a literal token, or a list of alternatives for that position. */
export type PatternToken = string | readonly string[];

/** A prefix rule as written in a rules file. */
export interface PrefixRule {
  pattern: readonly PatternToken[];
  decision: RuleDecision;
  justification: string | null;
}

/** The result of reading one rules file. */
export interface ParsedRules {
  rules: PrefixRule[];
  /** One message per call that could not be read, e.g. `default.rules:3: expected "]"`. */
  warnings: string[];
}

/** Codex calls that are valid in rules files but carry nothing Deputy acts on. */
const IGNORED_CALLS = new Set(['network_rule', 'host_executable']);
const DECISIONS = new Set<RuleDecision>(['allow', 'prompt', 'forbidden']);

type Token =
  | { kind: 'ident'; value: string; line: number }
  | { kind: 'string'; value: string; line: number }
  | { kind: 'punct'; value: string; line: number }
  | { kind: 'bad'; value: string; line: number };

type Value = string | boolean | null | Value[];

/** Formats an `allow` rule for a command prefix, in the reference's spelling. */
export function formatPrefixRule(prefix: readonly string[]): string {
  const tokens = prefix.map((t) => JSON.stringify(t)).join(', ');
  return `prefix_rule(pattern=[${tokens}], decision="allow")`;
}

/** Reads rules file text; `source` names the file in warnings. */
export function parseRules(text: string, source: string): ParsedRules {
  const tokens = tokenize(text);
  const rules: PrefixRule[] = [];
  const warnings: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const at = i;
    const start = tokens[at] as Token;
    try {
      const call = readCall(tokens, at);
      // A call that was read but means nothing valid is skipped exactly, not by line.
      i = call.next;
      if (call.name === 'prefix_rule') rules.push(toPrefixRule(call.args, start.line));
      else if (!IGNORED_CALLS.has(call.name)) throw new SyntaxProblem(`unknown function ${call.name}()`, start.line);
    } catch (e) {
      if (!(e instanceof SyntaxProblem)) throw e;
      // Report the line where the call starts: that is the rule the user has to fix.
      warnings.push(`${source}:${start.line}: ${e.message}; rule ignored`);
      if (i === at) i = recover(tokens, at);
    }
  }
  return { rules, warnings };
}

class SyntaxProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** Skips to the first `name(` on a line after the start of the call that failed. */
function recover(tokens: readonly Token[], from: number): number {
  const line = (tokens[from] as Token).line;
  let i = from + 1;
  while (i < tokens.length) {
    const t = tokens[i] as Token;
    const next = tokens[i + 1];
    if (t.line > line && t.kind === 'ident' && next?.kind === 'punct' && next.value === '(') return i;
    i++;
  }
  return i;
}

function readCall(tokens: readonly Token[], at: number): { name: string; args: Map<string, Value>; next: number } {
  const name = tokens[at] as Token;
  if (name.kind !== 'ident') throw new SyntaxProblem(`expected a function call, got ${describe(name)}`, name.line);
  let i = expectPunct(tokens, at + 1, '(', name.line);
  const args = new Map<string, Value>();
  for (;;) {
    const t = tokens[i];
    if (t === undefined) throw new SyntaxProblem('unterminated call: expected ")"', name.line);
    if (t.kind === 'punct' && t.value === ')') return { name: name.value, args, next: i + 1 };
    if (t.kind !== 'ident') throw new SyntaxProblem(`expected a keyword argument, got ${describe(t)}`, t.line);
    i = expectPunct(tokens, i + 1, '=', t.line);
    const value = readValue(tokens, i);
    args.set(t.value, value.value);
    i = value.next;
    const sep = tokens[i];
    if (sep?.kind === 'punct' && sep.value === ',') i++;
    else if (!(sep?.kind === 'punct' && sep.value === ')')) throw new SyntaxProblem(`expected "," or ")", got ${describe(sep)}`, sep?.line ?? t.line);
  }
}

function readValue(tokens: readonly Token[], at: number): { value: Value; next: number } {
  const t = tokens[at];
  if (t === undefined) throw new SyntaxProblem('expected a value, got the end of the file', lastLine(tokens));
  if (t.kind === 'string') return { value: t.value, next: at + 1 };
  if (t.kind === 'ident' && (t.value === 'True' || t.value === 'False')) return { value: t.value === 'True', next: at + 1 };
  if (t.kind === 'ident' && t.value === 'None') return { value: null, next: at + 1 };
  if (t.kind === 'punct' && t.value === '[') {
    const items: Value[] = [];
    let i = at + 1;
    for (;;) {
      const u = tokens[i];
      if (u?.kind === 'punct' && u.value === ']') return { value: items, next: i + 1 };
      const item = readValue(tokens, i);
      items.push(item.value);
      i = item.next;
      const sep = tokens[i];
      if (sep?.kind === 'punct' && sep.value === ',') i++;
      else if (!(sep?.kind === 'punct' && sep.value === ']')) throw new SyntaxProblem(`expected "," or "]", got ${describe(sep)}`, sep?.line ?? t.line);
    }
  }
  throw new SyntaxProblem(`expected a value, got ${describe(t)}`, t.line);
}

function toPrefixRule(args: Map<string, Value>, line: number): PrefixRule {
  const pattern = args.get('pattern');
  if (!Array.isArray(pattern) || pattern.length === 0) throw new SyntaxProblem('prefix_rule needs a non-empty pattern list', line);
  const tokens: PatternToken[] = pattern.map((p) => {
    if (typeof p === 'string') return p;
    if (Array.isArray(p) && p.length > 0 && p.every((a): a is string => typeof a === 'string')) return p;
    throw new SyntaxProblem('pattern elements must be strings or non-empty lists of strings', line);
  });
  const decision = args.get('decision') ?? 'allow';
  if (typeof decision !== 'string' || !DECISIONS.has(decision as RuleDecision)) {
    throw new SyntaxProblem(`decision must be "allow", "prompt" or "forbidden", got ${JSON.stringify(decision)}`, line);
  }
  const justification = args.get('justification');
  return { pattern: tokens, decision: decision as RuleDecision, justification: typeof justification === 'string' ? justification : null };
}

function expectPunct(tokens: readonly Token[], at: number, value: string, line: number): number {
  const t = tokens[at];
  if (t?.kind === 'punct' && t.value === value) return at + 1;
  throw new SyntaxProblem(`expected "${value}", got ${describe(t)}`, t?.line ?? line);
}

function describe(t: Token | undefined): string {
  if (t === undefined) return 'the end of the file';
  if (t.kind === 'bad') return t.value;
  return t.kind === 'string' ? `a string` : `"${t.value}"`;
}

function lastLine(tokens: readonly Token[]): number {
  return tokens[tokens.length - 1]?.line ?? 1;
}

/** Splits text into tokens; an unreadable character or string becomes a `bad` token. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'ident', value: m[0], line });
      i += m[0].length;
    } else if ('()[],='.includes(c)) {
      tokens.push({ kind: 'punct', value: c, line });
      i++;
    } else if (c === '"' || c === "'") {
      const read = readString(text, i);
      if (read === null) {
        tokens.push({ kind: 'bad', value: 'an unterminated string', line });
        while (i < text.length && text[i] !== '\n') i++;
      } else {
        tokens.push({ kind: 'string', value: read.value, line });
        i = read.end;
      }
    } else {
      tokens.push({ kind: 'bad', value: `unexpected character ${JSON.stringify(c)}`, line });
      i++;
    }
  }
  return tokens;
}

/** Reads a one-line quoted string with JSON-like escapes; `end` is just past the closing quote. */
function readString(text: string, start: number): { value: string; end: number } | null {
  const quote = text[start];
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') return null;
    if (c === quote) return { value, end: i + 1 };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const e = text[++i];
    if (e === undefined) return null;
    if (e === 'n') value += '\n';
    else if (e === 't') value += '\t';
    else if (e === 'r') value += '\r';
    else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
      value += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
      i += 4;
    } else value += e;
  }
  return null;
}
