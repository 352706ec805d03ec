/**
 * End-to-end support: builds the bundled binary `bundle/main.js` (tsc, then scripts/bundle.mjs)
 * when it is older than the sources (once, under a
 * lock shared by parallel test files), writes a temp home whose config points a `mock` provider
 * at a scripted model server, spawns the built server with the given `--listen` flags, reads the
 * `listening on` banners from stderr, and connects clients over stdio, ws and unix. Every process
 * is killed by PID in `stop()`.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { createStdioTransport, WebSocketTransport } from '@deputy/rpc';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { testConfigToml, type HarnessOptions } from '../../support/config-toml.js';
import { WireClient } from '../../support/wire-client.js';
import type { WireValidator } from '../../support/wire-validator.js';

const APP_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const REPO_DIR = path.resolve(APP_DIR, '../..');
/** The built binary the e2e tests spawn: the bundle the package's `bin` points at. */
export const MAIN_JS = path.join(APP_DIR, 'bundle', 'main.js');

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Written after a build: tsc leaves unchanged outputs (and their mtimes) alone. */
const BUILT_MARKER = path.join(APP_DIR, 'bundle', '.e2e-built');

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function isBuilt(): boolean {
  const built = Math.max(mtimeOf(MAIN_JS), mtimeOf(BUILT_MARKER));
  const sources = [path.join(APP_DIR, 'src'), ...['engine', 'protocol', 'rpc', 'demo-model'].map((pkg) => path.join(REPO_DIR, 'packages', pkg, 'src'))];
  return mtimeOf(MAIN_JS) > 0 && sources.every((dir) => built >= newestSourceMs(dir));
}

/**
 * Builds the app (and what it references) and bundles it unless `bundle/main.js` is newer than
 * every source.
 * One test file builds; the others wait for its lock to go away.
 */
export async function ensureBuilt(): Promise<void> {
  if (isBuilt()) return;
  // The lock lives in dist/ (ignored by git); tsc does not mind the extra directory, and the
  // bundler empties bundle/ before writing it.
  const lock = path.join(APP_DIR, 'dist', '.e2e-build-lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  // A lock left by a killed run (older than any build takes) is stale.
  if (existsSync(lock) && Date.now() - mtimeOf(lock) > 300_000) rmSync(lock, { recursive: true, force: true });
  try {
    mkdirSync(lock);
  } catch {
    const deadline = Date.now() + 240_000;
    while (existsSync(lock)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for another test file to build the app-server (${lock})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return;
  }
  try {
    await promisify(execFile)('npx', ['tsc', '-b', 'apps/app-server'], { cwd: REPO_DIR });
    await promisify(execFile)(process.execPath, ['scripts/bundle.mjs'], { cwd: REPO_DIR });
    writeFileSync(BUILT_MARKER, new Date().toISOString());
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A temp home with a config for the scripted model. */
export async function makeE2eHome(modelUrl: string, options: HarnessOptions = {}): Promise<TempHome> {
  const temp = await makeTempHome('deputy-as-e2e-');
  await writeFile(path.join(temp.home, 'config.toml'), testConfigToml(modelUrl, options));
  return temp;
}

/** A spawned server. */
export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Listen URLs from the banners, in `--listen` order. */
  readonly urls: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills by PID (SIGKILL unless told otherwise) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** How long a `beforeAll(ensureBuilt)` may take: a cold build of four projects on a busy machine. */
export const BUILD_TIMEOUT_MS = 240_000;

/** Spawns the built server (call `ensureBuilt` in `beforeAll` first) and waits for its banners. */
export async function spawnServer(
  temp: TempHome,
  listen: string[],
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  options: { maxOpenFiles?: number } = {},
): Promise<ServerProcess> {
  const args = [MAIN_JS, ...listen.flatMap((l) => ['--listen', l]), ...extraArgs];
  // With `maxOpenFiles`, bash lowers `ulimit -n` and then execs node in its place (same PID).
  const [command, argv] =
    options.maxOpenFiles === undefined ? [process.execPath, args] : ['bash', ['-c', `ulimit -n ${options.maxOpenFiles} && exec "$0" "$@"`, process.execPath, ...args]];
  const child = spawn(command, argv, { cwd: temp.cwd, env: { ...process.env, DEPUTY_HOME: temp.home, DEPUTY_LOG: 'warn', ...env }, stdio: 'pipe' });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the app-server');
  let err = '';
  let out = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
    }
    await exited;
  };
  const expected = listen.filter((l) => l !== 'off').length;
  const deadline = Date.now() + 20_000;
  const urls = (): string[] => [...err.matchAll(/listening on (\S+)/g)].map((m) => m[1] as string);
  while (urls().length < expected) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the app-server did not start (exit ${child.exitCode}); stderr:\n${err}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, pid, urls: urls(), stderr: () => err, stdout: () => out, exited, stop };
}

/** A client over the process's stdin and stdout. */
export function stdioClient(server: ServerProcess, validator?: WireValidator): WireClient {
  const transport = createStdioTransport({ input: server.child.stdout, output: server.child.stdin });
  return new WireClient(transport, { validator, name: 'stdio' });
}

function openWs(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

/** A client over `ws://…` (optionally with headers, e.g. `Authorization`). */
export async function wsClient(url: string, validator?: WireValidator, headers: Record<string, string> = {}): Promise<WireClient> {
  const ws = await openWs(url, { headers });
  return new WireClient(new WebSocketTransport(ws, { description: 'ws client' }), { validator, name: 'ws' });
}

/** A client over the Unix socket `socketPath` (WebSocket over the socket, as the server expects). */
export async function unixClient(socketPath: string, validator?: WireValidator): Promise<WireClient> {
  const ws = await openWs(`ws+unix://${socketPath}:/`);
  return new WireClient(new WebSocketTransport(ws, { description: 'unix client' }), { validator, name: 'unix' });
}
