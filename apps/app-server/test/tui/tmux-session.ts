/**
 * TmuxSession drives a terminal program the way a person would: it starts the program in a
 * detached tmux session of fixed size on a private tmux server (its own socket and config, so the
 * user's tmux is never touched), pastes text with bracketed paste, presses keys, reads the screen
 * with `capture-pane`, waits for screen text with bounded polling, and records the program's
 * exit status through a wrapper shell (tmux itself was seen to leave the exited program
 * unreaped, without a status). `kill()` ends the program by PID and the tmux server by socket.
 * Every server this module starts is recorded until `kill()` ends it, and `killAllTmuxSessions()`
 * (for an `afterAll`) ends the ones a failed or timed-out test left behind. As a last resort each
 * server watches the test process from its own config and kills itself within a second once that
 * process is gone, however it ended. Only servers started here are touched, by socket name.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How to start a session. */
export interface TmuxStartOptions {
  /** A private directory for the session's scripts, PID and exit-status files. */
  dir: string;
  /** The program and its arguments. */
  argv: string[];
  /** Variables exported to the program (on top of the tmux server's environment). */
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/** Thrown by the waits with the last screen, so a failure shows what the program displayed. */
export class ScreenTimeoutError extends Error {
  constructor(
    what: string,
    readonly screen: string,
  ) {
    super(`timed out waiting for ${what}; last screen:\n${screen}`);
    this.name = 'ScreenTimeoutError';
  }
}

/** A POSIX shell single-quoted word. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Reads a file, or null when it does not exist (yet). */
async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** Polls `probe` every 100 ms until it returns non-null, for at most `timeoutMs`. */
async function pollFor<T>(timeoutMs: number, probe: () => Promise<T | null>): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let sessionCounter = 0;

/** Socket names of the tmux servers this process started and has not killed yet. */
const liveSockets = new Set<string>();

/** Kills every session this process started and has not killed yet (an `afterAll` safety net). */
export async function killAllTmuxSessions(): Promise<void> {
  const sockets = [...liveSockets];
  liveSockets.clear();
  await Promise.all(sockets.map((socket) => run('tmux', ['-L', socket, 'kill-server']).catch(() => undefined)));
}

/** A program running in a private tmux server. */
export class TmuxSession {
  private constructor(
    /** The private server's socket name (`tmux -L`). */
    readonly socket: string,
    /** The session (and target) name. */
    readonly name: string,
    /** PID of the program itself. */
    readonly pid: number,
    private readonly statusFile: string,
  ) {}

  /** Starts the program in a new detached session and returns once it runs. */
  static async start(options: TmuxStartOptions): Promise<TmuxSession> {
    sessionCounter += 1;
    const socket = `deputy-tui-${process.pid}-${sessionCounter}`;
    const name = 'tui';
    const file = (base: string) => path.join(options.dir, base);
    // The inner script becomes the program (exec), after writing its PID; the outer one waits
    // for it and writes its exit status. remain-on-exit keeps the last screen readable.
    const exports = Object.entries(options.env).map(([key, value]) => `export ${key}=${shellQuote(value)}`);
    const program = [...exports, `echo $$ > ${shellQuote(file('program.pid'))}`, `exec ${options.argv.map(shellQuote).join(' ')}`, ''];
    await writeFile(file('program.sh'), program.join('\n'), { mode: 0o700 });
    await writeFile(file('pane.sh'), `sh ${shellQuote(file('program.sh'))}\necho $? > ${shellQuote(file('exit-status'))}\n`, { mode: 0o700 });
    // The watchdog: the server kills itself once this (test) process has gone.
    const watchdog = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; tmux -L ${socket} kill-server`;
    await writeFile(file('tmux.conf'), `set -g remain-on-exit on\nset -g history-limit 5000\nset -g status off\nrun-shell -b ${shellQuote(watchdog)}\n`);
    // Recorded before the server exists, so a start that fails halfway is still cleaned up.
    liveSockets.add(socket);
    await run('tmux', ['-L', socket, '-f', file('tmux.conf'), 'new-session', '-d', '-s', name, '-x', String(options.cols), '-y', String(options.rows), `sh ${shellQuote(file('pane.sh'))}`]).catch(async (error: unknown) => {
      await run('tmux', ['-L', socket, 'kill-server']).catch(() => undefined);
      liveSockets.delete(socket);
      throw error;
    });
    const pid = await pollFor(10_000, async () => {
      const text = await readIfExists(file('program.pid'));
      return text === null || text.trim() === '' ? null : Number(text.trim());
    });
    const session = new TmuxSession(socket, name, pid ?? -1, file('exit-status'));
    if (pid === null) {
      const screen = await session.capture().catch(() => '');
      await session.kill();
      throw new ScreenTimeoutError('the program to start', screen);
    }
    return session;
  }

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run('tmux', ['-L', this.socket, ...args]);
  }

  /** The visible screen plus scrollback, as plain text. */
  async capture(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-J', '-t', this.name, '-S', '-');
    return stdout;
  }

  /** Pastes `text` as one bracketed paste (no per-key timing heuristics apply to it). */
  async paste(text: string): Promise<void> {
    await this.tmux('set-buffer', '-b', 'deputy-input', '--', text);
    await this.tmux('paste-buffer', '-p', '-d', '-b', 'deputy-input', '-t', this.name);
  }

  /** Presses tmux key names (`Enter`, `Escape`, `y`, …). */
  async press(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', this.name, ...keys);
  }

  /**
   * Polls the screen every 100 ms until `test` accepts it, for at most `timeoutMs`. Returns the
   * accepted screen; throws ScreenTimeoutError with the last screen otherwise.
   */
  async waitFor(what: string, test: (screen: string) => boolean, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = await this.capture();
      if (test(screen)) return screen;
      if (Date.now() > deadline) throw new ScreenTimeoutError(what, screen);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits until the screen contains `text` (a string or a pattern). */
  waitForText(text: string | RegExp, timeoutMs?: number): Promise<string> {
    const test = typeof text === 'string' ? (s: string) => s.includes(text) : (s: string) => text.test(s);
    return this.waitFor(JSON.stringify(String(text)), test, timeoutMs);
  }

  /** The program's exit status once it has exited (128 + N after signal N), else null. */
  async exitStatus(): Promise<number | null> {
    const text = await readIfExists(this.statusFile);
    return text === null || text.trim() === '' ? null : Number(text.trim());
  }

  /** Waits (bounded) for the program to exit and returns its exit status. */
  async waitForExit(timeoutMs = 15_000): Promise<number> {
    const status = await pollFor(timeoutMs, () => this.exitStatus());
    if (status === null) throw new ScreenTimeoutError('the program to exit', await this.capture());
    return status;
  }

  /** Kills the program by PID (if still running) and the private tmux server. Never throws. */
  async kill(): Promise<void> {
    if (this.pid > 0 && (await this.exitStatus()) === null) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // Already exited.
      }
    }
    await this.tmux('kill-server').catch(() => undefined);
    liveSockets.delete(this.socket);
  }
}
