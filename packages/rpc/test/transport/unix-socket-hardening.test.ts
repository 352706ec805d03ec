/**
 * The unix:// listener as a trust boundary: the socket is never wider than 0600 (a poller in
 * another process watches it appear), the umask is restored after the bind, the default
 * socket's directory is made private or refused, a shared custom directory gives warnings,
 * another user's socket is never replaced, and `auth` is checked at the upgrade as on TCP.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chown, lchown, lstat, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { createWsAuthenticator } from '../../src/auth.js';
import {
  listenUnixSocket,
  SOCKET_BIND_UMASK,
  SocketDirectoryError,
  type UnixSocketListener,
  type UnixSocketListenerOptions,
} from '../../src/transport/unix-socket.js';
import { closeClient, inbox, openClient, serve, waitFor, within } from '../helpers.js';

const isRoot = process.geteuid?.() === 0;
/** An unprivileged uid for the cases that need a second user (root only). */
const NOBODY = 65534;

let dir: string;
const listeners: UnixSocketListener[] = [];
const clients: WebSocket[] = [];

beforeEach(async () => {
  // Short base path: Unix socket paths are limited to about 100 bytes.
  dir = await mkdtemp(path.join(os.tmpdir(), 'dprpc-'));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map(closeClient));
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  await rm(dir, { recursive: true, force: true });
});

async function listen(options: UnixSocketListenerOptions): Promise<UnixSocketListener> {
  const listener = await listenUnixSocket(options);
  listeners.push(listener);
  serve(listener);
  return listener;
}

/**
 * Starts a process that polls `target` with lstat in a tight loop from before it exists until
 * 300 ms after it appeared, and resolves with every mode it saw. A separate process, so the
 * listener's own event loop cannot hide a window between the bind and the chmod.
 */
async function watchModes(target: string): Promise<() => Promise<number[]>> {
  const script = `
    const fs = require('fs');
    const target = process.argv[1];
    const modes = new Set();
    let seenAt = 0;
    const deadline = Date.now() + 15000;
    process.stdout.write('ready\\n');
    while (Date.now() < deadline) {
      let st;
      try { st = fs.lstatSync(target); } catch { if (seenAt) break; continue; }
      if (!seenAt) seenAt = Date.now();
      modes.add(st.mode & 0o7777);
      if (Date.now() - seenAt > 300) break;
    }
    process.stdout.write(JSON.stringify([...modes]) + '\\n');`;
  const child = spawn(process.execPath, ['-e', script, target], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor(() => out.includes('ready\n'), 5000, 'the poller');
  return async () => {
    await within(new Promise((resolve) => child.once('exit', resolve)), 20_000, 'the poller to finish');
    return JSON.parse(out.split('\n')[1] as string) as number[];
  };
}

/** Runs `fn` with the process umask set to `mask`, then restores it. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

describe('Unix socket modes', () => {
  it('is never seen wider than 0600, even under umask 0, and restores the umask after the bind', async () => {
    const socketPath = path.join(dir, 'app.sock');
    const modes = await watchModes(socketPath);
    const umaskAfter = await withUmask(0, async () => {
      await listen({ path: socketPath });
      return process.umask(0);
    });
    expect(umaskAfter).toBe(0);
    const seen = await modes();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((m) => (m & ~0o600) !== 0).map((m) => m.toString(8))).toEqual([]);
    expect(SOCKET_BIND_UMASK).toBe(0o177);
  });

  it('creates every missing directory level 0700 whatever the umask', async () => {
    // umask 0477 would leave mkdir's 0700 at 0300; each created level is chmod-ed back.
    await withUmask(0o477, () => listen({ path: path.join(dir, 'x', 'y', 'app.sock') }));
    expect((await stat(path.join(dir, 'x'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'x', 'y'))).mode & 0o777).toBe(0o700);
  });
});

describe('the default socket directory (isDedicatedDir)', () => {
  it('tightens an existing directory of ours to 0700', async () => {
    const control = path.join(dir, 'control');
    await mkdir(control, { mode: 0o755 });
    const listener = await listen({ path: path.join(control, 'app.sock'), isDedicatedDir: true });
    expect((await stat(control)).mode & 0o777).toBe(0o700);
    expect(listener.warnings).toEqual([]);
  });

  it('refuses a directory that is a symlink', async () => {
    const real = path.join(dir, 'real');
    await mkdir(real, { mode: 0o700 });
    await symlink(real, path.join(dir, 'control'));
    await expect(listenUnixSocket({ path: path.join(dir, 'control', 'app.sock'), isDedicatedDir: true })).rejects.toThrow(SocketDirectoryError);
  });

  it.skipIf(!isRoot)('refuses a directory owned by another user', async () => {
    const control = path.join(dir, 'control');
    await mkdir(control, { mode: 0o700 });
    await chown(control, NOBODY, NOBODY);
    await expect(listenUnixSocket({ path: path.join(control, 'app.sock'), isDedicatedDir: true })).rejects.toThrow(/owned by uid 65534/);
  });
});

describe('a custom socket directory', () => {
  it('warns when other users can write the existing directory, and leaves its mode alone', async () => {
    const shared = path.join(dir, 'shared');
    await mkdir(shared);
    await withUmask(0, () => mkdir(path.join(shared, 'inner'), { mode: 0o1777 }));
    const inner = path.join(shared, 'inner');
    const listener = await listen({ path: path.join(inner, 'app.sock') });
    expect(listener.warnings).toHaveLength(1);
    expect(listener.warnings[0]).toMatch(/writable by other users \(mode 1777 \(sticky\)\)/);
    expect((await stat(inner)).mode & 0o7777).toBe(0o1777);
    expect((await stat(listener.path)).mode & 0o777).toBe(0o600);
  });

  it('has no warnings for a private existing directory or a created one', async () => {
    expect((await listen({ path: path.join(dir, 'a.sock') })).warnings).toEqual([]);
    expect((await listen({ path: path.join(dir, 'new', 'b.sock') })).warnings).toEqual([]);
  });

  it.skipIf(!isRoot)('warns when another non-root user owns the directory', async () => {
    const theirs = path.join(dir, 'theirs');
    await mkdir(theirs, { mode: 0o755 });
    await chown(theirs, NOBODY, NOBODY);
    const listener = await listen({ path: path.join(theirs, 'app.sock') });
    expect(listener.warnings.join('\n')).toMatch(/owned by uid 65534/);
  });
});

describe('an existing socket file', () => {
  it.skipIf(!isRoot)("refuses to replace another user's stale socket", async () => {
    const socketPath = path.join(dir, 'app.sock');
    // A server killed without cleaning up leaves its socket file behind.
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await within(once(child.stdout, 'data'), 5000, 'child listening');
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await within(exited, 5000, 'child exit');
    await lchown(socketPath, NOBODY, NOBODY);
    await expect(listenUnixSocket({ path: socketPath })).rejects.toThrow(/refusing to replace another user's socket/);
    expect((await lstat(socketPath)).isSocket()).toBe(true);
  });
});

describe('auth on the Unix socket', () => {
  it('checks the capability token at the upgrade: 401 without it or with a wrong one, served with it', async () => {
    const tokenSha256 = createHash('sha256').update('sekret').digest('hex');
    const auth = await createWsAuthenticator({ mode: 'capability-token', tokenSha256 });
    const socketPath = path.join(dir, 'app.sock');
    await listen({ path: socketPath, auth });
    const url = `ws+unix://${socketPath}`;
    await expect(openClient(url)).rejects.toMatchObject({ status: 401, body: 'missing websocket bearer token' });
    await expect(openClient(url, { headers: { Authorization: 'Bearer nope' } })).rejects.toMatchObject({ status: 401 });
    const ws = await openClient(url, { headers: { Authorization: 'Bearer sekret' } });
    clients.push(ws);
    const messages = inbox(ws);
    ws.send('{"method":"ping","id":1}');
    await waitFor(() => messages.length === 1);
    expect(messages[0]).toEqual({ id: 1, result: { method: 'ping', params: null } });
  });
});
