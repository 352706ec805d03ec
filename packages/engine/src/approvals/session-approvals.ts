/**
 * Per-thread memory of "approved for session" answers. Commands are remembered by their exact
 * argv (as the reference does), plus the model's `prefix_rule` when it supplied an acceptable
 * one; patches are remembered per path, so a patch touching another file asks again. A command
 * approval also remembers whether the user was asked to run it *outside* the sandbox: an answer
 * to "run this (sandboxed)?" never covers a later run without the sandbox (an escalation, or the
 * rerun after a sandbox denial), which needs its own question. Nothing here is persisted;
 * `rules.ts` owns what outlives the thread.
 */
import path from 'node:path';
import { commandsForRules, isBannedPrefix, isPrefixOf } from './rules.js';
import { isKnownSafeCommand, isSafeShellCommand } from './safe-commands.js';
import { parsePlainShellWords, shellWrapperScript, type ShellWord } from './shell-words.js';

/**
 * The safe-list check for the commands a prefix does not cover: git does not count, because an
 * approved command runs in the turn's sandbox (or none), where the programs a repository's git
 * config names could change things.
 */
const STRICT = { allowGit: false } as const;

/** Options for `approveCommand`. */
export interface ApproveCommandOptions {
  /** The prefix the model proposed with the call (`prefix_rule`); ignored when banned or not covering the command. */
  prefixRule?: readonly string[] | null;
  /** The user approved running it without the sandbox (the question said so). */
  isUnsandboxed?: boolean;
}

/** Options for `isCommandApproved`. */
export interface CommandApprovalQuery {
  /** Only approvals of runs without the sandbox count. */
  isUnsandboxed?: boolean;
}

/** Session approvals of one thread. */
export class SessionApprovals {
  /** Approved commands by key; the value says whether the approval covers unsandboxed runs. */
  private readonly commands = new Map<string, boolean>();
  private readonly prefixes: { prefix: string[]; isUnsandboxed: boolean }[] = [];
  private readonly paths = new Set<string>();

  /** Remembers a command approved for the session (and its prefix rule, when acceptable). */
  approveCommand(argv: readonly string[], options: ApproveCommandOptions = {}): void {
    const isUnsandboxed = options.isUnsandboxed === true;
    const key = commandKey(argv);
    this.commands.set(key, isUnsandboxed || this.commands.get(key) === true);
    const prefix = options.prefixRule;
    if (prefix && !isBannedPrefix(prefix) && prefixCovers(prefix, argv)) {
      const known = this.prefixes.find((p) => p.prefix.length === prefix.length && p.prefix.every((t, i) => t === prefix[i]));
      if (known) known.isUnsandboxed ||= isUnsandboxed;
      else this.prefixes.push({ prefix: [...prefix], isUnsandboxed });
    }
  }

  /**
   * True when this exact command was approved, or every command of it (the plain commands of a
   * shell script) is either known safe (git excepted) or starts with an approved prefix, at least
   * one of them through a prefix. With `isUnsandboxed`, only approvals of runs without the sandbox count.
   */
  isCommandApproved(argv: readonly string[], query: CommandApprovalQuery = {}): boolean {
    const needsUnsandboxed = query.isUnsandboxed === true;
    const exact = this.commands.get(commandKey(argv));
    if (exact !== undefined && (exact || !needsUnsandboxed)) return true;
    const prefixes = this.prefixes.filter((p) => p.isUnsandboxed || !needsUnsandboxed).map((p) => p.prefix);
    if (prefixes.length === 0) return false;
    // The commands of a script keep what their words may expand to: a command that is not
    // covered by a prefix must be safe as the shell will run it (`sort {--compress-program=sh,x}`
    // is not `sort` with two file names).
    const script = shellWrapperScript(argv);
    const words: (readonly ShellWord[])[] | null = script === null ? null : parsePlainShellWords(script);
    let viaPrefix = false;
    if (words !== null && words.length > 0) {
      for (const command of words) {
        if (prefixes.some((p) => isPrefixOf(p, command.map((w) => w.text)))) viaPrefix = true;
        else if (!isSafeShellCommand(command, STRICT)) return false;
      }
      return viaPrefix;
    }
    for (const command of commandsForRules(argv)) {
      if (prefixes.some((p) => isPrefixOf(p, command))) viaPrefix = true;
      else if (!isKnownSafeCommand(command, STRICT)) return false;
    }
    return viaPrefix;
  }

  /** Remembers paths (absolute, or relative to `cwd`) approved for the session. */
  approvePaths(paths: readonly string[], cwd = process.cwd()): void {
    for (const p of paths) this.paths.add(path.resolve(cwd, p));
  }

  /** True when `paths` is non-empty and every path was approved for the session. */
  arePathsApproved(paths: readonly string[], cwd = process.cwd()): boolean {
    return paths.length > 0 && paths.every((p) => this.paths.has(path.resolve(cwd, p)));
  }
}

/** True when the prefix starts at least one command of `argv`. */
function prefixCovers(prefix: readonly string[], argv: readonly string[]): boolean {
  return commandsForRules(argv).some((c) => isPrefixOf(prefix, c));
}

/** Exact-argv key; JSON keeps `["a b"]` and `["a", "b"]` apart. */
function commandKey(argv: readonly string[]): string {
  return JSON.stringify(argv);
}
