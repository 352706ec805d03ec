/**
 * Writes a planned patch from a child process that runs inside the same bubblewrap sandbox as
 * the thread's commands (an `ExecChild` with the thread's policy, the turn's cwd as the base of
 * the writable roots). The kernel then resolves every path component at the moment of each write
 * in a mount namespace where everything outside the writable roots is read-only, so a directory
 * swapped for a symlink between the checks and the write cannot lead out: the write fails and the
 * commit is rolled back. The child is Node running the shared writer (`writer.ts`) from its
 * source text; it gets the changes as one JSON line on stdin and answers with one JSON line on
 * stdout. No bwrap means no write (`SandboxUnavailableError`), never an unsandboxed one. This
 * module supervises the writer; what is written is decided elsewhere.
 */
import { z } from 'zod';
import type { SandboxPolicy } from '@deputy/protocol';
import { ExecChild } from '../../exec/child.js';
import { ExecSpawnError } from '../../exec/errors.js';
import type { BwrapLocation } from '../../exec/sandbox-probe.js';
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
  const run = await runWriter(`${JSON.stringify({ changes: toWriterChanges(changes) })}\n`, options);
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

interface WriterRun {
  /** The writer's answer, or null when it gave none (crashed, killed, bwrap failed). */
  result: WriterResult | null;
  code: number | null;
  signal: string | null;
  stderr: string;
  timedOut: boolean;
}

/** Keeps the first `max` bytes of a stream. */
function collector(max: number): { push(bytes: Buffer): void; text(): string } {
  const kept: Buffer[] = [];
  let size = 0;
  return {
    push(bytes) {
      if (size >= max) return;
      kept.push(bytes.subarray(0, max - size));
      size += Math.min(bytes.length, max - size);
    },
    text: () => Buffer.concat(kept).toString('utf8'),
  };
}

/**
 * Runs the writer in the sandbox, in its own process group, with none of the parent's
 * environment. An abort or the timeout closes its stdin (the writer stops and rolls back), then
 * kills the group if it has not exited after a grace period.
 * @throws SandboxUnavailableError when bwrap cannot run, the signal's reason when it aborted first
 */
async function runWriter(input: string, options: SandboxedCommitOptions): Promise<WriterRun> {
  const stdout = collector(64 * 1024);
  const stderr = collector(4096);
  const tmpdir = options.tmpdir ?? process.env.TMPDIR;
  let child: ExecChild;
  try {
    child = await ExecChild.spawn({
      argv: [process.execPath, '-e', WRITER_CHILD_PROGRAM],
      cwd: options.workspace,
      env: CHILD_ENV,
      sandbox: options.policy,
      workspace: options.workspace,
      // Only what decides the writable roots; the child's real environment is CHILD_ENV.
      sandboxEnv: tmpdir === undefined ? {} : { TMPDIR: tmpdir },
      hiddenPaths: options.hiddenPaths,
      bwrap: options.bwrap,
      signal: options.signal,
      onOutput: (stream, bytes) => (stream === 'stdout' ? stdout : stderr).push(bytes),
    });
  } catch (error) {
    if (!(error instanceof ExecSpawnError)) throw error;
    return { result: null, code: null, signal: null, stderr: error.message, timedOut: false };
  }
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    child.closeStdin();
    killTimer ??= setTimeout(() => child.signalGroup('SIGKILL'), ROLLBACK_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs ?? SANDBOXED_COMMIT_TIMEOUT_MS);
  options.signal?.addEventListener('abort', stop, { once: true });
  // The child may die before reading its input (bwrap failing); its exit status tells why.
  child.write(input);
  if (options.signal?.aborted) stop();
  try {
    const exit = await child.ended;
    return { result: parseResult(stdout.text()), code: exit.exitCode, signal: exit.signal, stderr: stderr.text(), timedOut };
  } finally {
    clearTimeout(timer);
    clearTimeout(killTimer);
    options.signal?.removeEventListener('abort', stop);
    child.dispose();
  }
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
