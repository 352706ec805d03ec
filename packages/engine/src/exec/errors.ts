/**
 * Errors raised by the exec library: an unknown session id, a session ended by a narrowed
 * sandbox, a sandbox that cannot run, and a command that could not be spawned. Each carries a
 * stable string `code`; none of them is a wire error, and the shell tools turn them into tool
 * output for the model.
 */
import { EngineError } from '../errors.js';

/** Base class of exec errors; `code` is stable and safe to branch on. */
export class ExecError extends EngineError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message);
    // EngineError takes no options; keep the underlying error for diagnostics.
    if (options?.cause !== undefined) {
      Object.defineProperty(this, 'cause', { value: options.cause, configurable: true, writable: true });
    }
  }
}

/** `write()` named a session that does not exist (never started, finished and collected, or pruned). */
export class UnknownSessionError extends ExecError {
  /** The id that was asked for. */
  readonly sessionId: number;

  constructor(sessionId: number) {
    super('unknown_session', `Unknown process session ID ${sessionId}: it never existed or has already exited and been collected`);
    this.sessionId = sessionId;
  }
}

/**
 * A sandboxed command was requested but bubblewrap cannot run here. Deputy never falls back to
 * running the command unsandboxed; the message says what failed and how to install bwrap.
 */
export class SandboxUnavailableError extends ExecError {
  constructor(
    /** What failed, as the probe reports it (without the install hint). */
    readonly detail: string,
  ) {
    super('sandbox_unavailable', `Sandbox unavailable: ${detail}. Install it with: apt-get install bubblewrap`);
  }
}

/** The command could not be started at all (missing executable, bad cwd, empty argv). */
export class ExecSpawnError extends ExecError {
  /** The OS error number (positive: ENOENT, EACCES, ENOTDIR, …) when a system call said why, else null. */
  readonly errno: number | null;
  /** Why, in the OS's or Node's words, without the command (what a front door shows on its own). */
  readonly reason: string;

  constructor(message: string, options?: { cause?: unknown; errno?: number; reason?: string }) {
    super('spawn_failed', message, options);
    this.errno = options?.errno === undefined ? null : Math.abs(options.errno);
    this.reason = options?.reason ?? message;
  }
}

/**
 * `write()` named a session that was ended because the thread's sandbox no longer covers the one
 * it was started under (see `ExecSessionManager.endUncovered`); `reason` says so, for the model.
 */
export class EndedSessionError extends ExecError {
  constructor(
    /** The id that was asked for. */
    readonly sessionId: number,
    /** Why it was ended, without the tool's prefix. */
    readonly reason: string,
  ) {
    super('ended_session', reason);
  }
}
