/**
 * Backpressure on a real WebSocket listener in-process: a client that stops reading while it
 * keeps sending requests gets `-32001 Server overloaded; retry later.` for the requests that
 * arrive once its outbound queue is past the soft limit, every request is still answered once it
 * reads again, and the connection stays usable.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { listenWebSocket, type WebSocketListener } from '@deputy/rpc';
import { waitFor } from '@deputy/test-support';
import { startHarness, type Harness } from './support/harness.js';
import { startThread } from './support/turns.js';

let h: Harness;
let listener: WebSocketListener;
beforeEach(async () => {
  h = await startHarness({ outboundSoftLimit: 4, outboundHardLimit: 100_000 });
  listener = await listenWebSocket({ host: '127.0.0.1', port: 0 });
  void h.server.serve(listener, 'ws');
});
afterEach(async () => {
  await listener.close();
  await h.close();
});

it('answers requests past the soft limit with -32001 and serves the client again once it reads', async () => {
  const owner = await h.connect({ capabilities: { experimentalApi: true } });
  const thread = await startThread(owner);
  await owner.call('thread/name/set', { threadId: thread.id, name: 'n'.repeat(64 * 1024) });
  const ws = new WebSocket(listener.url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const responses: Array<{ id: number; error?: { code: number; message: string } }> = [];
  ws.on('message', (data) => responses.push(JSON.parse(data.toString()) as (typeof responses)[number]));
  ws.send(JSON.stringify({ method: 'initialize', id: 0, params: { clientInfo: { name: 'slow', version: '1' } } }));
  ws.pause();
  const total = 400;
  for (let id = 1; id <= total; id++) ws.send(JSON.stringify({ method: 'thread/read', id, params: { threadId: thread.id } }));
  // The server takes a burst one frame per turn of its event loop: the client reads again once
  // the server's queue for it holds well past the soft limit (the replies the kernel's socket
  // buffers did not absorb, then the -32001 answers).
  await waitFor(async () => {
    const { gauges } = (await owner.call('server/diagnostics', {})) as { gauges: Array<{ name: string; value: number }> };
    return (gauges.find((g) => g.name === 'app.outbound.queued')?.value ?? 0) >= 100;
  }, 20_000, 'the slow client to be owed past the soft limit');
  ws.resume();
  await waitFor(() => responses.filter((r) => 'id' in r).length >= total + 1, 20_000, () => `every response (only ${responses.length} arrived; connections ${h.server.connectionCount})`);
  const overloaded = responses.filter((r) => r.error?.code === -32001);
  expect(overloaded.length).toBeGreaterThan(0);
  expect(overloaded[0]?.error?.message).toBe('Server overloaded; retry later.');
  expect(new Set(responses.filter((r) => 'id' in r).map((r) => r.id)).size).toBe(total + 1);
  ws.send(JSON.stringify({ method: 'thread/loaded/list', id: 'again', params: {} }));
  await waitFor(() => responses.some((r) => (r.id as unknown) === 'again'), 20_000, 'an answer after reading again');
  ws.close();
}, 40_000);
