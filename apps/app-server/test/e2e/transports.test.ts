/**
 * End-to-end over the three transports at once with the built server: one thread watched from
 * stdio, ws and unix sees identical sequences; the ws port answers its probes and refuses
 * browsers; capability-token auth is checked at the upgrade; the Unix socket has the right modes
 * and is removed on exit; a non-loopback bind without auth refuses to start.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { startThread, startTurn, turnCompleted } from '../support/turns.js';
import type { WireClient } from '../support/wire-client.js';
import { WireValidator } from '../support/wire-validator.js';
import { BUILD_TIMEOUT_MS, MAIN_JS, ensureBuilt, makeE2eHome, spawnServer, stdioClient, unixClient, wsClient, type ServerProcess } from './support/server-process.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess | undefined;
const clients: WireClient[] = [];

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url, { approvalPolicy: 'untrusted' });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await server?.stop();
  server = undefined;
  await model.close();
  await temp.cleanup();
});

function probe(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('three transports, one thread', () => {
  it('gives stdio, ws and unix subscribers identical sequences, and removes the socket on exit', async () => {
    const socket = join(temp.home, 'control', 'as.sock');
    server = await spawnServer(temp, ['stdio://', 'ws://127.0.0.1:0', `unix://${socket}`]);
    const [, wsUrl, unixUrl] = server.urls;
    expect(wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(unixUrl).toBe(`unix://${socket}`);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(temp.home, 'control')).mode & 0o777).toBe(0o700);
    const validator = new WireValidator();
    const viaStdio = stdioClient(server, validator);
    const viaWs = await wsClient(wsUrl as string, validator);
    const viaUnix = await unixClient(socket, validator);
    clients.push(viaWs, viaUnix);
    for (const c of [viaStdio, viaWs, viaUnix]) await c.initialize();
    const thread = await startThread(viaStdio);
    await viaWs.call('thread/resume', { threadId: thread.id });
    await viaUnix.call('thread/resume', { threadId: thread.id });
    viaUnix.policy = (r) => (r.method === 'item/commandExecution/requestApproval' ? { decision: 'accept' } : undefined);
    const turnId = await startTurn(viaWs, thread.id, `run: touch ${join(temp.cwd, 'three.txt')} && echo ok`);
    await Promise.all([viaStdio, viaWs, viaUnix].map((c) => turnCompleted(c, turnId)));
    const ofTurn = (c: WireClient) => {
      const all = c.notifications().filter((n) => n.params.threadId === thread.id);
      return all.slice(all.findIndex((n) => n.method === 'turn/started'));
    };
    expect(ofTurn(viaWs)).toEqual(ofTurn(viaStdio));
    expect(ofTurn(viaUnix)).toEqual(ofTurn(viaStdio));
    expect(ofTurn(viaStdio).map((n) => n.method)).toContain('serverRequest/resolved');
    expect(existsSync(join(temp.cwd, 'three.txt'))).toBe(true);
    expect(validator.problems).toEqual([]);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });
});

describe('lifecycle', () => {
  it('serves the default control socket and removes it when SIGTERM stops the server with status 0', async () => {
    server = await spawnServer(temp, ['unix://']);
    const socket = join(temp.home, 'app-server-control', 'app-server-control.sock');
    expect(server.urls).toEqual([`unix://${socket}`]);
    const client = await unixClient(socket);
    clients.push(client);
    await client.initialize();
    await server.stop('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(socket)).toBe(false);
  });
});

describe('the ws listener', () => {
  it('answers readyz and healthz, refuses any Origin and plain requests', async () => {
    server = await spawnServer(temp, ['ws://127.0.0.1:0']);
    const port = Number(new URL((server.urls[0] as string).replace('ws:', 'http:')).port);
    expect(await probe(port, '/readyz')).toBe(200);
    expect(await probe(port, '/healthz')).toBe(200);
    expect(await probe(port, '/healthz', { Origin: 'https://evil.example' })).toBe(403);
    expect(await probe(port, '/')).toBe(400);
    await expect(wsClient(server.urls[0] as string, undefined, { Origin: 'https://evil.example' })).rejects.toMatchObject({ status: 403 });
  });

  it('checks the capability token at the upgrade', async () => {
    const tokenFile = join(temp.home, 'ws-token');
    await writeFile(tokenFile, 'sekret-token\n', { mode: 0o600 });
    server = await spawnServer(temp, ['ws://127.0.0.1:0'], ['--ws-auth', 'capability-token', '--ws-token-file', tokenFile]);
    const url = server.urls[0] as string;
    await expect(wsClient(url)).rejects.toMatchObject({ status: 401 });
    await expect(wsClient(url, undefined, { Authorization: 'Bearer wrong' })).rejects.toMatchObject({ status: 401 });
    const client = await wsClient(url, undefined, { Authorization: 'Bearer sekret-token' });
    clients.push(client);
    expect(await client.initialize()).toMatchObject({ platformFamily: 'unix' });
  });

  it('refuses to start on a non-loopback address without auth', async () => {
    const child = spawn(process.execPath, [MAIN_JS, '--listen', 'ws://0.0.0.0:0'], { env: { ...process.env, DEPUTY_HOME: temp.home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(code).toBe(2);
      expect(err).toContain('without authentication');
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }
  });
});
