/**
 * ExecChild: the one owner of the child processes Deputy starts for commands (exec_command,
 * write_stdin, the user shell, `command/exec`) and for apply_patch's sandboxed writer. It
 * checks that the command can start, confines it per the sandbox policy (bwrap with the seccomp
 * wrapper, hidden paths and the isolation the probe found; no bwrap means no start, never an
 * unsandboxed one), spawns it in its own process group on pipes or on a pseudo-terminal, hands
 * out raw output bytes, takes stdin, EOF and resizes, and terminates the whole group with a kill
 * grace (SIGTERM, then SIGKILL). It keeps no output and knows no text, session or wire: callers
 * (`exec-process.ts`, the app-server's `command/exec`) build on it.
 */
import type { SandboxPolicy } from '@deputy/protocol';
import { SandboxUnavailableError } from './errors.js';
import { checkSpawnable, spawnOnPipes, spawnOnPty } from './process.js';
import { groupHasLiveMember, signalProcessGroup } from './process-group.js';
import type { OutputStream, ProcessExit, RawChild, RawSpawnOptions, TerminalSize } from './process.js';
import { checkSandboxAvailable, type BwrapLocation } from './sandbox-probe.js';
import { buildSandboxedArgv, isSandboxed } from './sandbox.js';

export type { OutputStream, ProcessExit, TerminalSize } from './process.js';

/** Time between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 500;
/** How long {@link ExecChild.terminate} waits for the end after SIGKILL before giving up. */
const KILL_WAIT_MS = 2_000;
/** Poll interval while waiting for a process group to disappear. */
const GROUP_POLL_MS = 20;
/** Default wait, after the leader exited, for its output pipes to close. */
export const POST_EXIT_OUTPUT_WAIT_MS = 200;

/** What {@link ExecChild.spawn} needs. */
export interface ExecChildOptions {
  /** The command; the child wraps it in bwrap per {@link sandbox}. */
  argv: readonly string[];
  /** Absolute working directory (bwrap's `--chdir` when sandboxed). */
  cwd: string;
  /** The complete environment of the child. */
  env: Readonly<Record<string, string>>;
  /** How the command is confined; `danger-full-access` runs it directly. */
  sandbox: SandboxPolicy;
  /** The base of the writable roots (the turn's cwd); default `cwd`. */
  workspace?: string;
  /** The environment whose `$TMPDIR` is a writable root; default `env`. */
  sandboxEnv?: Readonly<Record<string, string | undefined>>;
  /** Paths hidden inside the sandbox (Deputy's home, control sockets, token files). */
  hiddenPaths?: readonly string[];
  /** Files inside the hidden paths the command may read (bound read-only), e.g. the shell snapshot. */
  readablePaths?: readonly string[];
  /** Where bwrap is; default: on `PATH`. */
  bwrap?: BwrapLocation;
  /** A pseudo-terminal of this size (stdout and stderr are then one stream); pipes when absent. */
  pty?: TerminalSize;
  /** On pipes: `ignore` gives the child `/dev/null` as stdin. Default `pipe`. */
  stdin?: 'pipe' | 'ignore';
  /** On pipes: how long output may keep arriving after the leader exited; default {@link POST_EXIT_OUTPUT_WAIT_MS}. */
  outputDrainMs?: number;
  /** Checked before the start and again after the sandbox probe: aborted, nothing starts and spawn rejects with its reason. */
  signal?: AbortSignal;
  /** Raw output as it arrives. */
  onOutput(stream: OutputStream, bytes: Buffer): void;
}

/** Resolves after `ms`. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `argv` wrapped per the policy; throws SandboxUnavailableError when bwrap cannot run. */
async function confine(options: ExecChildOptions): Promise<string[]> {
  const availability = await checkSandboxAvailable(options.bwrap);
  if (!availability.ok) throw new SandboxUnavailableError(availability.message);
  return buildSandboxedArgv(options.argv, options.sandbox, {
    cwd: options.cwd,
    workspace: options.workspace,
    env: options.sandboxEnv ?? options.env,
    bwrapPath: availability.bwrapPath,
    isolation: availability.isolation,
    hiddenPaths: options.hiddenPaths,
    readablePaths: options.readablePaths,
  });
}

/** A started child process that leads its own process group. */
export class ExecChild {
  readonly #raw: RawChild;
  #hasEnded = false;
  #termination: Promise<void> | null = null;

  private constructor(
    raw: RawChild,
    /** Whether it runs under bwrap. */
    readonly isSandboxed: boolean,
    /** Whether it runs on a pseudo-terminal. */
    readonly isTty: boolean,
  ) {
    this.#raw = raw;
    void raw.ended.then(() => {
      this.#hasEnded = true;
    });
  }

  /**
   * Checks, confines and starts a command.
   * @throws ExecSpawnError when it cannot start (missing cwd or executable, refused argument)
   * @throws SandboxUnavailableError when the policy needs bwrap and bwrap cannot run (nothing runs)
   * @throws the signal's reason when `signal` aborted before the start
   */
  static async spawn(options: ExecChildOptions): Promise<ExecChild> {
    options.signal?.throwIfAborted();
    checkSpawnable(options.argv[0], options.cwd, options.env.PATH);
    const isConfined = isSandboxed(options.sandbox);
    let argv = options.argv;
    if (isConfined) {
      argv = await confine(options);
      // The probe may have taken a while; an abort during it must not start the command.
      options.signal?.throwIfAborted();
    }
    const raw: RawSpawnOptions = {
      argv,
      cwd: options.cwd,
      env: options.env,
      stdin: options.stdin ?? 'pipe',
      outputDrainMs: options.outputDrainMs ?? POST_EXIT_OUTPUT_WAIT_MS,
      onOutput: options.onOutput,
    };
    const child = options.pty ? spawnOnPty(raw, options.pty) : await spawnOnPipes(raw);
    return new ExecChild(child, isConfined, options.pty !== undefined);
  }

  /** The leader's pid, which is also the process group id. */
  get pid(): number {
    return this.#raw.pid;
  }

  /** Settles when the leader has exited (output may still be arriving). */
  get exited(): Promise<ProcessExit> {
    return this.#raw.exited;
  }

  /** Settles once the leader has exited and its output was read to the end (or the drain bound passed). */
  get ended(): Promise<ProcessExit> {
    return this.#raw.ended;
  }

  /** Writes to stdin (the terminal on a PTY); ignored once stdin is closed or the child is gone. */
  write(data: Buffer | string): void {
    this.#raw.write(data);
  }

  /** Ends stdin: closes the pipe, or sends Ctrl-D on a terminal. */
  closeStdin(): void {
    this.#raw.closeStdin();
  }

  /** Resizes the terminal; throws when the child has none or it is gone. */
  resize(size: TerminalSize): void {
    this.#raw.resize(size);
  }

  /** Stops reading output (backpressure) until {@link resume}. */
  pause(): void {
    this.#raw.pause();
  }

  /** Reads output again after {@link pause}. */
  resume(): void {
    this.#raw.resume();
  }

  /** Sends `signal` to the whole process group; false when the group no longer exists. */
  signalGroup(signal: NodeJS.Signals): boolean {
    return signalProcessGroup(this.#raw.pid, signal);
  }

  /** True while any process of the group exists (zombies included). */
  isGroupAlive(): boolean {
    return signalProcessGroup(this.#raw.pid, 0);
  }

  /**
   * Kills the whole process group: SIGTERM, then SIGKILL after {@link KILL_GRACE_MS} if anything
   * of the group is left, then waits (bounded) for the end. Idempotent: every call gets the same
   * promise.
   */
  terminate(): Promise<void> {
    this.#termination ??= this.#killGroup();
    return this.#termination;
  }

  /** Releases pipes and listeners; the process (if any is left) is not signalled. */
  dispose(): void {
    this.#raw.dispose();
  }

  async #killGroup(): Promise<void> {
    if (!this.signalGroup('SIGTERM')) return;
    // Zombies do not count: a killed member reparented to init stays in the group until init
    // reaps it, which some inits do only every second or so (process-group.ts).
    await this.#waitFor(() => this.#hasEnded && !groupHasLiveMember(this.#raw.pid), KILL_GRACE_MS);
    if (groupHasLiveMember(this.#raw.pid)) this.signalGroup('SIGKILL');
    await this.#waitFor(() => this.#hasEnded, KILL_WAIT_MS);
  }

  async #waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) await delay(Math.min(GROUP_POLL_MS, Math.max(0, deadline - Date.now())));
  }
}
