/**
 * Contract tests of `thread/timeline/list` over the real server (real engine and rollouts under a
 * temp home, the scripted model), every message checked against our schemas and the 0.171
 * reference: turn boundaries and items in rollout order with running positions, cursor paging,
 * the same items `thread/items/list` gives, the timeline read back from the rollout after a
 * restart, the experimental gate and bad input.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { harnessPerTest, restartServer, type Harness } from './support/harness.js';
import { runTurn, startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
const UNKNOWN = '01a22b00-1111-7222-8333-944455556666';

type Entry = { type: string; position: number; turnId?: string; turn_id?: string; item?: { id: string; type: string }; [key: string]: unknown };
interface Page {
  data: Entry[];
  nextCursor: string | null;
  activeRealtimeSessionAtPageStart: null;
}

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const timeline = (client: WireClient, params: Record<string, unknown>) => client.call<Page>('thread/timeline/list', params);

/** Every entry of the timeline, following `nextCursor` with pages of `limit`. */
async function walk(client: WireClient, threadId: string, limit: number): Promise<{ entries: Entry[]; pages: number }> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Page = await timeline(client, { threadId, cursor, limit });
    expect(page.activeRealtimeSessionAtPageStart).toBeNull();
    entries.push(...page.data);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 20);
  return { entries, pages };
}

describe('thread/timeline/list', () => {
  it('lists turn boundaries and items in rollout order with running positions, paged by cursor', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const { id: threadId } = await startThread(client);
    expect(await timeline(client, { threadId })).toEqual({ data: [], nextCursor: null, activeRealtimeSessionAtPageStart: null });
    const turns = [];
    for (const text of ['one', 'two']) turns.push((await runTurn(client, threadId, text)).params.turn as { id: string; startedAt: number; completedAt: number; durationMs: number });

    const whole = await timeline(client, { threadId });
    expect(whole.nextCursor).toBeNull();
    expect(whole.data.map((e) => e.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(whole.data.map((e) => (e.type === 'item' ? e.item?.type : e.type))).toEqual([
      'turnStarted', 'userMessage', 'agentMessage', 'turnCompleted', 'turnStarted', 'userMessage', 'agentMessage', 'turnCompleted',
    ]);
    const [first, second] = turns as [(typeof turns)[0], (typeof turns)[0]];
    expect(whole.data[0]).toEqual({ type: 'turnStarted', position: 0, turn_id: first.id, started_at: first.startedAt });
    expect(whole.data[3]).toEqual({
      type: 'turnCompleted',
      position: 3,
      turn_id: first.id,
      status: 'completed',
      started_at: first.startedAt,
      completed_at: first.completedAt,
      duration_ms: first.durationMs,
      error: null,
    });
    expect(whole.data.filter((e) => e.type === 'item').map((e) => e.turnId)).toEqual([first.id, first.id, second.id, second.id]);
    // The items are the ones thread/items/list gives, in the same order.
    const items = await client.call<{ data: Array<{ turnId: string; item: unknown }> }>('thread/items/list', { threadId });
    expect(whole.data.filter((e) => e.type === 'item').map(({ turnId, item }) => ({ turnId, item }))).toEqual(items.data);

    const paged = await walk(client, threadId, 3);
    expect(paged).toEqual({ entries: whole.data, pages: 3 });
    expect((await timeline(client, { threadId, limit: 3 })).nextCursor).toBe('3');
  });

  it('reads the timeline back from the rollout after a restart', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const { id: threadId } = await startThread(client);
    await runTurn(client, threadId, 'hello');
    const before = await timeline(client, { threadId });
    const restarted = await restartServer(h, CURRENT);
    try {
      expect(await timeline(restarted.client, { threadId })).toEqual(before);
      expect(before.data).toHaveLength(4);
    } finally {
      await restarted.close();
    }
  });

  it('refuses bad input with precise errors, and answers only with experimentalApi', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const { id: threadId } = await startThread(client);
    await runTurn(client, threadId, 'hello');
    const errorOf = async (params: unknown, on: WireClient = client) => (await on.request('thread/timeline/list', params)).error;
    for (const cursor of ['x', '-1', '5', '1.5']) expect(await errorOf({ threadId, cursor })).toMatchObject({ code: -32600, message: `invalid cursor: ${cursor}` });
    expect((await timeline(client, { threadId, cursor: '4' })).data).toEqual([]);
    expect(await errorOf({ threadId: UNKNOWN })).toMatchObject({ code: -32600, message: `thread not loaded: ${UNKNOWN}` });
    expect((await errorOf({}))?.code).toBe(-32600);
    const stable = await h.connect({ capabilities: { requestAttestation: false } });
    expect(await errorOf({ threadId }, stable)).toMatchObject({ code: -32600, message: 'thread/timeline/list requires experimentalApi capability' });
    expect((await timeline(client, { threadId, limit: 0 })).data).toHaveLength(1);
  });
});
