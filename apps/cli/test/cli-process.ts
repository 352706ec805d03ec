/**
 * Runs the built `deputy` CLI (apps/cli/dist/deputy.cjs) as a real child process for the e2e
 * tests: a clean environment (no OPENAI_API_KEY, DEPUTY_HOME set), captured stdout and stderr,
 * a bounded wait for exit, and a kill by PID when a test is done with it. Builds the CLI first
 * when it is missing or older than its sources.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The built CLI entry point. */
export const CLI_ENTRY = join(REPO_ROOT, 'apps/cli/dist/deputy.cjs');

/** True when the built entry exists and the newest built file is newer than every source file. */
function isCliBuildCurrent(): boolean {
  if (!existsSync(CLI_ENTRY)) return false;
  const newest = (dir: string, suffix: string) =>
    Math.max(...readdirSync(dir).filter((f) => f.endsWith(suffix)).map((f) => statSync(join(dir, f)).mtimeMs));
  return newest(join(REPO_ROOT, 'apps/cli/dist'), '.js') >= newest(join(REPO_ROOT, 'apps/cli/src'), '.ts');
}

/**
 * Builds the CLI (`tsc -b apps/cli`, which builds the packages it uses too) when its entry is
 * missing or older than its sources; CI builds before testing, so this is for local runs. The
 * build never runs while another test file may be running the CLI: a lock directory serialises
 * the files' checks, and the second file finds the build current. Type errors elsewhere in the
 * workspace do not stop tsc from emitting, so a failed build only fails the tests when there is
 * no CLI to run.
 */
export async function ensureCliBuilt(): Promise<void> {
  if (isCliBuildCurrent()) return;
  const lock = join(tmpdir(), `deputy-cli-build-${createHash('sha1').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 110_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed test run is stale after two minutes.
      if (Date.now() - lockAgeBase(lock) > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another test kept ${lock} for too long`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    if (isCliBuildCurrent()) return;
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-b', 'apps/cli'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 100_000 });
    if (result.status !== 0 && !existsSync(CLI_ENTRY)) throw new Error(`building the CLI failed:\n${result.stdout}${result.stderr}`);
  } finally {
    rmdirSync(lock);
  }
}

/** When the lock was taken (now, if it vanished meanwhile). */
function lockAgeBase(lock: string): number {
  try {
    return statSync(lock).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** A running CLI process. */
export interface CliProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) within `timeoutMs`, else rejects. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the process by PID if it is still running. */
  kill(): void;
}

/** Options of {@link startCli}. */
export interface CliOptions {
  home: string;
  cwd: string;
  /** Text written to stdin (then closed); stdin is closed at once when absent. */
  stdin?: string;
  env?: Record<string, string>;
  /**
   * `deputy exec` refuses to run outside a git repository, as `codex exec` does; the temp
   * workspaces of the tests are not repositories, so `--skip-git-repo-check` is added after
   * `exec` unless this is true.
   */
  gitRepoCheck?: boolean;
}

/** Spawns `node dist/deputy.cjs ...args` with a clean environment. */
export function startCli(givenArgs: string[], options: CliOptions): CliProcess {
  const args = givenArgs[0] === 'exec' && options.gitRepoCheck !== true ? ['exec', '--skip-git-repo-check', ...givenArgs.slice(1)] : givenArgs;
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'SHELL', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, { DEPUTY_HOME: options.home, NO_COLOR: '1' }, options.env);
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  child.stdin.on('error', () => {});
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  else child.stdin.end();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    pid: child.pid ?? 0,
    stdout: () => out,
    stderr: () => err,
    exited: (timeoutMs = 15_000) =>
      Promise.race([
        exit,
        new Promise<never>((_, reject) => {
          const timer = setTimeout(() => reject(new Error(`deputy ${args.join(' ')} did not exit within ${timeoutMs} ms\nstderr:\n${err}`)), timeoutMs);
          void exit.then(() => clearTimeout(timer));
        }),
      ]),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
}

/** Runs the CLI to completion; the process is killed if it does not exit in time. */
export async function runCli(args: string[], options: CliOptions, timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, options);
  try {
    const { code } = await cli.exited(timeoutMs);
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  } finally {
    cli.kill();
  }
}
