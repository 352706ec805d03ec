/** The unix:// listener: WebSocket over a real Unix socket, file modes, stale and live sockets, cleanup. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { listenUnixSocket, SocketInUseError, type UnixSocketListener } from '../../src/transport/unix-socket.js';
import { closeClient, httpRequest, inbox, openClient, serve, waitFor, within } from '../helpers.js';

let dir: string;
const listeners: UnixSocketListener[] = [];
const clients: WebSocket[] = [];
const servers: net.Server[] = [];

beforeEach(async () => {
  // Short base path: Unix socket paths are limited to about 100 bytes.
  dir = await mkdtemp(path.join(os.tmpdir(), 'dprpc-'));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map(closeClient));
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function listen(socketPath: string): Promise<UnixSocketListener> {
  const listener = await listenUnixSocket({ path: socketPath });
  listeners.push(listener);
  serve(listener);
  return listener;
}

async function connect(socketPath: string, options?: WebSocket.ClientOptions): Promise<WebSocket> {
  const ws = await openClient(`ws+unix://${socketPath}`, options);
  clients.push(ws);
  return ws;
}

describe('Unix socket listener', () => {
  it('round-trips messages with a real ws client over the socket', async () => {
    const socketPath = path.join(dir, 'control', 'app.sock');
    await listen(socketPath);
    const ws = await connect(socketPath);
    const messages = inbox(ws);
    ws.send('{"method":"initialize","id":0,"params":{"clientInfo":{"name":"t","version":"1"}}}');
    await waitFor(() => messages.length === 1);
    expect(messages[0]).toEqual({ id: 0, result: { method: 'initialize', params: { clientInfo: { name: 't', version: '1' } } } });
  });

  it('accepts a permessage-deflate offer without negotiating it', async () => {
    const socketPath = path.join(dir, 'app.sock');
    await listen(socketPath);
    const ws = await connect(socketPath, { perMessageDeflate: true });
    expect(ws.extensions).toBe('');
  });

  it('creates the parent directory 0700 and the socket 0600', async () => {
    const socketPath = path.join(dir, 'a', 'b', 'app.sock');
    await listen(socketPath);
    expect((await stat(path.join(dir, 'a', 'b'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'a'))).mode & 0o777).toBe(0o700);
    const socket = await stat(socketPath);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
  });

  it('leaves the mode of an existing parent directory alone', async () => {
    const before = (await stat(dir)).mode & 0o777;
    await listen(path.join(dir, 'app.sock'));
    expect((await stat(dir)).mode & 0o777).toBe(before);
  });

  it('has no health endpoints: a plain request gets 400', async () => {
    const socketPath = path.join(dir, 'app.sock');
    await listen(socketPath);
    expect((await httpRequest({ socketPath, path: '/readyz' })).status).toBe(400);
  });

  it('replaces a stale socket file that nothing listens on', async () => {
    const socketPath = path.join(dir, 'app.sock');
    // A server that dies without cleaning up leaves its socket file behind: SIGKILL a child that listens.
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await within(once(child.stdout, 'data'), 5000, 'child listening');
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await within(exited, 5000, 'child exit');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect((await stat(socketPath)).isSocket()).toBe(true);
    await listen(socketPath);
    const ws = await connect(socketPath);
    expect(ws.readyState).toBe(1);
  });

  it('refuses a socket another server is listening on, and a path that is not a socket', async () => {
    const socketPath = path.join(dir, 'live.sock');
    const live = net.createServer((s) => s.destroy());
    servers.push(live);
    await new Promise<void>((r) => live.listen(socketPath, r));
    await expect(listenUnixSocket({ path: socketPath })).rejects.toThrow(SocketInUseError);
    await expect(listenUnixSocket({ path: socketPath })).rejects.toThrow(/already in use/);
    const file = path.join(dir, 'plain-file');
    await writeFile(file, 'x');
    await expect(listenUnixSocket({ path: file })).rejects.toThrow(/not a socket/);
  });

  it('removes the socket file on close', async () => {
    const socketPath = path.join(dir, 'app.sock');
    const listener = await listen(socketPath);
    await connect(socketPath);
    await listener.close();
    expect(existsSync(socketPath)).toBe(false);
  });
});
