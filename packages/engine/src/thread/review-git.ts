/**
 * The git a review runs to build its prompt (`git diff`, `git show`, `git rev-parse`, `git
 * ls-files`), confined like a command. The thread's cwd is workspace content: a sandboxed command
 * can plant the `.git` that git finds first there (in a subdirectory, a submodule, a folder that
 * was no repository), and git runs what that `.git/config` names (`core.fsmonitor`,
 * `diff.external`, textconv and filter drivers, hooks, a pager). So review's git never runs in
 * Deputy's own process context: it runs under bwrap with the read-only policy (network off,
 * Deputy's hidden paths masked) whatever the thread's sandbox mode, danger-full-access included,
 * because a review only reads. Without a working bwrap the review fails; git is never run
 * unsandboxed. On top of that, git is told not to run the programs options can switch off
 * (`-c core.fsmonitor=false`, hooks to /dev/null, no pager, `--no-ext-diff --no-textconv` where
 * the subcommand takes them), gets no `GIT_*` variable of Deputy's environment and no system
 * config; filter drivers named by `.gitattributes` cannot be switched off by option, which is why
 * the sandbox, not the options, is the guarantee. Each run is bounded in time and output and
 * stops with the caller's signal.
 */
import type { SandboxPolicy } from '@deputy/protocol';
import { ExecChild } from '../exec/child.js';
import { SandboxUnavailableError } from '../exec/errors.js';
import type { BwrapLocation } from '../exec/sandbox-probe.js';
import { InvalidInputError } from '../errors.js';

/** Where review's git runs: read-only, no network. */
const REVIEW_SANDBOX: SandboxPolicy = { type: 'read-only', networkAccess: false };

/** Longest one git run may take. */
const GIT_TIMEOUT_MS = 30_000;

/** Most stderr kept for an error message. */
const MAX_STDERR_BYTES = 16 * 1024;

/**
 * Global options in front of every review git: no pager, no fsmonitor, no hooks, no
 * signature checks (gpg), no optional index writes. Passed on to the git processes git starts
 * itself (for submodules) through GIT_CONFIG_PARAMETERS.
 */
export const REVIEW_GIT_GLOBALS: readonly string[] = [
  '--no-pager',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.pager=cat',
  '-c', 'log.showSignature=false',
];

/** Diff options that keep git from running external diff and textconv programs. */
export const REVIEW_DIFF_OPTIONS: readonly string[] = ['--no-ext-diff', '--no-textconv'];

/** How review's git runs: what the sandbox hides, the caller's signal, and (tests) where bwrap is. */
export interface ReviewGitOptions {
  /** Paths hidden from the sandbox (Deputy's home, the front door's sockets and token files). */
  hiddenPaths?: readonly string[];
  /** Aborting kills the git process group; the run rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Where bwrap is; default: on `PATH`. */
  bwrap?: BwrapLocation;
}

/** What one git run printed, and how it ended. */
export interface GitRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout passed the limit; the process was stopped and the rest dropped. */
  isTruncated: boolean;
}

/**
 * The environment of review's git: PATH, HOME and a UTF-8 locale, no `GIT_*` of Deputy's own
 * (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF, …), no system config, no prompts, no optional locks.
 */
export function reviewGitEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: source.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
  if (source.HOME !== undefined) env.HOME = source.HOME;
  return env;
}

/**
 * Runs `argv` (git, or a shell looping over git) in `cwd` inside the read-only sandbox; resolves
 * when it ends. stdout is kept up to `maxStdoutBytes` (then the process is stopped and the run is
 * marked truncated). Rejects with InvalidInputError when bwrap cannot run, ExecSpawnError when
 * git cannot start, the signal's reason on abort, and an Error after {@link GIT_TIMEOUT_MS}.
 */
export async function runSandboxedGit(cwd: string, argv: readonly string[], maxStdoutBytes: number, options: ReviewGitOptions = {}): Promise<GitRun> {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let stdoutBytes = 0;
  let stderrBytes = 0;
  let isTruncated = false;
  let child: ExecChild | undefined;
  try {
    child = await ExecChild.spawn({
      argv,
      cwd,
      env: reviewGitEnv(),
      sandbox: REVIEW_SANDBOX,
      hiddenPaths: options.hiddenPaths,
      bwrap: options.bwrap,
      stdin: 'ignore',
      signal: options.signal,
      onOutput: (stream, bytes) => {
        if (stream === 'stderr') {
          if (stderrBytes < MAX_STDERR_BYTES) stderr.push(bytes.subarray(0, MAX_STDERR_BYTES - stderrBytes));
          stderrBytes += bytes.length;
          return;
        }
        if (isTruncated) return;
        const room = maxStdoutBytes - stdoutBytes;
        stdout.push(bytes.subarray(0, Math.max(0, room)));
        stdoutBytes += bytes.length;
        if (stdoutBytes > maxStdoutBytes) {
          isTruncated = true;
          void child?.terminate();
        }
      },
    });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) {
      throw new InvalidInputError(`cannot review: the review reads git only inside the sandbox, and it cannot run here (${error.message})`);
    }
    throw error;
  }
  // Output may have passed the limit before spawn returned.
  if (isTruncated) void child.terminate();
  const exit = await untilEnded(child, options.signal);
  return { exitCode: exit.exitCode, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), isTruncated };
}

/** Waits for the child's end, killing its group on abort or timeout (and rejecting once it is gone). */
async function untilEnded(child: ExecChild, signal: AbortSignal | undefined): Promise<{ exitCode: number | null }> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let isStopping = false;
  const stopped = new Promise<never>((_, reject) => {
    // Rejects once the whole group is gone (terminate is bounded: SIGTERM, then SIGKILL), so a
    // cancelled review has stopped every program git started when its call returns.
    timer = setTimeout(() => {
      isStopping = true;
      void child.terminate().finally(() => reject(new Error(`git took longer than ${GIT_TIMEOUT_MS / 1000} s and was stopped`)));
    }, GIT_TIMEOUT_MS);
    onAbort = () => {
      isStopping = true;
      void child.terminate().finally(() => reject(signal?.reason instanceof Error ? signal.reason : new Error('the review was cancelled')));
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const exit = await Promise.race([child.ended, stopped]);
    // The kill ends the child before terminate settles: the stop's own error is the answer.
    if (isStopping) await stopped;
    return exit;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    child.dispose();
  }
}
