/**
 * ExecSessionManager: the per-thread table of commands started by `exec_command` and continued by
 * `write_stdin` (reference: codex-rs/core/src/unified_exec/process_manager.rs). `start` has the
 * command spawned under the sandbox policy in its own process group, on a PTY when asked (see
 * `ExecChild`), and waits until it exits or the yield time passes; a command still running gets
 * a session id and keeps collecting output for the next `write`. The manager caps live sessions
 * and kills process groups on abort, timeout, pruning, `cleanBackground` and `killAll`.
 *
 * A live process keeps the sandbox it was started under. Each session therefore remembers two
 * scopes: the sandbox it really runs under (`launchOf`, which write_stdin compares with the
 * current turn's) and the thread's sandbox that let it start (`grant`). When the thread's sandbox
 * changes, `endUncovered` kills every held session whose grant the new sandbox does not cover
 * (sandbox-cover.ts), and a later `write` to it is refused with the reason.
 */
import type { SandboxPolicy } from '@deputy/protocol';
import type { OutputStream } from './child.js';
import { EndedSessionError, UnknownSessionError } from './errors.js';
import { ExecProcess } from './exec-process.js';
import { APPROX_BYTES_PER_TOKEN, resolveMaxOutputTokens, truncateForModel } from './format.js';
import { describeSandbox, sandboxCovers, type SandboxScope } from './sandbox-cover.js';

/** Shortest wait of `start` and of a `write` that sends input. */
export const MIN_YIELD_TIME_MS = 250;
/** Longest wait of `start` and of a `write` that sends input. */
export const MAX_YIELD_TIME_MS = 30_000;
/** Shortest wait of an empty `write` (a pure poll), as in the reference. */
export const MIN_EMPTY_YIELD_TIME_MS = 5_000;
/** Longest wait of an empty `write` (reference: `background_terminal_max_timeout`). */
export const MAX_EMPTY_YIELD_TIME_MS = 300_000;
/** Live sessions kept per manager before the oldest is pruned. */
export const MAX_EXEC_SESSIONS = 64;
/** At most this many of the most recently used sessions are never pruned (an eighth of the cap). */
const PROTECTED_RECENT_SESSIONS = 8;

/** One `exec_command`: what to run, where, how, and for how long to wait. */
export interface ExecStartRequest {
  /** The command, e.g. from `shellArgv()`. Not wrapped in bwrap: the sandbox is applied when it is spawned. */
  argv: string[];
  /** Absolute working directory. */
  cwd: string;
  /**
   * The turn's working directory, the base of the sandbox's writable roots; default `cwd`. The
   * command's own `cwd` never becomes a writable root.
   */
  sandboxCwd?: string;
  /** The complete child environment (see `buildChildEnv`). */
  env: Record<string, string>;
  /** Run on a pseudo-terminal; stdout and stderr are then one stream. */
  tty: boolean;
  /** How the command is confined. */
  sandbox: SandboxPolicy;
  /** Aborting kills the command's process group, whenever it happens during the command's life. */
  signal: AbortSignal;
  /** How long to wait before returning a running session (clamped to 250 ms … 30 s). */
  yieldTimeMs: number;
  /** Output budget of this snapshot (default 10 000 tokens). */
  maxOutputTokens?: number;
  /** Live output as it arrives (for streaming deltas). */
  onOutput?: (chunk: string, stream: OutputStream) => void;
  /** Lifetime limit of the command; when it passes the process group is killed. */
  timeoutMs?: number;
  /** Files inside the hidden paths the command may read (the thread's shell snapshot). */
  readablePaths?: readonly string[];
  /**
   * The thread's sandbox (and turn cwd) that allowed the command to start; default: `sandbox` in
   * `sandboxCwd`. An approved run without the sandbox passes the turn's own sandbox here.
   */
  grant?: SandboxScope;
}

/** How a held session was started: the sandbox it runs under, and on what terminal. */
export interface SessionLaunch {
  /** The sandbox the process really runs under, and the base of its writable roots. */
  sandbox: SandboxScope;
  /** The thread's sandbox that allowed it to start (see `ExecStartRequest.grant`). */
  grant: SandboxScope;
  /** The command's own working directory. */
  cwd: string;
  tty: boolean;
}

/** The state of a command after a `start` or `write`. */
export interface ExecSnapshot {
  /** Non-null while the command is still running; pass it to `write`. */
  sessionId: number | null;
  /** Exit code once exited normally; null while running or when killed by a signal. */
  exitCode: number | null;
  /** Name of the signal that killed the command, e.g. `SIGTERM`. */
  signal: string | null;
  /** Output since the previous snapshot, truncated to the output budget. */
  output: string;
  /** Approximate token count of that output before truncation. */
  originalTokenCount: number;
  /** Time this call waited. */
  wallTimeMs: number;
  /** The command was killed because the signal aborted. */
  aborted: boolean;
  /** The command was killed because `timeoutMs` passed. */
  timedOut: boolean;
  /** The command ran sandboxed, failed, and its output reads like a sandbox refusal. */
  sandboxDenied: boolean;
}

/** Construction options; the defaults suit production. */
export interface ExecSessionManagerOptions {
  /** Explicit bwrap executable (skips the PATH search). */
  bwrapPath?: string;
  /** PATH searched for bwrap; default `process.env.PATH`. */
  pathEnv?: string;
  /** Paths hidden from sandboxed commands (Deputy's home, control sockets, token files). */
  hiddenPaths?: readonly string[];
  /** Live session cap; default {@link MAX_EXEC_SESSIONS}. */
  maxSessions?: number;
  /** Minimum wait of an empty poll; default {@link MIN_EMPTY_YIELD_TIME_MS}. */
  minEmptyYieldTimeMs?: number;
}

/** Clamps `value` into [min, max]; a missing or invalid value becomes `min`. */
function clamp(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** The per-thread table of running commands. */
export class ExecSessionManager {
  private readonly sessions = new Map<number, ExecProcess>();
  private readonly pruned = new Set<Promise<void>>();
  /** Processes whose `start` is still waiting out its yield time (not in `sessions` yet). */
  private readonly starting = new Set<ExecProcess>();
  /**
   * Spawns in flight: their command may already run (and print) before the spawn resolves, so
   * `killAll` waits for them and kills what they started.
   */
  private readonly spawning = new Set<Promise<ExecProcess>>();
  private readonly launches = new WeakMap<ExecProcess, SessionLaunch>();
  /** Why sessions ended by `endUncovered` were ended, by id (the most recent ones). */
  private readonly ended = new Map<number, string>();
  private nextSessionId = 1000;

  constructor(private readonly options: ExecSessionManagerOptions = {}) {}

  /** Ids of the sessions currently held (running, or exited but not yet read). */
  get sessionIds(): number[] {
    return [...this.sessions.keys()];
  }

  /** The process group id and exit state of a held session, or undefined when it is not held. */
  sessionInfo(sessionId: number): { pgid: number; hasExited: boolean } | undefined {
    const proc = this.sessions.get(sessionId);
    return proc === undefined ? undefined : { pgid: proc.pgid, hasExited: proc.hasExited };
  }

  /**
   * Starts a command and waits until it exits or the yield time passes. Throws
   * SandboxUnavailableError when the policy needs bwrap and bwrap cannot run, and ExecSpawnError
   * when the command cannot start. An already aborted signal returns an aborted snapshot without
   * spawning anything.
   */
  async start(request: ExecStartRequest): Promise<ExecSnapshot> {
    const startedAt = performance.now();
    if (request.signal.aborted) return abortedBeforeStart();
    let proc: ExecProcess;
    let spawn: Promise<ExecProcess> | undefined;
    try {
      spawn = ExecProcess.start({
        argv: request.argv,
        cwd: request.cwd,
        env: request.env,
        tty: request.tty,
        sandbox: request.sandbox,
        workspace: request.sandboxCwd ?? request.cwd,
        hiddenPaths: this.options.hiddenPaths,
        readablePaths: request.readablePaths,
        bwrap: { bwrapPath: this.options.bwrapPath, pathEnv: this.options.pathEnv },
        signal: request.signal,
        timeoutMs: request.timeoutMs,
        onOutput: request.onOutput,
      });
      this.spawning.add(spawn);
      proc = await spawn;
    } catch (error) {
      // Aborted while the sandbox was being checked: nothing was started.
      if (request.signal.aborted && error === request.signal.reason) return abortedBeforeStart();
      throw error;
    } finally {
      if (spawn !== undefined) this.spawning.delete(spawn);
    }
    const sandbox = { policy: request.sandbox, cwd: request.sandboxCwd ?? request.cwd };
    this.launches.set(proc, { sandbox, grant: request.grant ?? sandbox, cwd: request.cwd, tty: request.tty });
    const yieldMs = clamp(request.yieldTimeMs, MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS);
    this.starting.add(proc);
    try {
      await proc.waitForExit(Date.now() + yieldMs);
      await proc.terminating;
    } finally {
      this.starting.delete(proc);
    }
    if (proc.hasExited) return this.finish(proc, startedAt, request.maxOutputTokens);
    const sessionId = this.store(proc);
    return this.snapshot(proc, sessionId, startedAt, request.maxOutputTokens);
  }

  /**
   * Sends `chars` to a running session's stdin (empty: just poll) and waits like `start`: until
   * the command exits or the yield time passes. An empty poll waits at least 5 s (unless the
   * command exits first), as in the reference. Aborting `signal` only ends the wait early.
   * Throws UnknownSessionError for an id that is not held, and EndedSessionError for one that
   * `endUncovered` ended.
   */
  async write(
    sessionId: number,
    chars: string,
    yieldTimeMs: number,
    maxOutputTokens?: number,
    signal?: AbortSignal,
  ): Promise<ExecSnapshot> {
    const startedAt = performance.now();
    const proc = this.sessions.get(sessionId);
    const ended = this.ended.get(sessionId);
    if (proc === undefined && ended !== undefined) throw new EndedSessionError(sessionId, ended);
    if (proc === undefined) throw new UnknownSessionError(sessionId);
    proc.write(chars);
    const yieldMs =
      chars === ''
        ? clamp(yieldTimeMs, this.options.minEmptyYieldTimeMs ?? MIN_EMPTY_YIELD_TIME_MS, MAX_EMPTY_YIELD_TIME_MS)
        : clamp(yieldTimeMs, MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS);
    await proc.waitForExit(Date.now() + yieldMs, signal);
    await proc.terminating;
    if (proc.hasExited) {
      if (this.sessions.get(sessionId) === proc) this.sessions.delete(sessionId);
      return this.finish(proc, startedAt, maxOutputTokens);
    }
    return this.snapshot(proc, sessionId, startedAt, maxOutputTokens);
  }

  /**
   * Kills the process group of every held session and of every command still inside `start`,
   * and forgets the sessions (thread close). A `start` in progress returns its killed command.
   */
  async killAll(): Promise<void> {
    const held = [...this.sessions.values()];
    this.sessions.clear();
    const starting = [...this.starting];
    const spawned = [...this.spawning].map((spawn) =>
      spawn.then(
        (proc) => proc.terminate('killed'),
        () => undefined, // it did not start: nothing to kill, and its `start` reports why
      ),
    );
    await Promise.all([...[...held, ...starting].map((proc) => proc.terminate('killed')), ...spawned, ...this.pruned]);
    for (const proc of held) proc.dispose();
  }

  /**
   * Kills the process group of every held session (the commands `exec_command` left running in
   * the background, and exited ones not yet read) and forgets them; the session ids become
   * unknown to `write`. A command still inside `start` belongs to a tool call in flight and is
   * left alone. Resolves, once the groups are gone, with the number of sessions that were
   * still running.
   */
  async cleanBackground(): Promise<number> {
    const held = [...this.sessions.values()];
    this.sessions.clear();
    const running = held.filter((proc) => !proc.hasExited).length;
    await Promise.all(held.map((proc) => proc.terminate('killed')));
    for (const proc of held) proc.dispose();
    return running;
  }

  /** How a held session was started, or undefined when the id is not held. */
  launchOf(sessionId: number): SessionLaunch | undefined {
    const proc = this.sessions.get(sessionId);
    return proc === undefined ? undefined : this.launches.get(proc);
  }

  /**
   * Kills every held session whose grant `current` does not cover (the thread's sandbox was
   * narrowed, or its writable roots moved) and forgets it; `write` to its id is then refused with
   * the reason. Sessions still inside `start` are left alone: they belong to a running turn,
   * which keeps its own sandbox, and are checked the next time the sandbox is set. Resolves, once
   * their process groups are gone, with the ids that were ended.
   */
  async endUncovered(current: SandboxScope): Promise<number[]> {
    const victims = [...this.sessions.entries()].filter(([, proc]) => {
      const launch = this.launches.get(proc);
      return launch !== undefined && !sandboxCovers(current, launch.grant);
    });
    for (const [id, proc] of victims) {
      this.sessions.delete(id);
      const started = describeSandbox((this.launches.get(proc) as SessionLaunch).grant.policy);
      this.ended.set(
        id,
        `this terminal was started under a sandbox (${started}) that the current one (${describeSandbox(current.policy)}) does not cover, and was ended when the sandbox changed; start a new terminal`,
      );
    }
    // Keep the reasons of the most recent ones only.
    for (const id of this.ended.keys()) if (this.ended.size > (this.options.maxSessions ?? MAX_EXEC_SESSIONS)) this.ended.delete(id);
    await Promise.all(victims.map(([, proc]) => proc.terminate('killed').finally(() => proc.dispose())));
    return victims.map(([id]) => id);
  }

  private store(proc: ExecProcess): number {
    const max = this.options.maxSessions ?? MAX_EXEC_SESSIONS;
    while (this.sessions.size >= max && this.pruneOne()) {
      // pruneOne removed one entry; repeat until there is room.
    }
    const sessionId = this.nextSessionId;
    this.nextSessionId += 1;
    this.sessions.set(sessionId, proc);
    return sessionId;
  }

  /**
   * Drops one session: the least recently used exited one, else the least recently used running
   * one (its process group is killed). The most recently used ones are spared.
   */
  private pruneOne(): boolean {
    const max = this.options.maxSessions ?? MAX_EXEC_SESSIONS;
    const spared = Math.min(PROTECTED_RECENT_SESSIONS, Math.floor(max / 8));
    const byRecency = [...this.sessions.entries()].sort(([, a], [, b]) => b.lastUsed - a.lastUsed);
    const candidates = byRecency.slice(spared).reverse();
    const victim = candidates.find(([, proc]) => proc.hasExited) ?? candidates[0];
    if (victim === undefined) return false;
    const [id, proc] = victim;
    this.sessions.delete(id);
    const killed = proc.terminate('killed').finally(() => {
      proc.dispose();
      this.pruned.delete(killed);
    });
    this.pruned.add(killed);
    return true;
  }

  /** The last snapshot of an exited command; its pipes are released afterwards. */
  private finish(proc: ExecProcess, startedAt: number, maxOutputTokens?: number): ExecSnapshot {
    const snapshot = this.snapshot(proc, null, startedAt, maxOutputTokens);
    proc.dispose();
    return snapshot;
  }

  private snapshot(proc: ExecProcess, sessionId: number | null, startedAt: number, maxOutputTokens?: number): ExecSnapshot {
    const reading = proc.read();
    return {
      sessionId,
      exitCode: reading.exit?.exitCode ?? null,
      signal: reading.exit?.signal ?? null,
      output: truncateForModel(reading.text, resolveMaxOutputTokens(maxOutputTokens)),
      originalTokenCount: Math.ceil(reading.totalBytes / APPROX_BYTES_PER_TOKEN),
      wallTimeMs: performance.now() - startedAt,
      aborted: reading.aborted,
      timedOut: reading.timedOut,
      sandboxDenied: reading.sandboxDenied,
    };
  }
}

/** The snapshot of a command whose signal was aborted before it could start. */
function abortedBeforeStart(): ExecSnapshot {
  return {
    sessionId: null,
    exitCode: null,
    signal: null,
    output: '',
    originalTokenCount: 0,
    wallTimeMs: 0,
    aborted: true,
    timedOut: false,
    sandboxDenied: false,
  };
}
