/**
 * One command's life after spawn, as text: it decodes the child's output (UTF-8, characters cut
 * between reads kept whole), collects it into a bounded head+tail buffer until someone drains it,
 * remembers how the process ended, watches the abort signal and the timeout, and records why the
 * process was killed. Spawning, the sandbox and the kill itself belong to {@link ExecChild}
 * (child.ts); session ids and the model-facing format to the manager in exec-session.ts.
 */
import { StringDecoder } from 'node:string_decoder';
import type { SandboxPolicy } from '@deputy/protocol';
import { ExecChild } from './child.js';
import type { OutputStream, ProcessExit } from './child.js';
import { hasSandboxDenialKeyword } from './denial.js';
import { EXEC_OUTPUT_MAX_BYTES } from './format.js';
import { HeadTailBuffer } from './head-tail-buffer.js';
import type { DrainedOutput } from './head-tail-buffer.js';
import type { BwrapLocation } from './sandbox-probe.js';
import { isSandboxed } from './sandbox.js';

/** Why a process is being killed. */
export type TerminationReason = 'aborted' | 'timedOut' | 'killed';

/** What {@link ExecProcess.start} needs. */
export interface ExecProcessOptions {
  /** The command, not yet wrapped: {@link ExecChild} confines it per `sandbox`. */
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  tty: boolean;
  /** How the command is confined (the denial heuristic runs when it is sandboxed). */
  sandbox: SandboxPolicy;
  /** The base of the sandbox's writable roots (the turn's cwd); default `cwd`. */
  workspace?: string;
  /** Paths hidden inside the sandbox. */
  hiddenPaths?: readonly string[];
  /** Files inside the hidden paths the command may read (the shell snapshot). */
  readablePaths?: readonly string[];
  /** Where bwrap is; default: on `PATH`. */
  bwrap?: BwrapLocation;
  /** Aborting kills the process group; aborted before the start, nothing starts. */
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

/** Ctrl-D: end of input. */
const END_OF_INPUT = '\u0004';
/** The terminal of a `tty` command (the reference's default size). */
const DEFAULT_TERMINAL_SIZE = { rows: 24, cols: 80 };

/** A spawned command and its collected-but-not-yet-read output. */
export class ExecProcess {
  /** When the process was last started, written to or polled (ms since epoch). */
  lastUsed = Date.now();
  private readonly buffer = new HeadTailBuffer(EXEC_OUTPUT_MAX_BYTES);
  private child: ExecChild | null = null;
  private exitInfo: ProcessExit | null = null;
  private readonly exitWaiters = new Set<() => void>();
  private readonly cleanups: (() => void)[] = [];
  private isAborted = false;
  private isTimedOut = false;
  private termination: Promise<void> | null = null;
  private denialTail = '';
  private hasDenialKeyword = false;
  private readonly isSandboxed: boolean;

  private constructor(private readonly options: ExecProcessOptions) {
    this.isSandboxed = isSandboxed(options.sandbox);
  }

  /**
   * Spawns the command; rejects with ExecSpawnError when it cannot start, SandboxUnavailableError
   * when its sandbox cannot run, and the signal's reason when the signal aborted first.
   */
  static async start(options: ExecProcessOptions): Promise<ExecProcess> {
    const proc = new ExecProcess(options);
    const decoders: Record<OutputStream, StringDecoder> = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const decode = (stream: OutputStream, text: string): void => {
      if (text !== '') proc.receive(text, stream);
    };
    const child = await ExecChild.spawn({
      argv: options.argv,
      cwd: options.cwd,
      env: options.env,
      sandbox: options.sandbox,
      workspace: options.workspace,
      hiddenPaths: options.hiddenPaths,
      readablePaths: options.readablePaths,
      bwrap: options.bwrap,
      pty: options.tty ? DEFAULT_TERMINAL_SIZE : undefined,
      signal: options.signal,
      onOutput: (stream, bytes) => decode(stream, decoders[stream].write(bytes)),
    });
    proc.child = child;
    void child.ended.then((exit) => {
      // An incomplete character at the very end is shown as U+FFFD, as a stream decoder does.
      for (const stream of ['stdout', 'stderr'] as const) decode(stream, decoders[stream].end());
      proc.onExit(exit);
    });
    proc.watch();
    return proc;
  }

  /** The process group id (the leader's pid). */
  get pgid(): number {
    return (this.child as ExecChild).pid;
  }

  /** True once the process has exited and its output has settled. */
  get hasExited(): boolean {
    return this.exitInfo !== null;
  }

  /** The kill in progress (or done), or null when nobody asked to kill the process. */
  get terminating(): Promise<void> | null {
    return this.termination;
  }

  /**
   * Writes to stdin (or the terminal). On pipes, a Ctrl-D (U+0004) closes stdin after the text
   * before it, as it ends input on a terminal. Ignored once the process has exited.
   */
  write(chars: string): void {
    this.lastUsed = Date.now();
    const child = this.child;
    if (this.exitInfo !== null || chars === '' || child === null) return;
    const eof = child.isTty ? -1 : chars.indexOf(END_OF_INPUT);
    if (eof === -1) return child.write(chars);
    child.write(chars.slice(0, eof));
    child.closeStdin();
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
      this.isSandboxed &&
      exit !== null &&
      !this.isAborted &&
      !this.isTimedOut &&
      exit.exitCode !== null &&
      exit.exitCode !== 0 &&
      this.hasDenialKeyword;
    return { ...drained, exit, aborted: this.isAborted, timedOut: this.isTimedOut, sandboxDenied };
  }

  /**
   * Kills the whole process group (see {@link ExecChild.terminate}: SIGTERM, SIGKILL after the
   * grace, a bounded wait for the end). `reason` is recorded only when the process was still
   * running. Idempotent.
   */
  terminate(reason: TerminationReason): Promise<void> {
    if (this.termination !== null) return this.termination;
    if (this.exitInfo === null) {
      if (reason === 'aborted') this.isAborted = true;
      if (reason === 'timedOut') this.isTimedOut = true;
    }
    this.termination = (this.child as ExecChild).terminate();
    return this.termination;
  }

  /** Releases pipes and listeners; the process (if any is left) is not signalled. */
  dispose(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.child?.dispose();
  }

  private receive(chunk: string, stream: OutputStream): void {
    this.buffer.push(chunk);
    if (this.isSandboxed && !this.hasDenialKeyword) {
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
