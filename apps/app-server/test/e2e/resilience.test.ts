/**
 * End-to-end resilience with the built server: a kill -9 in the middle of a turn, a restart on
 * the same home and `thread/resume` (the turn comes back interrupted, new turns append); and a
 * WebSocket client that stops reading is disconnected while another client keeps being served.
 */
import type { Socket } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startScriptedModelServer, waitFor, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { runTurn, startThread, startTurn, type WireThread } from '../support/turns.js';
import type { WireClient } from '../support/wire-client.js';
import { WireValidator } from '../support/wire-validator.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, wsClient, type ServerProcess } from './support/server-process.js';

let model: ScriptedModelServer;
let temp: TempHome;
const servers: ServerProcess[] = [];
const clients: WireClient[] = [];

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await model.close();
  await temp.cleanup();
});

async function serveWs(): Promise<{ server: ServerProcess; url: string }> {
  const server = await spawnServer(temp, ['ws://127.0.0.1:0']);
  servers.push(server);
  return { server, url: server.urls[0] as string };
}

async function connect(url: string, validator: WireValidator): Promise<WireClient> {
  const client = await wsClient(url, validator);
  clients.push(client);
  await client.initialize();
  return client;
}

describe('crash recovery', () => {
  it('resumes a thread after kill -9 mid-turn, with the cut turn interrupted, and appends new turns', async () => {
    const validator = new WireValidator();
    const first = await serveWs();
    const before = await connect(first.url, validator);
    const thread = await startThread(before);
    await runTurn(before, thread.id, 'a finished turn');
    const cut = await startTurn(before, thread.id, 'slow: 400');
    await before.waitForNotification('item/agentMessage/delta', (p) => p.turnId === cut);
    await first.server.stop('SIGKILL');
    expect((await first.server.exited).signal).toBe('SIGKILL');

    const second = await serveWs();
    const after = await connect(second.url, validator);
    const listed = await after.call<{ data: WireThread[] }>('thread/list', {});
    expect(listed.data.map((t) => [t.id, t.status.type])).toContainEqual([thread.id, 'notLoaded']);
    const resumed = await after.call<{ thread: WireThread }>('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns.map((t) => [t.id === cut, t.status])).toEqual([[false, 'completed'], [true, 'interrupted']]);
    expect(resumed.thread.turns[1]?.items[0]).toMatchObject({ type: 'userMessage' });
    await runTurn(after, thread.id, 'after the restart');
    const read = await after.call<{ thread: WireThread }>('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns.map((t) => t.status)).toEqual(['completed', 'interrupted', 'completed']);
    expect(validator.problems).toEqual([]);
  });
});

describe('slow consumers', () => {
  it('disconnects a client that stops reading and keeps serving the others', async () => {
    const { server, url } = await serveWs();
    const validator = new WireValidator();
    const fast = await connect(url, validator);
    const thread = await startThread(fast);
    await fast.call('thread/name/set', { threadId: thread.id, name: 'x'.repeat(32 * 1024) });
    const slow = new WebSocket(url);
    await new Promise((resolve, reject) => slow.once('open', resolve).once('error', reject));
    const closed = new Promise<void>((resolve) => slow.once('close', () => resolve()));
    slow.send(JSON.stringify({ method: 'initialize', id: 0, params: { clientInfo: { name: 'slow', version: '1' } } }));
    (slow as unknown as { _socket: Socket })._socket.pause();
    const read = JSON.stringify({ method: 'thread/read', id: 1, params: { threadId: thread.id } });
    for (let i = 0; i < 3000; i++) slow.send(read);
    const started = Date.now();
    expect(await fast.call('thread/loaded/list', {})).toEqual({ data: [thread.id], nextCursor: null });
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => server.stderr().includes('disconnecting a slow connection'), 30_000, () => `the slow client to be disconnected; stderr:\n${server.stderr().slice(-2000)}`);
    // Once it reads again, the client sees the connection was closed.
    (slow as unknown as { _socket: Socket })._socket.resume();
    await closed;
    await runTurn(fast, thread.id, 'still served');
    expect(validator.problems).toEqual([]);
  }, 60_000);
});
