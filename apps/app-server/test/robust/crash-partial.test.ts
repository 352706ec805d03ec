/**
 * kill -9 mid-answer (docs/app-server.md "Limits"): agent text is written to the rollout while it
 * streams (at most every 250 ms per message), so after a SIGKILL and a restart on the same home
 * the cut turn shows what was said before the crash, its status is `interrupted`, and its
 * `completedAt` stays null (it never completed). And two SIGTERMs a few ms apart mid-turn end the
 * server cleanly (exit 0, not killed by the second), with the turn's end written.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from '../e2e/support/server-process.js';
import { initialize, stdioPeer } from './support/raw-peer.js';

let model: ScriptedModelServer;
let temp: TempHome;
const servers: ServerProcess[] = [];

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await model.close();
  await temp.cleanup();
});

interface WireTurn {
  status: string;
  completedAt: number | null;
  items: Array<{ type: string; text?: string }>;
}

it('keeps the text streamed before a SIGKILL, marked interrupted, with completedAt null', async () => {
  const first = await spawnServer(temp, ['stdio://']);
  servers.push(first);
  const peer = stdioPeer(first);
  await initialize(peer);
  peer.send('{"method":"thread/start","id":"start","params":{}}');
  const threadId = ((await peer.waitText((t) => t.includes('"id":"start"'))).value.result as { thread: { id: string } }).thread.id;
  peer.send(JSON.stringify({ method: 'turn/start', id: 'turn', params: { threadId, input: [{ type: 'text', text: 'slow: 150' }] } }));
  const deltas = () => peer.frames.filter((f) => f.value.method === 'item/agentMessage/delta').map((f) => (f.value.params as { delta: string }).delta);
  await peer.waitText(() => deltas().length >= 4, 20_000, 'a few deltas');
  // Past the 250 ms write interval, so the text so far is on disk.
  await new Promise((resolve) => setTimeout(resolve, 400));
  const seen = deltas().join('');
  await first.stop('SIGKILL');
  expect(peer.frames.some((f) => f.value.method === 'turn/completed')).toBe(false);

  const second = await spawnServer(temp, ['stdio://']);
  servers.push(second);
  const again = stdioPeer(second);
  await initialize(again);
  again.send(JSON.stringify({ method: 'thread/read', id: 'read', params: { threadId, includeTurns: true } }));
  const read = (await again.waitText((t) => t.includes('"id":"read"'))).value;
  expect(read.error).toBeUndefined();
  const turns = (read.result as { thread: { turns: WireTurn[] } }).thread.turns;
  const cut = turns[turns.length - 1] as WireTurn;
  expect(cut.status).toBe('interrupted');
  expect(cut.completedAt).toBeNull();
  const said = cut.items.filter((i) => i.type === 'agentMessage').map((i) => i.text ?? '');
  expect(said).toHaveLength(1);
  expect((said[0] as string).length).toBeGreaterThan(0);
  // What was kept is what the client saw streaming, up to the last write before the kill.
  expect(seen.startsWith(said[0] as string)).toBe(true);
}, 90_000);

function rolloutsUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? rolloutsUnder(full) : name.endsWith('.jsonl') ? [full] : [];
  });
}

it('absorbs a second SIGTERM during shutdown: exits 0 and writes the interrupted turn with its text', async () => {
  const server = await spawnServer(temp, ['stdio://']);
  servers.push(server);
  const peer = stdioPeer(server);
  await initialize(peer);
  peer.send('{"method":"thread/start","id":"start","params":{}}');
  const threadId = ((await peer.waitText((t) => t.includes('"id":"start"'))).value.result as { thread: { id: string } }).thread.id;
  peer.send(JSON.stringify({ method: 'turn/start', id: 'turn', params: { threadId, input: [{ type: 'text', text: 'slow: 300' }] } }));
  await peer.waitText((t) => t.includes('"method":"item/agentMessage/delta"'), 20_000, 'the first delta');
  process.kill(server.pid, 'SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 5));
  process.kill(server.pid, 'SIGTERM');
  const exit = await server.exited;
  expect(exit).toEqual({ code: 0, signal: null });
  const rollout = rolloutsUnder(join(temp.home, 'sessions')).find((f) => readFileSync(f, 'utf8').includes(threadId));
  const lines = readFileSync(rollout as string, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
  const ended = lines.filter((l) => l.type === 'turn_ended').map((l) => (l.payload.turn as { status: string }).status);
  expect(ended).toEqual(['interrupted']);
  // The text streamed before the signal is in the rollout, before the turn's end.
  const partial = lines.findIndex((l) => l.type === 'item' && (l.payload.item as { type: string }).type === 'agentMessage');
  expect(partial).toBeGreaterThan(-1);
  expect(partial).toBeLessThan(lines.findIndex((l) => l.type === 'turn_ended'));
}, 60_000);
