/**
 * Idle threads (docs/app-server.md "Limits"): a loaded thread that nobody is subscribed to and
 * that has had no activity for `idleThreadUnloadMs` is unloaded (its rollout is complete on disk),
 * while a subscribed one stays; `thread/resume` loads it again and it runs a turn as before.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { waitFor } from '@deputy/test-support';
import { startHarness, type Harness } from '../support/harness.js';
import { runTurn, startThread } from '../support/turns.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ idleThreadUnloadMs: 300 });
});
afterEach(async () => {
  await h.close();
});

it('unloads an idle, unsubscribed thread and loads it again on resume', async () => {
  const keeper = await h.connect();
  const kept = await startThread(keeper);
  const leaver = await h.connect();
  const left = await startThread(leaver);
  await runTurn(leaver, left.id, 'said before the unload');
  await leaver.close();
  const loaded = async () => (await keeper.call<{ data: string[] }>('thread/loaded/list', {})).data;
  await waitFor(async () => !(await loaded()).includes(left.id), 10_000, 'the idle thread to be unloaded');
  // The thread its connection still subscribes to stays loaded.
  expect(await loaded()).toContain(kept.id);
  const resumed = await keeper.call<{ thread: { id: string; turns: Array<{ items: Array<{ type: string; text?: string }> }> } }>('thread/resume', { threadId: left.id });
  expect(resumed.thread.turns.flatMap((t) => t.items).some((i) => i.type === 'agentMessage' && i.text === 'ECHO: said before the unload')).toBe(true);
  await runTurn(keeper, left.id, 'after the reload');
  expect(await loaded()).toContain(left.id);
}, 30_000);
