/**
 * The outbound byte budget on the built server (docs/app-server.md "Limits"): a ws client that
 * stops reading while it asks for many ~1 MiB replies is not allowed to pile them up in the
 * server: past 8 MiB owed its new requests are answered -32001, and past the 32 MiB budget the
 * queued replies are replaced by -32001 answers and the connection is closed with code 1013.
 * Another client is served all along, and the server's memory stays bounded. The close path
 * itself, made certain with small limits, is in budget-close.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startScriptedModelServer, waitFor, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from '../e2e/support/server-process.js';
import { initialize, wsPeer, type RawPeer } from './support/raw-peer.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess;
const peers: RawPeer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
  server = await spawnServer(temp, ['ws://127.0.0.1:0']);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  for (const p of peers) p.close();
  await server?.stop();
  await model?.close();
  await temp?.cleanup();
});

/** Resident memory of the server process, in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

it('answers a paused reader owed many large replies -32001 (closing with 1013 if over budget), serves others, and bounds memory', async () => {
  const url = server.urls[0] as string;
  const owner = await wsPeer(url);
  const slow = await wsPeer(url);
  peers.push(owner, slow);
  await initialize(owner);
  await initialize(slow);
  owner.send('{"method":"thread/start","id":"start","params":{}}');
  const threadId = ((await owner.waitText((t) => t.includes('"id":"start"'))).value.result as { thread: { id: string } }).thread.id;
  owner.send(JSON.stringify({ method: 'thread/name/set', id: 'name', params: { threadId, name: 'n'.repeat(1024 * 1024) } }));
  await owner.waitText((t) => t.includes('"id":"name"'));
  const before = rssMiB(server.pid);

  slow.pause();
  const total = 120;
  for (let id = 1; id <= total; id++) slow.send(JSON.stringify({ method: 'thread/read', id, params: { threadId } }));
  // The other client is served while the slow one is owed its replies.
  for (let i = 0; i < 5; i++) {
    owner.send(`{"method":"thread/list","id":"live${i}","params":{}}`);
    expect((await owner.waitText((t) => t.includes(`"id":"live${i}"`))).value.result).toBeDefined();
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const during = rssMiB(server.pid);
  slow.resume();
  // Either every request is answered (the soft byte limit turned the late ones into -32001) or,
  // when more than the budget was admitted at once, the connection closes with 1013 after them.
  const answered = () => slow.frames.filter((f) => typeof f.value.id === 'number');
  const closed = await Promise.race([slow.closeCode, waitFor(() => answered().length >= total, 30_000, 'every answer').then(() => 0)]);
  if (closed !== 0) {
    expect(closed).toBe(1013);
    expect(server.stderr()).toContain('outbound byte budget exceeded');
  }
  const overloaded = answered().filter((f) => f.value.error?.code === -32001);
  expect(overloaded.length).toBeGreaterThan(0);
  expect(overloaded[0]?.value.error?.message).toBe('Server overloaded; retry later.');
  expect(answered().filter((f) => f.value.result !== undefined).length).toBeLessThan(total);
  // 120 replies of 1 MiB would be 120 MiB queued (x2 as UTF-16 strings); the budget keeps far less.
  expect(during - before).toBeLessThan(100);
  owner.send('{"method":"thread/list","id":"after","params":{}}');
  expect((await owner.waitText((t) => t.includes('"id":"after"'))).value.result).toBeDefined();
}, 60_000);
