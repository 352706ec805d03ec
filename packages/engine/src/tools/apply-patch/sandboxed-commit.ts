/**
 * Writes a planned patch from a child process that runs inside the same bubblewrap sandbox as
 * the thread's commands (`buildSandboxedArgv` with the thread's policy, the turn's cwd as the
 * base of the writable roots). The kernel then resolves every path component at the moment of
 * each write in a mount namespace where everything outside the writable roots is read-only, so a
 * directory swapped for a symlink between the checks and the write cannot lead out: the write
 * fails and the commit is rolled back. The child is Node running the shared writer
 * (`writer.ts`) from its source text; it gets the changes as one JSON line on stdin and answers
 * with one JSON line on stdout. No bwrap means no write (`SandboxUnavailableError`), never an
 * unsandboxed one. This module spawns and supervises; what is written is decided elsewhere.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { SandboxPolicy } from '@deputy/protocol';
import { SandboxUnavailableError } from '../../exec/errors.js';
import { checkSandboxAvailable, type BwrapLocation } from '../../exec/sandbox-probe.js';
import { buildSandboxedArgv } from '../../exec/sandbox.js';
import type { PlannedChange } from './apply.js';
import { throwIfFailed, toWriterChanges } from './commit.js';
import { PatchApplyError } from './errors.js';
import { WRITER_CHILD_PROGRAM, type WriterResult } from './writer.js';

/** How long the writer may run before it is told to stop (and roll back). */
export const SANDBOXED_COMMIT_TIMEOUT_MS = 60_000;
/** How long a writer told to stop gets to roll back before it is killed. */
const ROLLBACK_GRACE_MS = 5_000;
/** Environment of the child: nothing of the parent's, so no secret reaches it. */
const CHILD_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };

/** Where and how to run the sandboxed writer. */
export interface SandboxedCommitOptions {
  /** The thread's sandbox policy; must not be danger-full-access. */
  policy: SandboxPolicy;
  /** The turn's cwd: the base of the writable roots, and the child's working directory. */
  workspace: string;
  /** Paths hidden inside the sandbox, as for commands (Deputy's home and the front door's secrets). */
  hiddenPaths?: readonly string[];
  /** `TMPDIR` for the writable roots, as the in-process path check saw it (default `process.env.TMPDIR`). */
  tmpdir?: string;
  /** Stops the writer between files; the files it already wrote are restored. */
  signal?: AbortSignal;
  /** Default {@link SANDBOXED_COMMIT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Where bwrap is; default: on `PATH`. */
  bwrap?: BwrapLocation;
}

const WriterResultSchema: z.ZodType<WriterResult> = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), aborted: z.literal(true) }),
  z.object({ ok: z.literal(false), aborted: z.literal(false), message: z.string(), path: z.string().nullable(), code: z.string().nullable() }),
]);

/**
 * Applies `changes` under the sandbox.
 * @throws SandboxUnavailableError when bwrap cannot run here (nothing written)
 * @throws PatchApplyError when a file changed since planning, a write fails (for instance refused
 *   by the sandbox: "Read-only file system") or the writer misbehaves; what was written is restored
 * @throws the signal's reason when it aborted
 */
export async function commitPatchSandboxed(changes: readonly PlannedChange[], options: SandboxedCommitOptions): Promise<void> {
  if (options.policy.type === 'danger-full-access') throw new Error('commitPatchSandboxed needs a sandboxing policy');
  options.signal?.throwIfAborted();
  const availability = await checkSandboxAvailable(options.bwrap);
  if (!availability.ok) throw new SandboxUnavailableError(availability.message);
  const tmpdir = options.tmpdir ?? process.env.TMPDIR;
  const argv = buildSandboxedArgv([process.execPath, '-e', WRITER_CHILD_PROGRAM], options.policy, {
    cwd: options.workspace,
    workspace: options.workspace,
    // Only what decides the writable roots; the child's real environment is CHILD_ENV.
    env: tmpdir === undefined ? {} : { TMPDIR: tmpdir },
    bwrapPath: availability.bwrapPath,
    isolation: availability.isolation,
    hiddenPaths: options.hiddenPaths,
  });
  // The probe above may have taken a while; an abort during it must not start the writer.
  options.signal?.throwIfAborted();
  const run = await runChild(argv, `${JSON.stringify({ changes: toWriterChanges(changes) })}\n`, options);
  if (run.result === null) {
    if (options.signal?.aborted && !run.timedOut) throw options.signal.reason;
    // Killed before it could roll back: what it had written stays, and the model should know.
    const how = run.timedOut
      ? `timed out after ${options.timeoutMs ?? SANDBOXED_COMMIT_TIMEOUT_MS} ms and was killed; files it had already written may remain`
      : run.signal !== null
        ? `was killed by ${run.signal}`
        : `exited with code ${run.code}`;
    const detail = run.stderr.trim() === '' ? '' : `: ${run.stderr.trim()}`;
    throw new PatchApplyError(`Failed to apply patch: the sandboxed writer ${how}${detail}`);
  }
  if (run.timedOut && !run.result.ok && run.result.aborted) {
    throw new PatchApplyError(`Failed to apply patch: timed out after ${options.timeoutMs ?? SANDBOXED_COMMIT_TIMEOUT_MS} ms; the files already written were restored`);
  }
  throwIfFailed(run.result, options.signal);
}

interface ChildRun {
  /** The writer's answer, or null when it gave none (crashed, killed, bwrap failed). */
  result: WriterResult | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs the writer in its own process group. An abort or the timeout closes its stdin (the
 * writer stops and rolls back), then kills the group if it has not exited after a grace period.
 */
function runChild(argv: readonly string[], input: string, options: SandboxedCommitOptions): Promise<ChildRun> {
  const [file, ...args] = argv as [string, ...string[]];
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: '/', env: CHILD_ENV, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      child.stdin.end();
      killTimer ??= setTimeout(killGroup, ROLLBACK_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs ?? SANDBOXED_COMMIT_TIMEOUT_MS);
    options.signal?.addEventListener('abort', stop, { once: true });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < 64 * 1024) stdout += chunk;
    });
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    // The child may die before reading its input (bwrap failing); its exit status tells why.
    child.stdin.on('error', () => undefined);
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', stop);
      resolve({ result: parseResult(stdout), code, signal, stderr: stderr.slice(0, 4096), timedOut });
    };
    child.on('error', (error) => {
      stderr += error.message;
      finish(null, null);
    });
    child.on('close', finish);
    child.stdin.write(input);
  });
}

function parseResult(stdout: string): WriterResult | null {
  const line = stdout.split('\n', 1)[0] ?? '';
  try {
    const parsed = WriterResultSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
