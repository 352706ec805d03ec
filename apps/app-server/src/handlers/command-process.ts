/**
 * One `command/exec` from spawn to result, on the engine's `ExecChild` (which confines, spawns
 * and kills): the per-stream output cap, the result's kept bytes or the deltas handed to the
 * caller's delivery function one at a time, pausing the child while too many wait, the timeout,
 * `write`/`resize`/`terminate` (queued while the child is still starting), the exit code the
 * reference reports, and the group killed at the end. Wire params and notifications are
 * `command.ts`'s (reference: codex-rs/app-server/src/command_exec.rs).
 */
import { ExecChild, ExecSpawnError, SandboxUnavailableError, type OutputStream } from '@deputy/engine';
import type { AppServer, SandboxPolicy as EngineSandboxPolicy } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import { errnoText } from '../os-errors.js';

/** How long output may keep arriving after the command exited (reference: `IO_DRAIN_TIMEOUT_MS`). */
const IO_DRAIN_MS = 2_000;
/** Exit code reported after the timeout killed the command. */
const TIMEOUT_EXIT_CODE = 124;
/** Exit code of a command killed by a signal, `command/exec/terminate` included (as the reference). */
const KILLED_EXIT_CODE = -1;
/** A delta carries the queued chunks of one stream up to about this many bytes. */
const DELTA_BYTES = 64 * 1024;
/** Streamed bytes not yet written to the client past which reading pauses. */
const HIGH_WATER_BYTES = 1024 * 1024;

/** What one `command/exec` runs, after validation and defaults. */
export interface CommandPlan {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  sandbox: EngineSandboxPolicy;
  /** Paths hidden from the sandboxed command (the runtime's list: home, sockets, token files). */
  hiddenPaths: readonly string[];
  /** The client's id; null for a buffered command nobody can address. */
  processId: string | null;
  tty: boolean;
  streamStdin: boolean;
  streamOutput: boolean;
  size: AppServer.TerminalSize;
  /** null: no timeout. */
  timeoutMs: number | null;
  /** Per stream; null: no cap. */
  outputCap: number | null;
}

/** Hands one delta to the caller and resolves once it has been written. */
export type DeliverDelta = (stream: OutputStream, bytes: Buffer, capReached: boolean) => Promise<void>;

/** The -32603 of a command that could not start, with the OS's words as the reference prints them. */
function spawnFailed(error: unknown): RpcError {
  let detail = (error as Error).message;
  if (error instanceof ExecSpawnError) detail = error.errno === null ? error.reason : errnoText(error.errno, error.reason);
  if (error instanceof SandboxUnavailableError) detail = `sandbox unavailable: ${error.detail}`;
  return RpcError.internal(`failed to spawn command: ${detail}`);
}

/**
 * One output stream: the silent per-stream cap, then either the kept bytes for the result or the
 * deltas, sent one at a time, each after the previous one was written (queued chunks coalesce).
 */
class OutputSink {
  /** Streamed bytes queued and not yet handed to the connection. */
  queuedBytes = 0;
  #accepted = 0;
  #isCapReached = false;
  readonly #kept: Buffer[] = [];
  readonly #queue: Buffer[] = [];
  #sending: Promise<void> | null = null;

  constructor(
    private readonly cap: number | null,
    private readonly deliver: ((bytes: Buffer, capReached: boolean) => Promise<void>) | null,
    private readonly onQueueChange: () => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.#isCapReached) return;
    let bytes = chunk;
    if (this.cap !== null) {
      bytes = chunk.subarray(0, Math.max(0, this.cap - this.#accepted));
      this.#accepted += bytes.length;
      this.#isCapReached = this.#accepted >= this.cap;
    }
    if (this.deliver === null) {
      this.#kept.push(bytes);
      return;
    }
    this.#queue.push(bytes);
    this.queuedBytes += bytes.length;
    this.onQueueChange();
    this.#sending ??= this.#send(this.deliver);
  }

  /** Whether the cap cut this stream. */
  get isCapReached(): boolean {
    return this.#isCapReached;
  }

  /** Resolves once every accepted byte has been delivered. */
  async finished(): Promise<void> {
    while (this.#sending !== null) await this.#sending;
  }

  /** The kept bytes as text (`""` when streamed). */
  text(): string {
    return Buffer.concat(this.#kept).toString('utf8');
  }

  async #send(deliver: NonNullable<OutputSink['deliver']>): Promise<void> {
    while (this.#queue.length > 0) {
      const parts: Buffer[] = [];
      let size = 0;
      while (this.#queue.length > 0 && size < DELTA_BYTES) {
        const next = this.#queue.shift() as Buffer;
        parts.push(next);
        size += next.length;
      }
      // The delta that carries the last byte within the cap says so.
      await deliver(Buffer.concat(parts), this.#queue.length === 0 && this.#isCapReached);
      this.queuedBytes -= size;
      this.onQueueChange();
    }
    this.#sending = null;
  }
}

/** One `command/exec` from spawn to result; the target of write, resize and terminate. */
export class CommandRun {
  #child: ExecChild | null = null;
  /** Control calls that arrived before the child existed, applied once it does. */
  readonly #pending: ((child: ExecChild) => void)[] = [];
  /** Aborted by a stop before the child exists: the start is called off. */
  readonly #cancelStart = new AbortController();
  #hasExited = false;
  #stopReason: 'timedOut' | 'terminated' | null = null;
  #isStdinClosed = false;
  #isPaused = false;
  readonly #sinks: Record<OutputStream, OutputSink>;
  #markStarted!: () => void;
  /** Resolves once the child runs (never when its start fails or is called off: `run` settles then). */
  readonly started = new Promise<void>((resolve) => (this.#markStarted = resolve));

  /** `deliver` is null when the output is kept for the result. */
  constructor(
    readonly plan: CommandPlan,
    deliver: DeliverDelta | null,
  ) {
    const sink = (stream: OutputStream): OutputSink =>
      new OutputSink(plan.outputCap, deliver && ((bytes, capReached) => deliver(stream, bytes, capReached)), () => this.#updatePressure());
    this.#sinks = { stdout: sink('stdout'), stderr: sink('stderr') };
  }

  /** Whether the cap cut a stream's output. */
  capReached(stream: OutputStream): boolean {
    return this.#sinks[stream].isCapReached;
  }

  /** Runs the command to its result; aborting `signal` (the connection closed) kills it. */
  async run(signal: AbortSignal): Promise<AppServer.CommandExecResult> {
    const child = await this.#start(signal);
    if (child === null) return { exitCode: KILLED_EXIT_CODE, stdout: '', stderr: '' };
    const kill = (): void => void child.terminate();
    const timeoutMs = this.plan.timeoutMs;
    const timer = timeoutMs === null ? undefined : setTimeout(() => this.#stop('timedOut'), timeoutMs);
    void child.exited.then(() => {
      this.#hasExited = true;
      clearTimeout(timer);
    });
    signal.addEventListener('abort', kill, { once: true });
    if (signal.aborted) kill();
    try {
      const { exitCode: code } = await child.ended;
      await Promise.all([this.#sinks.stdout.finished(), this.#sinks.stderr.finished()]);
      const exitCode = this.#stopReason === 'timedOut' ? TIMEOUT_EXIT_CODE : this.#stopReason === 'terminated' ? KILLED_EXIT_CODE : (code ?? KILLED_EXIT_CODE);
      return { exitCode, stdout: this.#sinks.stdout.text(), stderr: this.#sinks.stderr.text() };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      // What the command left running in its group goes with it (reference: ProcessHandle's drop).
      if (child.isGroupAlive()) child.signalGroup('SIGKILL');
      child.dispose();
    }
  }

  /** `command/exec/write`: bytes to stdin, then EOF when asked. */
  write(bytes: Buffer, closeStdin: boolean): void {
    if (!this.plan.streamStdin) throw RpcError.invalidRequest('stdin streaming is not enabled for this command/exec');
    if (bytes.length > 0) {
      if (this.#isStdinClosed) throw RpcError.invalidRequest('stdin is already closed');
      this.#withChild((child) => child.write(bytes));
    }
    if (closeStdin && !this.#isStdinClosed) {
      this.#isStdinClosed = true;
      this.#withChild((child) => child.closeStdin());
    }
  }

  /** `command/exec/resize`. */
  resize(size: AppServer.TerminalSize): void {
    if (!this.plan.tty) throw RpcError.invalidRequest('failed to resize PTY: process is not attached to a PTY');
    this.#withChild((child) => {
      try {
        child.resize(size);
      } catch (error) {
        throw RpcError.invalidRequest(`failed to resize PTY: ${(error as Error).message}`);
      }
    });
  }

  /** `command/exec/terminate`: kills the process group; the result then reports -1. */
  terminate(): void {
    this.#stop('terminated');
  }

  /** Starts the child; null when a stop or the connection's close came first. */
  async #start(signal: AbortSignal): Promise<ExecChild | null> {
    const { plan } = this;
    const startSignal = AbortSignal.any([signal, this.#cancelStart.signal]);
    let child: ExecChild;
    try {
      child = await ExecChild.spawn({
        argv: plan.argv,
        cwd: plan.cwd,
        env: plan.env,
        sandbox: plan.sandbox,
        hiddenPaths: plan.hiddenPaths,
        pty: plan.tty ? plan.size : undefined,
        stdin: plan.streamStdin ? 'pipe' : 'ignore',
        outputDrainMs: IO_DRAIN_MS,
        signal: startSignal,
        onOutput: (stream, bytes) => this.#sinks[stream].push(bytes),
      });
    } catch (error) {
      if (startSignal.aborted) return null;
      throw spawnFailed(error);
    }
    this.#child = child;
    this.#markStarted();
    for (const apply of this.#pending.splice(0)) {
      try {
        apply(child);
      } catch {
        // The call that queued it was already answered; a late failure has nobody to go to.
      }
    }
    if (this.#isPaused) child.pause();
    return child;
  }

  #withChild(apply: (child: ExecChild) => void): void {
    if (this.#child !== null) apply(this.#child);
    else this.#pending.push(apply);
  }

  /** Kills the group (SIGTERM, SIGKILL after the engine's grace), or calls the start off. */
  #stop(reason: 'timedOut' | 'terminated'): void {
    if (this.#hasExited || this.#stopReason !== null) return;
    this.#stopReason = reason;
    this.#cancelStart.abort();
    this.#withChild((child) => void child.terminate());
  }

  /** Pauses reading while too many streamed bytes wait for the client, resumes once they drain. */
  #updatePressure(): void {
    const isBackedUp = this.#sinks.stdout.queuedBytes + this.#sinks.stderr.queuedBytes > HIGH_WATER_BYTES;
    if (isBackedUp === this.#isPaused) return;
    this.#isPaused = isBackedUp;
    if (isBackedUp) this.#child?.pause();
    else this.#child?.resume();
  }
}
