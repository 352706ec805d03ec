/**
 * File descriptors (docs/app-server.md "Limits"): an idle loaded thread holds no descriptor, and
 * busy ones keep at most a sixteenth of the limit open, so 300 `thread/start` on a server started
 * under `ulimit -n 256` all succeed, the process's open descriptors stay far below the limit, and
 * a turn on the last thread still reaches the model.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from '../e2e/support/server-process.js';
import { initialize, stdioPeer, type RawPeer } from './support/raw-peer.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess;

beforeAll(async () => {
  await ensureBuilt();
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
  server = await spawnServer(temp, ['stdio://'], [], {}, { maxOpenFiles: 256 });
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  await model?.close();
  await temp?.cleanup();
});

const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

it('starts 300 threads under ulimit -n 256, holds no descriptor per thread, and still runs a turn', async () => {
  expect(readFileSync(`/proc/${server.pid}/limits`, 'utf8')).toMatch(/Max open files\s+256\s/);
  const peer: RawPeer = stdioPeer(server);
  await initialize(peer);
  const before = openFds(server.pid);
  let lastThread = '';
  for (let i = 0; i < 300; i++) {
    peer.send(`{"method":"thread/start","id":"s${i}","params":{}}`);
    const answer = await peer.waitText((t) => t.includes(`"id":"s${i}"`), 20_000, `thread/start ${i}`);
    expect(answer.value.error, `thread/start ${i}`).toBeUndefined();
    lastThread = (answer.value.result as { thread: { id: string } }).thread.id;
  }
  const after = openFds(server.pid);
  expect(after - before).toBeLessThan(30);
  peer.send(JSON.stringify({ method: 'turn/start', id: 'turn', params: { threadId: lastThread, input: [{ type: 'text', text: 'hello after 300 threads' }] } }));
  expect((await peer.waitText((t) => t.includes('"id":"turn"'))).value.error).toBeUndefined();
  await peer.waitText((t) => t.includes('"method":"turn/completed"') && t.includes(lastThread), 30_000, 'the turn to complete');
  expect(server.stderr()).not.toContain('EMFILE');
  console.log(`fd budget: ${before} fds open before 300 thread/start, ${after} after (ulimit -n 256)`);
}, 120_000);
