/**
 * `command/exec` and its companions `command/exec/write`, `/resize` and `/terminate` (spec §14): one
 * standalone command outside any thread, confined by the engine's sandbox (bwrap per
 * SandboxPolicy) with the engine's shell environment policy, on pipes or on a PTY, in its own
 * process group. Output is capped per stream and either kept for the result or streamed, to the
 * calling connection only, as `command/exec/outputDelta` (raw bytes in base64); the result follows
 * the last delta. Processes are addressed by the client's `processId`, scoped to the connection,
 * and killed when that connection closes. The child is spawned here rather than through the
 * engine's `ExecProcess` because the wire needs raw bytes, stdin EOF and PTY resizing, which the
 * engine's text-only child handle does not offer (reference: codex-rs/app-server/src/command_exec.rs).
 */
import path from 'node:path';
import {
  buildChildEnv,
  buildSandboxedArgv,
  checkSandboxAvailable,
  isSandboxed,
  KILL_GRACE_MS,
  ShellEnvironmentPolicySchema,
  signalProcessGroup,
  type ShellEnvironmentPolicy,
} from '@deputy/engine';
import type { AppServer, SandboxPolicy as EngineSandboxPolicy } from '@deputy/protocol';
import { INVALID_PARAMS } from '@deputy/protocol/jsonrpc';
import { RpcError, type Connection } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import { engineSandbox } from '../project/threads.js';
import { spawnFailed, spawnProblem, startOnPipes, startOnPty, within, type Child, type CommandPlan, type OnOutput, type OutputStream } from './command-process.js';
import type { Handlers } from './types.js';

/** Timeout of a request that sets none (reference: `DEFAULT_EXEC_COMMAND_TIMEOUT_MS`). */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Per-stream output cap of a request that sets none (reference: `DEFAULT_OUTPUT_BYTES_CAP`). */
const DEFAULT_OUTPUT_BYTES_CAP = 1024 * 1024;
/** Exit code reported after the timeout killed the command. */
const TIMEOUT_EXIT_CODE = 124;
/** Exit code of a command killed by a signal, `command/exec/terminate` included (as the reference). */
const KILLED_EXIT_CODE = -1;
/** A delta carries the queued chunks of one stream up to about this many bytes. */
const DELTA_BYTES = 64 * 1024;
/** Streamed bytes not yet written to the client past which reading pauses. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** The longest delay `setTimeout` takes; longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2_147_483_647;
/** PTY size when the request gives none (reference: `TerminalSize::default`). */
const DEFAULT_SIZE: AppServer.TerminalSize = { rows: 24, cols: 80 };

const invalidParams = (message: string): RpcError => new RpcError(INVALID_PARAMS, message);
/** An id as the reference prints it in messages: JSON, so `"p1"`. */
const quoted = (processId: string): string => JSON.stringify(processId);

/** A PTY size with both dimensions positive. */
function checkedSize(size: AppServer.TerminalSize): AppServer.TerminalSize {
  if (size.rows === 0 || size.cols === 0) throw invalidParams('command/exec size rows and cols must be greater than 0');
  return size;
}

/** Strict standard base64 (padded), as the reference decodes `deltaBase64`. */
function decodeBase64(text: string): Buffer {
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  if (bad !== -1) throw invalidParams(`invalid deltaBase64: Invalid symbol ${text.charCodeAt(bad)}, offset ${bad}.`);
  if (text.length % 4 !== 0) throw invalidParams('invalid deltaBase64: Invalid input length.');
  if (!/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw invalidParams('invalid deltaBase64: Invalid padding');
  return Buffer.from(text, 'base64');
}

/**
 * The engine policy closest to a permission profile: no sandbox for `disabled` and `external`,
 * read-only without write entries, else workspace-write over the cwd plus the profile's write
 * paths and temp dirs. Write access to the whole filesystem with the network off cannot be
 * expressed with bwrap's policies here and is refused.
 */
function sandboxFromProfile(profile: AppServer.PermissionProfile): EngineSandboxPolicy {
  if (profile.type !== 'managed') return { type: 'danger-full-access' };
  const networkAccess = profile.network.enabled;
  const { fileSystem } = profile;
  const writes = fileSystem.type === 'unrestricted' ? null : fileSystem.entries.filter((e) => e.access === 'write').map((e) => e.path);
  const isSpecial = (p: AppServer.FileSystemPath, kind: string): boolean => p.type === 'special' && p.value.kind === kind;
  if (writes === null || writes.some((p) => isSpecial(p, 'root'))) {
    if (networkAccess) return { type: 'danger-full-access' };
    throw RpcError.invalidRequest('invalid permission profile: write access to the whole filesystem without network access is not supported');
  }
  if (writes.length === 0) return { type: 'read-only', networkAccess };
  return {
    type: 'workspace-write',
    writableRoots: writes.flatMap((p) => (p.type === 'path' ? [p.path] : [])),
    networkAccess,
    excludeTmpdirEnvVar: !writes.some((p) => isSpecial(p, 'tmpdir')),
    excludeSlashTmp: !writes.some((p) => isSpecial(p, 'slash_tmp')),
  };
}

/** Checks the params the way the reference does, in its order, and fills the defaults. */
function planCommand(params: AppServer.CommandExecParams, app: AppContext, envPolicy: ShellEnvironmentPolicy): CommandPlan {
  if (params.command.length === 0) throw RpcError.invalidRequest('command must not be empty');
  if (params.sandboxPolicy != null && params.permissionProfile != null) {
    throw RpcError.invalidRequest('`permissionProfile` cannot be combined with `sandboxPolicy`');
  }
  const tty = params.tty === true;
  if (params.size != null && !tty) throw invalidParams('command/exec size requires tty: true');
  if (params.disableOutputCap === true && params.outputBytesCap != null) {
    throw invalidParams('command/exec cannot set both outputBytesCap and disableOutputCap');
  }
  if (params.disableTimeout === true && params.timeoutMs != null) throw invalidParams('command/exec cannot set both timeoutMs and disableTimeout');
  if (params.timeoutMs != null && params.timeoutMs < 0) throw invalidParams(`command/exec timeoutMs must be non-negative, got ${params.timeoutMs}`);
  const size = params.size != null ? checkedSize(params.size) : DEFAULT_SIZE;
  const streamStdin = tty || params.streamStdin === true;
  const streamOutput = tty || params.streamStdoutStderr === true;
  const processId = params.processId ?? null;
  if (processId === null && (streamStdin || streamOutput)) {
    throw RpcError.invalidRequest('command/exec tty or streaming requires a client-supplied processId');
  }
  const env = buildChildEnv(process.env, envPolicy);
  for (const [name, value] of Object.entries(params.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  let sandbox = app.config.sandboxPolicy;
  if (params.sandboxPolicy != null) sandbox = engineSandbox(params.sandboxPolicy);
  else if (params.permissionProfile != null) sandbox = sandboxFromProfile(params.permissionProfile);
  return {
    argv: params.command,
    cwd: path.resolve(app.cwd, params.cwd ?? '.'),
    env,
    sandbox,
    hiddenPaths: app.runtime.sandboxHiddenPaths,
    processId,
    tty,
    streamStdin,
    streamOutput,
    size,
    timeoutMs: params.disableTimeout === true ? null : Math.min(params.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMER_MS),
    outputCap: params.disableOutputCap === true ? null : (params.outputBytesCap ?? DEFAULT_OUTPUT_BYTES_CAP),
  };
}

/** Where a stream's capped bytes go: the result (null) or a delta to the client. */
type Deliver = ((bytes: Buffer, capReached: boolean) => Promise<void>) | null;

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
    private readonly deliver: Deliver,
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

  /** Resolves once every accepted byte has been delivered. */
  async finished(): Promise<void> {
    while (this.#sending !== null) await this.#sending;
  }

  /** The kept bytes as text (`""` when streamed). */
  text(): string {
    return Buffer.concat(this.#kept).toString('utf8');
  }

  async #send(deliver: NonNullable<Deliver>): Promise<void> {
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

/** Sends one delta to the owning connection and waits until it has been written. */
async function deliverDelta(state: ConnectionState, processId: string, stream: OutputStream, bytes: Buffer, capReached: boolean): Promise<void> {
  state.notify('command/exec/outputDelta', { processId, stream, deltaBase64: bytes.toString('base64'), capReached });
  await state.connection.flush();
}

/** One `command/exec` from spawn to result; the target of write, resize and terminate. */
class CommandRun {
  #child: Child | null = null;
  /** Control calls that arrived before the child existed, applied once it does. */
  readonly #pending: ((child: Child) => void)[] = [];
  #hasExited = false;
  #stopReason: 'timedOut' | 'terminated' | null = null;
  #isStdinClosed = false;
  #isPaused = false;
  readonly #sinks: Record<OutputStream, OutputSink>;

  constructor(
    readonly plan: CommandPlan,
    state: ConnectionState,
  ) {
    const sink = (stream: OutputStream): OutputSink => {
      const { processId } = plan;
      const deliver = plan.streamOutput && processId !== null ? (bytes: Buffer, cap: boolean) => deliverDelta(state, processId, stream, bytes, cap) : null;
      return new OutputSink(plan.outputCap, deliver, () => this.#updatePressure());
    };
    this.#sinks = { stdout: sink('stdout'), stderr: sink('stderr') };
  }

  /** Runs the command to its result; aborting `signal` (the connection closed) kills it. */
  async run(signal: AbortSignal): Promise<AppServer.CommandExecResult> {
    const child = await this.#start(signal);
    if (child === null) return { exitCode: KILLED_EXIT_CODE, stdout: '', stderr: '' };
    const kill = (): void => void this.#kill(child);
    const timeoutMs = this.plan.timeoutMs;
    const timer = timeoutMs === null ? undefined : setTimeout(() => this.#stop('timedOut'), timeoutMs);
    void child.exited.then(() => {
      this.#hasExited = true;
      clearTimeout(timer);
    });
    signal.addEventListener('abort', kill, { once: true });
    if (signal.aborted) kill();
    try {
      const code = await child.ended;
      await Promise.all([this.#sinks.stdout.finished(), this.#sinks.stderr.finished()]);
      const exitCode = this.#stopReason === 'timedOut' ? TIMEOUT_EXIT_CODE : this.#stopReason === 'terminated' ? KILLED_EXIT_CODE : (code ?? KILLED_EXIT_CODE);
      return { exitCode, stdout: this.#sinks.stdout.text(), stderr: this.#sinks.stderr.text() };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      // What the command left running in its group goes with it (reference: ProcessHandle's drop).
      if (signalProcessGroup(child.pid, 0)) signalProcessGroup(child.pid, 'SIGKILL');
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

  async #start(signal: AbortSignal): Promise<Child | null> {
    const { plan } = this;
    const problem = spawnProblem(plan.argv[0] as string, plan.cwd, plan.env.PATH);
    if (problem !== null) throw spawnFailed(problem);
    let argv = plan.argv;
    if (isSandboxed(plan.sandbox)) {
      // Never run unsandboxed when the sandbox cannot be set up.
      const availability = await checkSandboxAvailable();
      if (!availability.ok) throw spawnFailed(`sandbox unavailable: ${availability.message}`);
      argv = buildSandboxedArgv(argv, plan.sandbox, {
        cwd: plan.cwd,
        env: plan.env,
        bwrapPath: availability.bwrapPath,
        isolation: availability.isolation,
        hiddenPaths: plan.hiddenPaths,
      });
    }
    if (this.#stopReason !== null || signal.aborted) return null;
    const onOutput: OnOutput = (stream, bytes) => this.#sinks[stream].push(bytes);
    let child: Child;
    try {
      child = plan.tty ? startOnPty(argv, plan, onOutput) : await startOnPipes(argv, plan, onOutput);
    } catch (error) {
      // node-pty and an argument node refuses (a NUL byte) throw before anything runs.
      throw error instanceof RpcError ? error : spawnFailed((error as Error).message);
    }
    this.#child = child;
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

  #withChild(apply: (child: Child) => void): void {
    if (this.#child !== null) apply(this.#child);
    else this.#pending.push(apply);
  }

  #stop(reason: 'timedOut' | 'terminated'): void {
    if (this.#hasExited || this.#stopReason !== null) return;
    this.#stopReason = reason;
    this.#withChild((child) => void this.#kill(child));
  }

  /** SIGTERM to the group, SIGKILL to what is left after the grace. */
  async #kill(child: Child): Promise<void> {
    if (!signalProcessGroup(child.pid, 'SIGTERM')) return;
    await within(child.exited, KILL_GRACE_MS);
    if (signalProcessGroup(child.pid, 0)) signalProcessGroup(child.pid, 'SIGKILL');
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

/** The handlers of this area. */
export function commandHandlers(app: AppContext): Handlers {
  const envPolicy = ShellEnvironmentPolicySchema.parse(app.config.shellEnvironmentPolicy ?? {});
  /** Each connection's running commands by client process id. */
  const runs = new WeakMap<Connection, Map<string, CommandRun>>();
  const runsOf = (connection: Connection): Map<string, CommandRun> => {
    let table = runs.get(connection);
    if (!table) runs.set(connection, (table = new Map()));
    return table;
  };
  const active = (connection: Connection, processId: string): CommandRun => {
    const run = runs.get(connection)?.get(processId);
    if (!run) throw RpcError.invalidRequest(`no active command/exec for process id ${quoted(processId)}`);
    return run;
  };
  return {
    'command/exec': async (params, ctx) => {
      const plan = planCommand(params, app, envPolicy);
      const table = runsOf(ctx.connection);
      const id = plan.processId;
      if (id !== null && table.has(id)) throw RpcError.invalidRequest(`duplicate active command/exec process id: ${quoted(id)}`);
      const run = new CommandRun(plan, app.stateOf(ctx.connection));
      if (id !== null) table.set(id, run);
      try {
        // The request's signal aborts when the connection closes, which kills the command.
        return await run.run(ctx.signal);
      } finally {
        if (id !== null) table.delete(id);
      }
    },
    'command/exec/write': (params, ctx) => {
      if (params.deltaBase64 == null && params.closeStdin !== true) throw invalidParams('command/exec/write requires deltaBase64 or closeStdin');
      const bytes = params.deltaBase64 == null ? Buffer.alloc(0) : decodeBase64(params.deltaBase64);
      active(ctx.connection, params.processId).write(bytes, params.closeStdin === true);
      return {};
    },
    'command/exec/resize': (params, ctx) => {
      const size = checkedSize(params.size);
      active(ctx.connection, params.processId).resize(size);
      return {};
    },
    'command/exec/terminate': (params, ctx) => {
      active(ctx.connection, params.processId).terminate();
      return {};
    },
  };
}
