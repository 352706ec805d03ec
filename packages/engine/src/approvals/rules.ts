/**
 * Persistent command rules ("approve and remember"): `<home>/rules/default.rules` in Codex's
 * execpolicy syntax, one `prefix_rule(...)` per line when Deputy writes it. This module loads
 * the file (tolerantly), matches commands against the rules, appends new allow rules, and proposes
 * a prefix for the approval prompt. It does not decide what happens to a command; `policy.ts` does.
 *
 * Matching is asymmetric. `allow` matches only the command as written (each plain command of a
 * `bash -lc` script, with no assignment or wrapper in front), so `LD_PRELOAD=x npm test` never
 * rides on an `allow npm test` rule. `forbidden` and `prompt` also match every normalised form
 * (`commandsForStrictCheck`: assignments stripped, wrappers such as `command`, `env`, `sudo`
 * seen through, `/bin/rm` as `rm`, the pieces of scripts the strict parser refuses, nested
 * `sh -c`), and the strictest decision wins.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { commandsForStrictCheck, normalizedForms } from './command-normalize.js';
import type { RuleDecision } from './policy.js';
import { formatPrefixRule, parseRules, type PrefixRule } from './rules-syntax.js';
import { isKnownSafeCommand } from './safe-commands.js';
import { parseShellWrapperCommands } from './shell-words.js';

/** The rules file, relative to the Deputy home (same layout as Codex's home). */
export const DEFAULT_RULES_RELATIVE_PATH = path.join('rules', 'default.rules');

/**
 * Prefixes never proposed or remembered because they would approve arbitrary code: bare
 * interpreters and shells (`python3 -c`, `bash -lc`, `node -e`, `env`, `sudo`, `git`, …).
 */
const BANNED_PREFIXES: readonly (readonly string[])[] = [
  ['python3'], ['python3', '-'], ['python3', '-c'], ['python'], ['python', '-'], ['python', '-c'],
  ['py'], ['pypy'], ['pypy3'], ['git'], ['bash'], ['bash', '-lc'], ['bash', '-c'], ['sh'], ['sh', '-c'],
  ['sh', '-lc'], ['zsh'], ['zsh', '-lc'], ['zsh', '-c'], ['/bin/bash'], ['/bin/bash', '-lc'], ['/bin/sh'],
  ['/bin/sh', '-c'], ['/bin/zsh'], ['/bin/zsh', '-lc'], ['env'], ['sudo'], ['node'], ['node', '-e'],
  ['perl'], ['perl', '-e'], ['ruby'], ['ruby', '-e'], ['php'], ['php', '-r'], ['lua'], ['lua', '-e'],
  ['pwsh'], ['powershell'], ['osascript'], ['xargs'], ['npx'], ['deno'], ['bun'],
];

/**
 * The commands an `allow` rule is checked against, as written: the plain commands of a shell
 * script, or argv itself (a script the strict parser refuses is matched as a whole).
 */
export function commandsForRules(argv: readonly string[]): (readonly string[])[] {
  return parseShellWrapperCommands(argv) ?? [argv];
}

/** True when `prefix` (literal tokens) is a prefix of `command`. */
export function isPrefixOf(prefix: readonly string[], command: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= command.length && prefix.every((t, i) => command[i] === t);
}

/**
 * True when `prefix` is empty, one of the banned interpreter prefixes, or reduces to one (or to
 * nothing) once assignments and wrappers are seen through: `['nice']`, `['A=1']`,
 * `['sudo', 'python3']` and `['/usr/bin/python3']` would approve arbitrary code too.
 */
export function isBannedPrefix(prefix: readonly string[]): boolean {
  if (prefix.length === 0) return true;
  const isListed = (p: readonly string[]) => BANNED_PREFIXES.some((b) => b.length === p.length && b.every((t, i) => p[i] === t));
  return normalizedForms(prefix).some((form) => form.length === 0 || isListed(form));
}

/**
 * The prefix an "approve and remember" answer would store. The model's `prefix_rule` is used when
 * it is not banned and covers every command of the script that is not known safe; otherwise the
 * first such command itself. `null` when there is nothing sensible to remember.
 */
export function proposePrefixRule(argv: readonly string[], modelPrefixRule?: readonly string[] | null): string[] | null {
  const commands = commandsForRules(argv);
  const needingApproval = commands.filter((c) => !isKnownSafeCommand(c));
  const targets = needingApproval.length > 0 ? needingApproval : commands;
  if (modelPrefixRule && !isBannedPrefix(modelPrefixRule) && targets.every((c) => isPrefixOf(modelPrefixRule, c))) {
    return [...modelPrefixRule];
  }
  const first = targets[0];
  if (first === undefined || isBannedPrefix(first)) return null;
  return [...first];
}

const STRICTNESS: Record<RuleDecision, number> = { allow: 0, prompt: 1, forbidden: 2 };

/** Prefix rules loaded from the rules file, plus the ones remembered since. */
export class PrefixRules {
  private readonly rules: PrefixRule[];
  private writeQueue: Promise<void> = Promise.resolve();

  private constructor(
    /** The rules file, or `null` for an in-memory set that cannot `remember`. */
    readonly filePath: string | null,
    rules: PrefixRule[],
    /** Lines of the file that could not be read (the rest still apply). */
    readonly warnings: readonly string[],
  ) {
    this.rules = rules;
  }

  /** Loads `<home>/rules/default.rules`; a missing file means no rules. */
  static async load(home: string): Promise<PrefixRules> {
    const filePath = path.join(home, DEFAULT_RULES_RELATIVE_PATH);
    let text: string;
    try {
      text = await fs.readFile(filePath, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new PrefixRules(filePath, [], []);
      return new PrefixRules(filePath, [], [`${filePath}: cannot read rules file: ${(e as Error).message}`]);
    }
    const parsed = parseRules(text, filePath);
    return new PrefixRules(filePath, parsed.rules, parsed.warnings);
  }

  /** An in-memory rule set (tests, ephemeral threads); `remember` only updates memory. */
  static fromText(text: string, source = 'rules'): PrefixRules {
    const parsed = parseRules(text, source);
    return new PrefixRules(null, parsed.rules, parsed.warnings);
  }

  /**
   * The rule decision for a command: the strictest decision of any matching rule (`forbidden` >
   * `prompt` > `allow`) across the script's commands as written and, for `forbidden`/`prompt`,
   * across their normalised forms; `allow` only when every command as written matches an allow
   * rule and nothing stricter matched; `null` when rules say nothing (the heuristics decide).
   */
  evaluate(argv: readonly string[]): RuleDecision | null {
    const asWritten = commandsForRules(argv).map((c) => this.evaluateOne(c));
    const normalized = commandsForStrictCheck(argv).map((c) => this.evaluateOne(c));
    const all = [...asWritten, ...normalized];
    if (all.includes('forbidden')) return 'forbidden';
    if (all.includes('prompt')) return 'prompt';
    return asWritten.length > 0 && asWritten.every((d) => d === 'allow') ? 'allow' : null;
  }

  /** True when an allow rule covers the command (every command of a plain shell script). */
  matches(argv: readonly string[]): boolean {
    return this.evaluate(argv) === 'allow';
  }

  /**
   * Remembers an allow rule for `prefix`: appends it to the rules file (created 0600, its
   * directory 0700; a line that is already there is not repeated) and applies it at once.
   * Throws for an empty or banned prefix.
   */
  async remember(prefix: readonly string[]): Promise<void> {
    if (isBannedPrefix(prefix)) throw new Error(`refusing to remember a rule for ${JSON.stringify(prefix)}: it would allow arbitrary code`);
    const rule: PrefixRule = { pattern: [...prefix], decision: 'allow', justification: null };
    const write = this.writeQueue.then(() => (this.filePath === null ? undefined : appendRuleLine(this.filePath, formatPrefixRule(prefix))));
    // Keep the queue alive after a failed write so later rules are still attempted.
    this.writeQueue = write.catch(() => undefined);
    await write;
    if (!this.rules.some((r) => r.decision === 'allow' && samePattern(r.pattern, prefix))) this.rules.push(rule);
  }

  private evaluateOne(command: readonly string[]): RuleDecision | null {
    let best: RuleDecision | null = null;
    for (const rule of this.rules) {
      if (!patternMatches(rule.pattern, command)) continue;
      if (best === null || STRICTNESS[rule.decision] > STRICTNESS[best]) best = rule.decision;
    }
    return best;
  }
}

function patternMatches(pattern: PrefixRule['pattern'], command: readonly string[]): boolean {
  if (pattern.length === 0 || pattern.length > command.length) return false;
  return pattern.every((token, i) => {
    const actual = command[i] as string;
    return typeof token === 'string' ? token === actual : token.includes(actual);
  });
}

function samePattern(pattern: PrefixRule['pattern'], prefix: readonly string[]): boolean {
  return pattern.length === prefix.length && pattern.every((t, i) => t === prefix[i]);
}

async function appendRuleLine(filePath: string, line: string): Promise<void> {
  await fs.mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
  const handle = await fs.open(filePath, 'a+', 0o600);
  try {
    const existing = await handle.readFile('utf8');
    if (existing.split('\n').some((l) => l.trim() === line)) return;
    const separator = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
    await handle.appendFile(`${separator}${line}\n`, 'utf8');
  } finally {
    await handle.close();
  }
}
