/**
 * Starts the app-server the TUI talks to, on `ws://127.0.0.1:PORT`: ours (the built
 * `apps/app-server/bundle/main.js`, home in DEPUTY_HOME) or the reference (`codex app-server`, home
 * in CODEX_HOME), with the same flags, optionally behind capability-token auth. It writes the
 * server's config.toml (the `mock` provider pointing at the scripted model), waits for
 * `GET /readyz`, and stops the process by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mockProviderConfigToml } from '@deputy/test-support';

/** Which server the TUI is pointed at. */
export type ServerKind = 'deputy' | 'reference';

/** The built entry point of our server. */
export const DEPUTY_APP_SERVER_MAIN = fileURLToPath(new URL('../../bundle/main.js', import.meta.url));

/** Options of `startAppServer`. */
export interface AppServerOptions {
  kind: ServerKind;
  /** The reference binary (needed for `reference`). */
  codexBin: string;
  /** The server's home directory (created by the caller, config written here). */
  home: string;
  /** The scripted model's base URL (`…/v1`). */
  modelUrl: string;
  /** When set, the server requires this capability token (written to `tokenFile`). */
  capabilityToken?: { token: string; tokenFile: string };
  /** The server's `approval_policy` (default `on-request`). */
  approvalPolicy?: 'on-request' | 'on-failure';
  /** Folders the server's config trusts (current TUIs ask the server whether a folder is trusted). */
  trustedProjects?: readonly string[];
}

/** A running server. */
export interface AppServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Kills the server by PID and waits for it to exit. */
  stop(): Promise<void>;
}

/** A port that was free a moment ago (the server binds it right after). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** The server config: the client's policies are sent on every turn, these are the defaults. */
function serverConfigToml(modelUrl: string, options: Pick<AppServerOptions, 'approvalPolicy' | 'trustedProjects'>): string {
  return [
    mockProviderConfigToml(modelUrl, { approvalPolicy: options.approvalPolicy ?? 'on-request', sandboxMode: 'read-only' }),
    ...(options.trustedProjects ?? []).flatMap((dir) => [`[projects.${JSON.stringify(dir)}]`, 'trust_level = "trusted"', '']),
  ].join('\n');
}

/** Resolves when `GET /readyz` answers 200; rejects when the process exits or time runs out. */
async function waitReady(port: number, child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`app-server exited (${child.signalCode ?? child.exitCode}) before it was ready; stderr:\n${stderr()}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`app-server not ready on port ${port} within ${timeoutMs} ms; stderr:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Writes the config, starts the server and waits until it is ready. */
export async function startAppServer(options: AppServerOptions): Promise<AppServerProcess> {
  if (options.kind === 'deputy' && !existsSync(DEPUTY_APP_SERVER_MAIN)) {
    throw new Error(`${DEPUTY_APP_SERVER_MAIN} is missing; build it first (pnpm build)`);
  }
  await writeFile(path.join(options.home, 'config.toml'), serverConfigToml(options.modelUrl, options));
  const port = await freePort();
  const listen = ['--listen', `ws://127.0.0.1:${port}`];
  if (options.capabilityToken) {
    await writeFile(options.capabilityToken.tokenFile, options.capabilityToken.token, { mode: 0o600 });
    listen.push('--ws-auth', 'capability-token', '--ws-token-file', options.capabilityToken.tokenFile);
  }
  const env = { ...process.env, RUST_LOG: 'warn' };
  const child =
    options.kind === 'deputy'
      ? spawn(process.execPath, [DEPUTY_APP_SERVER_MAIN, ...listen], { env: { ...env, DEPUTY_HOME: options.home }, stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(options.codexBin, ['app-server', ...listen], { env: { ...env, CODEX_HOME: options.home }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderrText = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrText = (stderrText + chunk.toString('utf8')).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start the ${options.kind} app-server`);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await exited;
  };
  try {
    await waitReady(port, child, () => stderrText, 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `ws://127.0.0.1:${port}`, pid, stderr: () => stderrText, stop };
}

/**
 * The HTTP status a WebSocket upgrade on `url` gets (101 when accepted), optionally sending
 * `Authorization: Bearer <token>`. The upgraded socket is closed at once.
 */
export function upgradeStatus(url: string, token?: string): Promise<number> {
  const { hostname, port } = new URL(url);
  const headers: Record<string, string> = {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': Buffer.from('deputy-tui-probe!').toString('base64'),
  };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port: Number(port), path: '/', headers, timeout: 5_000 });
    req.once('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    req.once('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer to the upgrade on ${url}`)));
    req.once('error', reject);
    req.end();
  });
}
