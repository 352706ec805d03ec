/**
 * The close path of the outbound byte budget, in-process over a real WebSocket listener with a
 * 2 MiB budget and no soft byte limit: a client that stops reading while 40 replies of ~256 KiB
 * are admitted (the server reads them one per turn of its event loop) gets its queue replaced by -32001 answers, which arrive before the close frame
 * with code 1013 (not 1000), and the server serves another client all along.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { listenWebSocket, type WebSocketListener } from '@deputy/rpc';
import { waitFor } from '@deputy/test-support';
import { startHarness, type Harness } from '../support/harness.js';
import { startThread } from '../support/turns.js';
import { initialize, wsPeer } from './support/raw-peer.js';

let h: Harness;
let listener: WebSocketListener;
beforeEach(async () => {
  h = await startHarness({ outboundSoftBytes: Number.MAX_SAFE_INTEGER, outboundBudgetBytes: 2 * 1024 * 1024 });
  listener = await listenWebSocket({ host: '127.0.0.1', port: 0 });
  void h.server.serve(listener, 'ws');
});
afterEach(async () => {
  await listener.close();
  await h.close();
});

it('replaces the queue of a reader owed more than the budget by -32001 answers, then closes with 1013', async () => {
  const owner = await h.connect({ capabilities: { experimentalApi: true } });
  const thread = await startThread(owner);
  await owner.call('thread/name/set', { threadId: thread.id, name: 'n'.repeat(256 * 1024) });
  const slow = await wsPeer(listener.url);
  await initialize(slow);
  slow.pause();
  const total = 40;
  for (let id = 1; id <= total; id++) slow.send(JSON.stringify({ method: 'thread/read', id, params: { threadId: thread.id } }));
  // The server takes a burst one frame per turn of its event loop. The reader stays paused until
  // the server went over the budget and has answered most requests (its queue then holds more
  // messages than the ~8 replies the budget admits: the -32001 answers), within the grace the
  // server gives those answers before it closes.
  await waitFor(async () => {
    const { gauges } = (await owner.call('server/diagnostics', {})) as { gauges: Array<{ name: string; value: number }> };
    return (gauges.find((g) => g.name === 'app.outbound.queued')?.value ?? 0) >= 20;
  }, 20_000, 'the slow connection to go over its budget');
  slow.resume();
  const code = await Promise.race([slow.closeCode, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no close within 20 s')), 20_000))]);
  expect(code).toBe(1013);
  const answered = slow.frames.filter((f) => typeof f.value.id === 'number');
  const overloaded = answered.filter((f) => f.value.error?.code === -32001);
  expect(overloaded.length).toBeGreaterThan(0);
  // Full replies first (as far as the budget allowed), then only -32001s: nothing after an error.
  const firstError = answered.findIndex((f) => f.value.error !== undefined);
  expect(answered.slice(firstError).every((f) => f.value.error?.code === -32001)).toBe(true);
  expect(await owner.call('thread/loaded/list', {})).toBeDefined();
}, 40_000);
