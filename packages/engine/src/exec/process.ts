/**
 * Spawning one child process in its own process group, either on pipes (`child_process.spawn`
 * with `detached: true`) or on a pseudo-terminal (`@lydell/node-pty`, whose forkpty makes the
 * child a session and group leader). Both variants look the same to callers: decoded output
 * chunks, stdin writes, an exit promise that settles once the output has drained, and signals
 * sent to the whole group. Output buffering, yielding and the kill policy live in exec-process.ts.
 */
import { spawn as spawnPiped } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { constants as osConstants } from 'node:os';
import pty from '@lydell/node-pty';
import type { IPty } from '@lydell/node-pty';
import { ExecSpawnError } from './errors.js';

/** Which stream a chunk came from; a PTY merges both into `stdout`. */
export type OutputStream = 'stdout' | 'stderr';

/** How a process ended: an exit code, or the name of the signal that killed it. */
export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

/** What {@link spawnChild} needs. */
export interface SpawnChildOptions {
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  tty: boolean;
  onOutput: (chunk: string, stream: OutputStream) => void;
}

/** A running (or finished) child process that leads its own process group. */
export interface ChildHandle {
  /** The child's pid, which is also its process group id. */
  readonly pid: number;
  readonly tty: boolean;
  /** Settles once the child has exited and its output has closed (or a short grace passed). */
  readonly exited: Promise<ProcessExit>;
  /**
   * Writes to the child's stdin (the terminal for a PTY). On pipes, a Ctrl-D (U+0004) closes stdin
   * after the text before it, as it ends input on a terminal. Errors such as EPIPE are ignored.
   */
  write(chars: string): void;
  /** Sends `signal` to the whole process group; false when the group no longer exists. */
  signalGroup(signal: NodeJS.Signals): boolean;
  /** True while any process of the group exists (zombies included). */
  isGroupAlive(): boolean;
  /** Stops reading output and releases handles; does not signal anything. */
  dispose(): void;
}

/**
 * How long to wait, after the child exits, for its output pipes to close. A background grandchild
 * can hold them open forever, so the wait is capped.
 */
export const POST_EXIT_OUTPUT_WAIT_MS = 200;

/** Ctrl-D: end of input. */
const END_OF_INPUT = '\u0004';

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(osConstants.signals as Record<string, number>).map(([name, number]) => [number, name]),
);

/** Sends `signal` to process group `pgid`; false when it does not exist. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Spawns `argv` in a new process group, on a PTY when `tty` is true. */
export async function spawnChild(options: SpawnChildOptions): Promise<ChildHandle> {
  const [file, ...args] = options.argv;
  if (file === undefined || file === '') throw new ExecSpawnError('Cannot run an empty command line');
  let isDirectory = false;
  try {
    isDirectory = fs.statSync(options.cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw new ExecSpawnError(`Working directory does not exist: ${options.cwd}`);
  return options.tty ? spawnOnPty(file, args, options) : spawnOnPipes(file, args, options);
}

/** Resolves once `child` has spawned; rejects with ExecSpawnError when it could not. */
function waitForSpawn(child: ChildProcessWithoutNullStreams, file: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      child.off('spawn', onSpawn);
      reject(new ExecSpawnError(`Failed to start ${file}: ${error.message}`, { cause: error }));
    };
    const onSpawn = (): void => {
      child.off('error', onError);
      resolve();
    };
    child.once('error', onError);
    child.once('spawn', onSpawn);
  });
}

/** Forwards decoded stdout/stderr chunks; resolves when both pipes have closed. */
function forwardOutput(child: ChildProcessWithoutNullStreams, onOutput: SpawnChildOptions['onOutput']): Promise<void> {
  const streams = [
    { stream: child.stdout, name: 'stdout' as const },
    { stream: child.stderr, name: 'stderr' as const },
  ];
  return new Promise<void>((resolve) => {
    let openStreams = streams.length;
    for (const { stream, name } of streams) {
      // setEncoding keeps multi-byte characters split across reads intact.
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => onOutput(chunk, name));
      stream.on('error', () => undefined);
      stream.once('close', () => {
        openStreams -= 1;
        if (openStreams === 0) resolve();
      });
    }
  });
}

async function spawnOnPipes(file: string, args: string[], options: SpawnChildOptions): Promise<ChildHandle> {
  const child = spawnPiped(file, args, {
    cwd: options.cwd,
    env: { ...options.env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Listeners go on before the first await so no early output or exit can be missed.
  const spawned = waitForSpawn(child, file);
  const allClosed = forwardOutput(child, options.onOutput);
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((done) => {
        timer = setTimeout(done, POST_EXIT_OUTPUT_WAIT_MS);
      });
      void Promise.race([allClosed, grace]).then(() => {
        clearTimeout(timer);
        resolve({ exitCode: code, signal });
      });
    });
  });

  // Errors after spawn (a failed kill, a broken stdin) must not crash the process.
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  await spawned;
  const pid = child.pid as number;

  return {
    pid,
    tty: false,
    exited,
    write(chars: string) {
      if (child.stdin.destroyed || !child.stdin.writable) return;
      // Ctrl-D means end of input on a terminal; on a pipe the same character closes stdin.
      const eof = chars.indexOf(END_OF_INPUT);
      if (eof === -1) child.stdin.write(chars);
      else child.stdin.end(chars.slice(0, eof));
    },
    signalGroup: (signal) => signalProcessGroup(pid, signal),
    isGroupAlive: () => signalProcessGroup(pid, 0),
    dispose() {
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
    },
  };
}

/** True when `file` names an executable, directly (with a slash) or through `pathEnv`. */
function isExecutableOnPath(file: string, pathEnv: string | undefined): boolean {
  const candidates = file.includes('/')
    ? [file]
    : (pathEnv ?? '/usr/bin:/bin').split(':').filter((dir) => dir !== '').map((dir) => `${dir}/${file}`);
  return candidates.some((candidate) => {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Opens the terminal's slave side in this process and keeps it open until released. Without it,
 * the last output of a command can be lost: when the command exits, the master reports hang-up
 * while its final bytes may still sit in the kernel's flip buffer, and libuv takes a short read
 * plus hang-up for end of file. Holding the slave prevents the hang-up, so node-pty keeps
 * reading until its post-exit drain ends.
 */
export function holdSlaveOpen(term: IPty): { release(): void } {
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

function spawnOnPty(file: string, args: string[], options: SpawnChildOptions): ChildHandle {
  // forkpty reports a failed exec only as exit code 1 with a message; check first, like pipes do.
  if (!isExecutableOnPath(file, options.env.PATH)) {
    throw new ExecSpawnError(`Failed to start ${file} on a terminal: executable not found`);
  }
  let term: IPty;
  try {
    term = pty.spawn(file, args, {
      name: options.env.TERM ?? 'xterm',
      cols: 80,
      rows: 24,
      cwd: options.cwd,
      env: { ...options.env },
    });
  } catch (error) {
    throw new ExecSpawnError(`Failed to start ${file} on a terminal: ${(error as Error).message}`, { cause: error });
  }
  const pid = term.pid;
  const dataSubscription = term.onData((chunk) => options.onOutput(chunk, 'stdout'));
  const slave = holdSlaveOpen(term);
  // node-pty reports exit only after the terminal's output has been read to the end (with our
  // slave descriptor held, after its 200 ms post-exit drain).
  const exited = new Promise<ProcessExit>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      slave.release();
      if (signal !== undefined && signal !== 0) {
        resolve({ exitCode: null, signal: SIGNAL_NAMES.get(signal) ?? `SIG${signal}` });
      } else resolve({ exitCode, signal: null });
    });
  });
  let isDisposed = false;
  void exited.then(() => {
    isDisposed = true;
  });
  return {
    pid,
    tty: true,
    exited,
    write(chars: string) {
      if (!isDisposed) term.write(chars);
    },
    signalGroup: (signal) => signalProcessGroup(pid, signal),
    isGroupAlive: () => signalProcessGroup(pid, 0),
    dispose() {
      isDisposed = true;
      dataSubscription.dispose();
      slave.release();
    },
  };
}
