/**
 * The processes of `command/exec` (see `command.ts`): a child leading its own process group on
 * pipes or on a PTY, handing out raw output bytes, with stdin, resize, pause/resume and the
 * checks that make a sandboxed or PTY spawn fail like a plain one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import pty from '@lydell/node-pty';
import { holdSlaveOpen } from '@deputy/engine';
import type { AppServer, SandboxPolicy as EngineSandboxPolicy } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import { errnoText } from '../os-errors.js';

/** How long output may keep arriving after the command exited (reference: `IO_DRAIN_TIMEOUT_MS`). */
const IO_DRAIN_MS = 2_000;
/** Ctrl-D: end of input on a terminal; `closeStdin` on a PTY sends it. */
const END_OF_INPUT = '\u0004';

/** The -32603 of a command that could not start. */
export const spawnFailed = (detail: string): RpcError => RpcError.internal(`failed to spawn command: ${detail}`);

/** Which stream output came from (a PTY reports everything on stdout). */
export type OutputStream = AppServer.CommandExecOutputDelta['stream'];
export type OnOutput = (stream: OutputStream, bytes: Buffer) => void;

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

/** A started child leading its own process group, on pipes or on a PTY. */
export interface Child {
  readonly pid: number;
  /** Settles when the leader has exited. */
  readonly exited: Promise<void>;
  /** Settles with the exit code (null: killed by a signal) once the output has been read. */
  readonly ended: Promise<number | null>;
  write(bytes: Buffer): void;
  closeStdin(): void;
  /** Throws when the child has no PTY or the PTY is gone. */
  resize(size: AppServer.TerminalSize): void;
  /** Stops and restarts reading output (backpressure). */
  pause(): void;
  resume(): void;
  /** Releases pipes and listeners; signals nothing. */
  dispose(): void;
}

/** Resolves when `promise` settles or `ms` pass, whichever comes first. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  await Promise.race([promise.catch(() => undefined), delay(ms, undefined, { signal: timer.signal }).catch(() => undefined)]);
  timer.abort();
}

/**
 * Why `file` cannot be started in `cwd` (the OS text, as execvp would fail), or null. Checked
 * before spawning so a sandboxed or PTY command fails like a plain one instead of exiting 1.
 */
export function spawnProblem(file: string, cwd: string, pathEnv: string | undefined): string | null {
  const { ENOENT, ENOTDIR, EACCES } = osConstants.errno;
  let isDirectory: boolean;
  try {
    isDirectory = fs.statSync(cwd).isDirectory();
  } catch {
    return errnoText(ENOENT, 'no such directory');
  }
  if (!isDirectory) return errnoText(ENOTDIR, 'not a directory');
  const dirs = (pathEnv ?? '/usr/bin:/bin').split(':').filter((dir) => dir !== '');
  const candidates = file.includes('/') ? [path.resolve(cwd, file)] : dirs.map((dir) => path.resolve(cwd, dir, file));
  let problem = ENOENT;
  for (const candidate of candidates) {
    try {
      if (!fs.statSync(candidate).isFile()) {
        problem = EACCES;
        continue;
      }
      fs.accessSync(candidate, fs.constants.X_OK);
      return null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EACCES') problem = EACCES;
    }
  }
  return errnoText(problem, 'cannot execute');
}

/** Spawns `argv` on pipes in a new process group; rejects with the spawn error as RpcError. */
export async function startOnPipes(argv: string[], plan: CommandPlan, onOutput: OnOutput): Promise<Child> {
  const [file, ...args] = argv as [string, ...string[]];
  const child = spawn(file, args, { cwd: plan.cwd, env: plan.env, detached: true, stdio: [plan.streamStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  // Errors after spawn (a failed kill, a broken stdin) must not crash the server.
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const outputs = { stdout: child.stdout as Readable, stderr: child.stderr as Readable };
  const closed = Object.entries(outputs).map(([name, stream]) => {
    stream.on('data', (bytes: Buffer) => onOutput(name as OutputStream, bytes));
    stream.on('error', () => undefined);
    return new Promise<void>((resolve) => stream.once('close', resolve));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(spawnFailed(typeof error.errno === 'number' ? errnoText(error.errno, error.message) : error.message));
    });
  });
  return {
    pid: child.pid as number,
    exited: exitCode.then(() => undefined),
    // A background grandchild can hold the pipes open forever, so the wait for them is bounded.
    ended: exitCode.then(async (code) => {
      await within(Promise.all(closed), IO_DRAIN_MS);
      return code;
    }),
    write: (bytes) => {
      if (child.stdin?.writable) child.stdin.write(bytes);
    },
    closeStdin: () => child.stdin?.end(),
    resize: () => {
      throw new Error('process is not attached to a PTY');
    },
    pause: () => Object.values(outputs).forEach((s) => s.pause()),
    resume: () => Object.values(outputs).forEach((s) => s.resume()),
    dispose: () => {
      child.stdin?.destroy();
      Object.values(outputs).forEach((s) => s.destroy());
    },
  };
}

/** Spawns `argv` on a PTY (forkpty makes it a session and group leader); output is raw bytes. */
export function startOnPty(argv: string[], plan: CommandPlan, onOutput: OnOutput): Child {
  const [file, ...args] = argv as [string, ...string[]];
  const term = pty.spawn(file, args, { name: plan.env.TERM ?? 'xterm', ...plan.size, cwd: plan.cwd, env: plan.env, encoding: null });
  // The engine's PTY sessions hold the slave side too, so the last output is not lost at exit.
  const slave = holdSlaveOpen(term);
  const release = (): void => slave.release();
  // With `encoding: null` node-pty hands out Buffers, whatever its typings say.
  const data = term.onData((bytes) => onOutput('stdout', bytes as unknown as Buffer));
  let isOpen = true;
  // node-pty reports the exit once the terminal's output has been read (or its socket timed out).
  const ended = new Promise<number | null>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      isOpen = false;
      release();
      resolve(signal !== undefined && signal !== 0 ? null : exitCode);
    });
  });
  // Writing to the closed terminal raises an error node-pty rethrows, so writes stop at exit.
  const write = (chars: Buffer | string): void => {
    if (isOpen) term.write(chars as string);
  };
  return {
    pid: term.pid,
    exited: ended.then(() => undefined),
    ended,
    write,
    closeStdin: () => write(END_OF_INPUT),
    resize: (size) => term.resize(size.cols, size.rows),
    pause: () => term.pause(),
    resume: () => term.resume(),
    dispose: () => {
      isOpen = false;
      data.dispose();
      release();
    },
  };
}
