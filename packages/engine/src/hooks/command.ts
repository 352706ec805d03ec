/**
 * Runs one command hook: the command under the user's shell (`-c`), through the engine's child-process
 * owner (`ExecChild`), so it is confined by the thread's sandbox policy, hidden from the paths
 * sandboxed commands never see, and given the environment the shell tools get (the
 * `shell_environment_policy`, so no secret they would not see). The JSON payload goes on stdin;
 * stdout and stderr are kept up to a cap. A hook still running at its timeout, or when the turn
 * aborts, is killed with its whole process group; the result says so and the caller goes on.
 */
import type { SandboxPolicy } from '@deputy/protocol';
import { ExecChild } from '../exec/child.js';
import { defaultShell } from '../exec/shell.js';

/** Most bytes of stdout, and of stderr, kept from one hook. */
export const MAX_HOOK_OUTPUT_BYTES = 1024 * 1024;

/** What running a hook needs. */
export interface HookCommandOptions {
  command: string;
  /** The JSON payload written to stdin. */
  stdin: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  sandbox: SandboxPolicy;
  hiddenPaths?: readonly string[];
  timeoutMs: number;
  /** The turn's signal: an abort kills the hook. */
  signal?: AbortSignal;
}

/** How a hook ended. */
export interface HookCommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Why it produced no usable exit: it could not start, timed out or was aborted. */
  error: string | null;
  durationMs: number;
}

class Capped {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  add(bytes: Buffer): void {
    if (this.#size >= MAX_HOOK_OUTPUT_BYTES) return;
    const kept = bytes.subarray(0, MAX_HOOK_OUTPUT_BYTES - this.#size);
    this.#chunks.push(kept);
    this.#size += kept.length;
  }
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/**
 * The argv of a hook: the user's shell with `-c`, not a login shell. Bash gets `--norc`: its
 * stdin is a socket, which bash takes for a remote shell and would otherwise read `~/.bashrc`.
 */
export function hookArgv(command: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const shell = defaultShell(env);
  return shell.endsWith('/bash') ? [shell, '--norc', '--noprofile', '-c', command] : [shell, '-c', command];
}

/** Runs a hook command to its end, its timeout or the abort; never throws. */
export async function runHookCommand(options: HookCommandOptions): Promise<HookCommandResult> {
  const started = Date.now();
  const stdout = new Capped();
  const stderr = new Capped();
  const done = (exitCode: number | null, error: string | null): HookCommandResult => ({
    exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    error,
    durationMs: Date.now() - started,
  });
  let child: ExecChild;
  try {
    child = await ExecChild.spawn({
      argv: hookArgv(options.command, options.env),
      cwd: options.cwd,
      env: options.env,
      sandbox: options.sandbox,
      hiddenPaths: options.hiddenPaths,
      signal: options.signal,
      onOutput: (stream, bytes) => (stream === 'stdout' ? stdout : stderr).add(bytes),
    });
  } catch (e) {
    return done(null, `failed to start hook: ${(e as Error).message}`);
  }
  child.write(options.stdin);
  child.closeStdin();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    onAbort = () => resolve('aborted');
    if (options.signal?.aborted) resolve('aborted');
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([child.ended, stop]);
    if (outcome === 'timeout' || outcome === 'aborted') {
      await child.terminate();
      return done(null, outcome === 'timeout' ? `hook timed out after ${Math.round(options.timeoutMs / 1000)}s` : 'hook aborted');
    }
    return done(outcome.exitCode, outcome.exitCode === null ? `hook killed by signal ${outcome.signal ?? 'unknown'}` : null);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    child.dispose();
  }
}
