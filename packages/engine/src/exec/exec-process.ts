/**
 * One command's life after spawn: it collects output into a bounded head+tail buffer until someone
 * drains it, remembers how the process ended, watches the abort signal and the timeout, and owns
 * the kill policy (SIGTERM to the whole process group, SIGKILL after a short grace, then wait for
 * the group to be gone). It knows nothing about session ids or the model-facing format; the
 * manager in exec-session.ts does.
 */
import { hasSandboxDenialKeyword } from './denial.js';
import { EXEC_OUTPUT_MAX_BYTES } from './format.js';
import { HeadTailBuffer } from './head-tail-buffer.js';
import type { DrainedOutput } from './head-tail-buffer.js';
import { spawnChild } from './process.js';
import type { ChildHandle, OutputStream, ProcessExit } from './process.js';

/** Time between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 500;
/** How long to wait for the leader's exit after SIGKILL before giving up. */
const KILL_WAIT_MS = 2_000;
/** Poll interval while waiting for a process group to disappear. */
const GROUP_POLL_MS = 20;

/** Why a process is being killed. */
export type TerminationReason = 'aborted' | 'timedOut' | 'killed';

/** What {@link ExecProcess.start} needs. */
export interface ExecProcessOptions {
  /** The argv to spawn (already wrapped in bwrap when sandboxed). */
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  tty: boolean;
  /** Whether `argv` runs under the sandbox (enables the denial heuristic). */
  isSandboxed: boolean;
  /** Aborting kills the process group. */
  signal: AbortSignal;
  /** Lifetime limit; when it passes the process group is killed. */
  timeoutMs?: number;
  /** Live output, as decoded text. */
  onOutput?: (chunk: string, stream: OutputStream) => void;
}

/** A drained view of the process: new output plus the current state. */
export interface ProcessReading extends DrainedOutput {
  exit: ProcessExit | null;
  aborted: boolean;
  timedOut: boolean;
  sandboxDenied: boolean;
}

/** Resolves after `ms`. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A spawned command and its collected-but-not-yet-read output. */
export class ExecProcess {
  /** When the process was last started, written to or polled (ms since epoch). */
  lastUsed = Date.now();
  private readonly buffer = new HeadTailBuffer(EXEC_OUTPUT_MAX_BYTES);
  private child: ChildHandle | null = null;
  private exitInfo: ProcessExit | null = null;
  private readonly exitWaiters = new Set<() => void>();
  private readonly cleanups: (() => void)[] = [];
  private isAborted = false;
  private isTimedOut = false;
  private termination: Promise<void> | null = null;
  private denialTail = '';
  private hasDenialKeyword = false;

  private constructor(private readonly options: ExecProcessOptions) {}

  /** Spawns the command; rejects with ExecSpawnError when it cannot start. */
  static async start(options: ExecProcessOptions): Promise<ExecProcess> {
    const proc = new ExecProcess(options);
    proc.child = await spawnChild({
      argv: options.argv,
      cwd: options.cwd,
      env: options.env,
      tty: options.tty,
      onOutput: (chunk, stream) => proc.receive(chunk, stream),
    });
    void proc.child.exited.then((exit) => proc.onExit(exit));
    proc.watch();
    return proc;
  }

  /** The process group id (the leader's pid). */
  get pgid(): number {
    return (this.child as ChildHandle).pid;
  }

  /** True once the process has exited and its output has settled. */
  get hasExited(): boolean {
    return this.exitInfo !== null;
  }

  /** The kill in progress (or done), or null when nobody asked to kill the process. */
  get terminating(): Promise<void> | null {
    return this.termination;
  }

  /** Writes to stdin (or the terminal). Ignored once the process has exited. */
  write(chars: string): void {
    this.lastUsed = Date.now();
    if (this.exitInfo === null && chars !== '') this.child?.write(chars);
  }

  /** Waits until the process exits, `deadline` (ms since epoch) passes, or `signal` aborts. */
  async waitForExit(deadline: number, signal?: AbortSignal): Promise<void> {
    if (this.exitInfo !== null || signal?.aborted) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.exitWaiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, remaining);
      this.exitWaiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Takes the output collected since the last reading, with the current state. */
  read(): ProcessReading {
    this.lastUsed = Date.now();
    const drained = this.buffer.drain();
    const exit = this.exitInfo;
    const sandboxDenied =
      this.options.isSandboxed &&
      exit !== null &&
      !this.isAborted &&
      !this.isTimedOut &&
      exit.exitCode !== null &&
      exit.exitCode !== 0 &&
      this.hasDenialKeyword;
    return { ...drained, exit, aborted: this.isAborted, timedOut: this.isTimedOut, sandboxDenied };
  }

  /**
   * Kills the whole process group: SIGTERM, then SIGKILL after {@link KILL_GRACE_MS} if anything
   * of the group is left, then waits (bounded) for the leader's exit and the group to be gone.
   * `reason` is recorded only when the process was still running. Idempotent.
   */
  terminate(reason: TerminationReason): Promise<void> {
    if (this.termination !== null) return this.termination;
    if (this.exitInfo === null) {
      if (reason === 'aborted') this.isAborted = true;
      if (reason === 'timedOut') this.isTimedOut = true;
    }
    this.termination = this.killGroup();
    return this.termination;
  }

  /** Releases pipes and listeners; the process (if any is left) is not signalled. */
  dispose(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.child?.dispose();
  }

  private async killGroup(): Promise<void> {
    const child = this.child as ChildHandle;
    if (!child.signalGroup('SIGTERM')) return;
    await this.waitForCondition(() => this.exitInfo !== null && !child.isGroupAlive(), KILL_GRACE_MS);
    // Killed members stay in the group as zombies until their new parent reaps them, so the group
    // can look alive after everything in it is dead; SIGKILL to zombies is harmless.
    if (child.isGroupAlive()) child.signalGroup('SIGKILL');
    await this.waitForCondition(() => this.exitInfo !== null, KILL_WAIT_MS);
  }

  private async waitForCondition(condition: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) {
      await delay(Math.min(GROUP_POLL_MS, Math.max(0, deadline - Date.now())));
    }
  }

  private receive(chunk: string, stream: OutputStream): void {
    this.buffer.push(chunk);
    if (this.options.isSandboxed && !this.hasDenialKeyword) {
      // Keep a little of the previous chunk so a phrase split across chunks is still seen.
      const window = this.denialTail + chunk;
      this.hasDenialKeyword = hasSandboxDenialKeyword(window);
      this.denialTail = window.slice(-64);
    }
    try {
      this.options.onOutput?.(chunk, stream);
    } catch {
      // A failing observer must not break output collection.
    }
  }

  private onExit(exit: ProcessExit): void {
    this.exitInfo = exit;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    for (const waiter of [...this.exitWaiters]) waiter();
  }

  private watch(): void {
    const { signal, timeoutMs } = this.options;
    const onAbort = (): void => void this.terminate('aborted');
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      this.cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs >= 0) {
      const timer = setTimeout(() => void this.terminate('timedOut'), timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
  }
}
