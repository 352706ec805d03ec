/**
 * The operating-system side of one child process, in bytes: the checks that make a start fail
 * the same way on pipes and on a terminal, the spawn in a process group of its own (pipes:
 * `child_process.spawn` with `detached: true`, in the spawn helper when it runs; terminal: `@lydell/node-pty`, whose forkpty makes
 * the child a session and group leader), raw output, stdin, resize, and signals to the group.
 * Only `child.ts` uses it: the sandbox and the kill policy live there, text decoding in
 * `exec-process.ts`.
 */
import { spawn as spawnPiped } from 'node:child_process';
import fs from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import type { IPty } from '@lydell/node-pty';
import { ExecSpawnError } from './errors.js';
import { HelperSpawnFailure, spawnThroughHelper, type HelperChild } from './spawn-helper.js';

/** Which stream a chunk came from; a terminal merges both into `stdout`. */
export type OutputStream = 'stdout' | 'stderr';

/** How a process ended: an exit code, or the name of the signal that killed it. */
export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

/** The size of a pseudo-terminal. */
export interface TerminalSize {
  rows: number;
  cols: number;
}

/** What {@link spawnOnPipes} and {@link spawnOnPty} need. */
export interface RawSpawnOptions {
  /** The argv to run as is (already wrapped in bwrap when sandboxed). */
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Pipes only: `ignore` gives the child `/dev/null` as stdin. */
  stdin: 'pipe' | 'ignore';
  /** Pipes only: how long the output may keep arriving after the leader exited. */
  outputDrainMs: number;
  onOutput(stream: OutputStream, bytes: Buffer): void;
}

/** A started child leading its own process group, on pipes or on a terminal. */
export interface RawChild {
  readonly pid: number;
  /** Settles when the leader has exited (output may still be arriving). */
  readonly exited: Promise<ProcessExit>;
  /** Settles once the leader has exited and its output was read to the end (or the drain bound passed). */
  readonly ended: Promise<ProcessExit>;
  /** Ignored once stdin is closed or the child is gone. */
  write(data: Buffer | string): void;
  closeStdin(): void;
  /** Throws when the child has no terminal. */
  resize(size: TerminalSize): void;
  pause(): void;
  resume(): void;
  /** Releases pipes and listeners; signals nothing. */
  dispose(): void;
}

/** Ctrl-D: end of input on a terminal. */
const END_OF_INPUT = '\u0004';

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(osConstants.signals as Record<string, number>).map(([name, number]) => [number, name]),
);


/** Resolves when `promise` settles or `ms` pass, whichever comes first. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => undefined), bound]);
  clearTimeout(timer);
}

/**
 * Throws ExecSpawnError (with the errno execvp would report) when `file` cannot be started in
 * `cwd`: the directory is missing, or no executable regular file is found (directly with a
 * slash, else on `pathEnv`, relative entries against `cwd`). Checked on the command itself
 * before any sandbox wraps it, so a sandboxed or terminal command fails like a plain one
 * instead of exiting 1 with bwrap's or forkpty's message.
 */
export function checkSpawnable(file: string | undefined, cwd: string, pathEnv: string | undefined): void {
  if (file === undefined || file === '') throw new ExecSpawnError('Cannot run an empty command line');
  const { ENOENT, ENOTDIR, EACCES } = osConstants.errno;
  let isDirectory: boolean;
  try {
    isDirectory = fs.statSync(cwd).isDirectory();
  } catch {
    throw new ExecSpawnError(`Working directory does not exist: ${cwd}`, { errno: ENOENT });
  }
  if (!isDirectory) throw new ExecSpawnError(`Working directory is not a directory: ${cwd}`, { errno: ENOTDIR });
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
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EACCES') problem = EACCES;
    }
  }
  const why = problem === EACCES ? 'permission denied' : 'executable not found';
  throw new ExecSpawnError(`Failed to start ${file}: ${why}`, { errno: problem });
}

/** The ExecSpawnError of a spawn that threw or failed, keeping the OS's errno when there is one. */
function spawnError(file: string, error: unknown, where = ''): ExecSpawnError {
  const { errno, message } = error as NodeJS.ErrnoException;
  return new ExecSpawnError(`Failed to start ${file}${where}: ${message}`, {
    cause: error,
    errno: typeof errno === 'number' ? errno : undefined,
    reason: message,
  });
}

/** Spawns in this process (the helper is off or unavailable); listeners go on before any await. */
async function spawnHere(file: string, args: string[], options: RawSpawnOptions): Promise<HelperChild> {
  let child;
  try {
    child = spawnPiped(file, args, { cwd: options.cwd, env: { ...options.env }, detached: true, stdio: [options.stdin, 'pipe', 'pipe'] });
  } catch (error) {
    // Node refuses some arguments (a NUL byte) before anything runs.
    throw spawnError(file, error);
  }
  // Errors after spawn (a failed kill, a broken stdin) must not crash the process.
  const { stdin } = child;
  child.on('error', () => undefined);
  stdin?.on('error', () => undefined);
  const outputs: Record<OutputStream, Readable> = { stdout: child.stdout as Readable, stderr: child.stderr as Readable };
  const closed = Object.entries(outputs).map(([name, stream]) => {
    stream.on('data', (bytes: Buffer) => options.onOutput(name as OutputStream, bytes));
    stream.on('error', () => undefined);
    return new Promise<void>((resolve) => stream.once('close', resolve));
  });
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (exitCode, signal) => resolve({ exitCode, signal })));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(spawnError(file, error)));
  });
  const each = (act: (stream: Readable) => void) => () => Object.values(outputs).forEach(act);
  return {
    pid: child.pid as number,
    exited,
    outputsClosed: Promise.all(closed).then(() => undefined),
    write: (data) => {
      if (stdin !== null && !stdin.destroyed && stdin.writable) stdin.write(data);
    },
    closeStdin: () => stdin?.end(),
    pause: each((stream) => stream.pause()),
    resume: each((stream) => stream.resume()),
    dispose: () => {
      stdin?.destroy();
      Object.values(outputs).forEach((stream) => stream.destroy());
    },
  };
}

/**
 * `env` with `SHLVL` at 1 or more. A non-interactive bash whose stdin is a socket takes itself
 * for a command started by rshd or sshd and reads `~/.bashrc` when `SHLVL` says it is a
 * top-level shell (unset or 0, which is what a process started by `bash -c '... ; exec node …'`
 * or by a desktop launcher passes on). Node's pipes are socket pairs, so without this every
 * `bash -c` command ran the user's `~/.bashrc` (measured: `pyenv init` there made each command
 * take 0.5 s and 200 at once fight over pyenv's lock), which the reference, on real pipes, does
 * not. A terminal's shells have `SHLVL` 1 or more, so commands see what they see there.
 */
export function withShellLevel(env: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const level = Number.parseInt(env.SHLVL ?? '', 10);
  return Number.isInteger(level) && level >= 1 ? env : { ...env, SHLVL: '1' };
}

/**
 * Spawns `argv` on pipes in a new process group, through the spawn helper when it runs (see
 * `spawn-helper.ts`), else here; rejects with ExecSpawnError when it cannot start.
 */
export async function spawnOnPipes(options: RawSpawnOptions): Promise<RawChild> {
  const [file, ...args] = options.argv as [string, ...string[]];
  const env = withShellLevel(options.env);
  const request = { file, args, cwd: options.cwd, env, stdin: options.stdin, onOutput: options.onOutput };
  const viaHelper = await spawnThroughHelper(request);
  if (viaHelper instanceof HelperSpawnFailure) throw spawnError(file, viaHelper);
  const child = viaHelper ?? (await spawnHere(file, args, { ...options, env }));
  return {
    ...child,
    // A background grandchild can hold the pipes open forever, so the wait for them is bounded.
    ended: child.exited.then(async (exit) => {
      await within(child.outputsClosed, options.outputDrainMs);
      return exit;
    }),
    resize: () => {
      throw new Error('process is not attached to a PTY');
    },
  };
}

/**
 * Opens the terminal's slave side in this process and keeps it open until released. Without it,
 * the last output of a command can be lost: when the command exits, the master reports hang-up
 * while its final bytes may still sit in the kernel's flip buffer, and libuv takes a short read
 * plus hang-up for end of file. Holding the slave prevents the hang-up, so node-pty keeps
 * reading until its post-exit drain ends.
 */
function holdSlaveOpen(term: IPty): { release(): void } {
  const ptsName = (term as unknown as { ptsName?: unknown }).ptsName;
  let fd: number | null = null;
  if (typeof ptsName === 'string') {
    try {
      fd = fs.openSync(ptsName, fs.constants.O_RDONLY | fs.constants.O_NOCTTY);
    } catch {
      fd = null;
    }
  }
  return {
    release() {
      if (fd === null) return;
      const open = fd;
      fd = null;
      fs.close(open, () => undefined);
    },
  };
}

/**
 * node-pty (a native addon), loaded with the first terminal command: most processes never start
 * one (a turn's commands run on pipes unless they ask for a terminal).
 */
let ptyModule: typeof import('@lydell/node-pty') | null = null;
function nodePty(): typeof import('@lydell/node-pty') {
  ptyModule ??= createRequire(import.meta.url)('@lydell/node-pty') as typeof import('@lydell/node-pty');
  return ptyModule;
}

/**
 * Spawns `argv` on a pseudo-terminal of `size` (forkpty makes it a session and group leader);
 * output is raw bytes on `stdout`. Throws ExecSpawnError when node-pty refuses to start it.
 */
export function spawnOnPty(options: RawSpawnOptions, size: TerminalSize): RawChild {
  const [file, ...args] = options.argv as [string, ...string[]];
  let term: IPty;
  try {
    const env = { ...options.env };
    term = nodePty().spawn(file, args, { name: env.TERM ?? 'xterm', cols: size.cols, rows: size.rows, cwd: options.cwd, env, encoding: null });
  } catch (error) {
    throw spawnError(file, error, ' on a terminal');
  }
  const slave = holdSlaveOpen(term);
  // With `encoding: null` node-pty hands out Buffers, whatever its typings say.
  const data = term.onData((bytes) => options.onOutput('stdout', bytes as unknown as Buffer));
  let isOpen = true;
  // node-pty reports the exit only after the terminal's output has been read to the end (with
  // the slave descriptor held, after its post-exit drain).
  const ended = new Promise<ProcessExit>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      isOpen = false;
      slave.release();
      if (signal !== undefined && signal !== 0) resolve({ exitCode: null, signal: SIGNAL_NAMES.get(signal) ?? `SIG${signal}` });
      else resolve({ exitCode, signal: null });
    });
  });
  // Writing to a closed terminal raises an error node-pty rethrows, so writes stop at exit.
  const write = (data: Buffer | string): void => {
    if (isOpen) term.write(data as string);
  };
  return {
    pid: term.pid,
    exited: ended,
    ended,
    write,
    closeStdin: () => write(END_OF_INPUT),
    resize: (next) => term.resize(next.cols, next.rows),
    pause: () => term.pause(),
    resume: () => term.resume(),
    dispose: () => {
      isOpen = false;
      data.dispose();
      slave.release();
    },
  };
}
