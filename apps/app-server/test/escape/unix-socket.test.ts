/**
 * The Unix control socket as a trust boundary, on the built server: the default socket is 0600
 * in a 0700 directory from the instant it exists (a poller in another process, started before
 * the server, never sees a wider mode, even with the server started under umask 0); a default
 * directory that is a symlink is refused; a custom socket in a directory other users can write
 * gives a warning on stderr; `--ws-auth` (capability token and signed JWT) is checked at the
 * upgrade on a unix-only server; and, when the tests run as root, another uid is refused by
 * the file modes (and let in once the modes allow it, so the refusal is the modes' doing).
 * Without root, the cross-uid case is skipped: an unprivileged test cannot become another user.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WebSocketTransport } from '@deputy/rpc';
import { makeTempHome, waitFor, type TempHome } from '@deputy/test-support';
import { WireClient } from '../support/wire-client.js';
import { BUILD_TIMEOUT_MS, MAIN_JS, ensureBuilt, spawnServer, type ServerProcess } from '../e2e/support/server-process.js';

const isRoot = process.geteuid?.() === 0;
/** The other user of the cross-uid case. */
const NOBODY = 65534;

let temp: TempHome;
let server: ServerProcess | undefined;
const clients: WireClient[] = [];

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  // A short prefix: Unix socket paths are limited to about 100 bytes.
  temp = await makeTempHome('dpesc-');
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await server?.stop();
  server = undefined;
  await temp.cleanup();
});

const defaultDir = (): string => join(temp.home, 'app-server-control');
const defaultSocket = (): string => join(defaultDir(), 'app-server-control.sock');
const modeOf = (file: string): number => statSync(file).mode & 0o7777;

/** A WebSocket client over the Unix socket, with optional headers; rejects with the HTTP status of a refused upgrade. */
function unixClient(socketPath: string, headers: Record<string, string> = {}): Promise<WireClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws+unix://${socketPath}:/`, { headers });
    ws.once('open', () => {
      const client = new WireClient(new WebSocketTransport(ws, { description: 'unix client' }), { name: 'unix' });
      clients.push(client);
      resolve(client);
    });
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

/**
 * Starts a process that polls `paths` with lstat in a tight loop, from before they exist until
 * 300 ms after the last one appeared; resolves with every mode seen per path.
 */
async function watchModes(paths: string[]): Promise<() => Promise<number[][]>> {
  const script = `
    const fs = require('fs');
    const paths = process.argv.slice(1);
    const modes = paths.map(() => new Set());
    let doneAt = 0;
    const deadline = Date.now() + 30000;
    process.stdout.write('ready\\n');
    while (Date.now() < deadline && (!doneAt || Date.now() - doneAt < 300)) {
      paths.forEach((p, i) => { try { modes[i].add(fs.lstatSync(p).mode & 0o7777); } catch {} });
      if (!doneAt && modes.every((m) => m.size > 0)) doneAt = Date.now();
    }
    process.stdout.write(JSON.stringify(modes.map((m) => [...m])) + '\\n');`;
  const child = spawn(process.execPath, ['-e', script, ...paths], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitFor(() => out.includes('ready\n'), 5000, 'the poller');
  return async () => {
    await exited;
    return JSON.parse(out.split('\n')[1] as string) as number[][];
  };
}

/** Tries a plain connect to the socket as `uid` (root only); resolves `connected` or the error code. */
function connectAs(uid: number, socketPath: string): Promise<string> {
  const script = `const s = require('net').connect(process.argv[1]);
    s.on('connect', () => { console.log('connected'); s.destroy(); });
    s.on('error', (e) => console.log(e.code));`;
  const child = spawn(process.execPath, ['-e', script, socketPath], { uid, gid: uid, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.once('exit', () => resolve(out.trim())));
}

/** An HS256 JWT over `claims`. */
function signJwt(claims: Record<string, unknown>, secret: string): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

describe('socket and directory modes', () => {
  it('binds the default socket 0600 in a 0700 directory and never shows a wider mode, even under umask 0', async () => {
    const modes = await watchModes([defaultDir(), defaultSocket()]);
    const previous = process.umask(0);
    try {
      server = await spawnServer(temp, ['unix://']);
    } finally {
      process.umask(previous);
    }
    const [dirModes, socketModes] = await modes();
    expect(dirModes?.map((m) => m.toString(8))).toEqual(['700']);
    expect(socketModes?.length).toBeGreaterThan(0);
    expect(socketModes?.filter((m) => (m & ~0o600) !== 0).map((m) => m.toString(8))).toEqual([]);
    expect(modeOf(defaultSocket())).toBe(0o600);
    expect(modeOf(defaultDir())).toBe(0o700);
    expect(server.stderr()).not.toContain('warning');
    // Without --ws-auth the socket's modes are its only check, as in the reference.
    const client = await unixClient(defaultSocket());
    expect(await client.initialize()).toMatchObject({ platformFamily: 'unix' });
  });

  it('makes an existing default directory of ours 0700 again', async () => {
    mkdirSync(defaultDir(), { mode: 0o755 });
    chmodSync(defaultDir(), 0o755);
    server = await spawnServer(temp, ['unix://']);
    expect(modeOf(defaultDir())).toBe(0o700);
    expect(modeOf(defaultSocket())).toBe(0o600);
  });

  it('refuses to start when the default directory is a symlink', async () => {
    const elsewhere = join(temp.cwd, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, defaultDir());
    const child = spawn(process.execPath, [MAIN_JS, '--listen', 'unix://'], { env: { ...process.env, DEPUTY_HOME: temp.home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
      expect(code).toBe(1);
      expect(err).toContain('control socket directory is not a directory');
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }
  });

  it('warns on stderr about a custom socket in a directory other users can write, and still makes the socket 0600', async () => {
    const shared = join(temp.home, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const socket = join(shared, 'as.sock');
    server = await spawnServer(temp, [`unix://${socket}`]);
    expect(server.stderr()).toMatch(/deputy app-server: warning: the socket's directory .*shared is writable by other users \(mode 1777 \(sticky\)\)/);
    expect(modeOf(socket)).toBe(0o600);
    expect(modeOf(shared)).toBe(0o1777);
  });
});

describe('--ws-auth on a unix-only server', () => {
  it('refuses an upgrade without the capability token or with a wrong one (401), and serves the right one', async () => {
    const tokenFile = join(temp.home, 'ws-token');
    await writeFile(tokenFile, 'unix-sekret\n', { mode: 0o600 });
    const socket = join(temp.home, 'control', 'as.sock');
    server = await spawnServer(temp, [`unix://${socket}`], ['--ws-auth', 'capability-token', '--ws-token-file', tokenFile]);
    await expect(unixClient(socket)).rejects.toMatchObject({ status: 401 });
    await expect(unixClient(socket, { Authorization: 'Bearer wrong' })).rejects.toMatchObject({ status: 401 });
    const client = await unixClient(socket, { Authorization: 'Bearer unix-sekret' });
    expect(await client.initialize()).toMatchObject({ platformFamily: 'unix' });
  });

  it('checks a signed bearer token on the default socket', async () => {
    const secret = 'a-shared-secret-of-at-least-32-bytes!';
    const secretFile = join(temp.home, 'ws-secret');
    await writeFile(secretFile, secret, { mode: 0o600 });
    server = await spawnServer(temp, ['unix://'], ['--ws-auth', 'signed-bearer-token', '--ws-shared-secret-file', secretFile]);
    const exp = Math.floor(Date.now() / 1000) + 300;
    await expect(unixClient(defaultSocket())).rejects.toMatchObject({ status: 401 });
    const forged = signJwt({ exp }, 'another-secret-of-at-least-32-bytes!!');
    await expect(unixClient(defaultSocket(), { Authorization: `Bearer ${forged}` })).rejects.toMatchObject({ status: 401 });
    const client = await unixClient(defaultSocket(), { Authorization: `Bearer ${signJwt({ exp }, secret)}` });
    expect(await client.initialize()).toMatchObject({ platformFamily: 'unix' });
  });
});

describe('another user', () => {
  it.skipIf(!isRoot)('cannot connect to the default socket, nor to a custom one in a directory it can traverse', async () => {
    // A directory others can traverse, so that only the socket's own mode stands in the way.
    chmodSync(temp.home, 0o755);
    const open = join(temp.home, 'open');
    mkdirSync(open, { mode: 0o755 });
    const custom = join(open, 'as.sock');
    server = await spawnServer(temp, ['unix://', `unix://${custom}`]);
    expect(await connectAs(NOBODY, defaultSocket())).toBe('EACCES');
    expect(await connectAs(NOBODY, custom)).toBe('EACCES');
    // The same child gets in once the mode allows it: the refusal above is the mode's doing.
    chmodSync(custom, 0o666);
    expect(await connectAs(NOBODY, custom)).toBe('connected');
  });
});
