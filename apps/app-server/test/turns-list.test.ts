/**
 * Contract tests of `thread/turns/list`, `thread/turns/items/list` and
 * `thread/backgroundTerminals/clean` over in-memory transports with the wire sniffer: paging in
 * both directions with the reference's cursors, the items views, stored threads, the error texts,
 * and a background terminal left running by a turn and then cleaned.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationTail, functionCall, type StepHandler } from '@deputy/test-support';
import { startHarness, type Harness } from './support/harness.js';
import { referenceScript } from './support/mock-model.js';
import { runTurn, startThread, startTurn, turnCompleted, type WireThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

/** `bg: CMD` runs CMD on a terminal with a short yield, so a long command stays running. */
const script: StepHandler = (request) => {
  const tail = conversationTail(request);
  if (tail.kind === 'user' && tail.text.startsWith('bg:')) {
    return { output: [functionCall('exec_command', { cmd: tail.text.slice(3).trim(), tty: true, yield_time_ms: 500 })] };
  }
  return referenceScript(request);
};

type Item = Record<string, unknown> & { id: string; type: string };
type Turn = WireThread['turns'][number] & { items: Item[] };
interface TurnsPage {
  data: Turn[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}
interface ItemsPage {
  data: Item[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}

const EXPERIMENTAL = { experimentalApi: true };
const UNKNOWN = '00000000-0000-0000-0000-000000000000';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ handler: script });
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

function turns(client: WireClient, params: Record<string, unknown>): Promise<TurnsPage> {
  return client.call<TurnsPage>('thread/turns/list', params);
}

function items(client: WireClient, params: Record<string, unknown>): Promise<ItemsPage> {
  return client.call<ItemsPage>('thread/turns/items/list', params);
}

async function errorOf(client: WireClient, method: string, params: Record<string, unknown>): Promise<{ code: number; message: string } | undefined> {
  return (await client.request(method, params)).error;
}

/** A thread with three finished text turns; resolves with the thread id and the turn ids in order. */
async function threeTurns(client: WireClient): Promise<{ threadId: string; ids: string[] }> {
  const thread = await startThread(client);
  const ids: string[] = [];
  for (const text of ['one', 'two', 'three']) {
    const done = await runTurn(client, thread.id, text);
    ids.push((done.params.turn as { id: string }).id);
  }
  return { threadId: thread.id, ids };
}

const ids = (page: { data: Array<{ id: string }> }) => page.data.map((entry) => entry.id);

describe('thread/turns/list', () => {
  it('is experimental', async () => {
    const stable = await h.connect();
    const thread = await startThread(stable);
    expect(await errorOf(stable, 'thread/turns/list', { threadId: thread.id })).toEqual({
      code: -32600,
      message: 'thread/turns/list requires experimentalApi capability',
    });
    expect((await errorOf(stable, 'thread/turns/items/list', { threadId: thread.id, turnId: 'x' }))?.message).toBe(
      'thread/turns/items/list requires experimentalApi capability',
    );
    expect((await errorOf(stable, 'thread/backgroundTerminals/clean', { threadId: thread.id }))?.message).toBe(
      'thread/backgroundTerminals/clean requires experimentalApi capability',
    );
  });

  it('pages newest first by default, then forward and backward with the cursors', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const { threadId, ids: [t1, t2, t3] } = await threeTurns(client);

    const first = await turns(client, { threadId, limit: 2 });
    expect(ids(first)).toEqual([t3, t2]);
    expect(JSON.parse(first.nextCursor as string)).toEqual({ turnId: t2, includeAnchor: false });
    expect(JSON.parse(first.backwardsCursor as string)).toEqual({ turnId: t3, includeAnchor: true });

    const second = await turns(client, { threadId, limit: 2, cursor: first.nextCursor });
    expect(ids(second)).toEqual([t1]);
    expect(second.nextCursor).toBeNull();

    // The backwards cursor reverses from the page's first turn, that turn included.
    const back = await turns(client, { threadId, cursor: second.backwardsCursor, sortDirection: 'asc' });
    expect(ids(back)).toEqual([t1, t2, t3]);
    expect(back.nextCursor).toBeNull();

    const asc = await turns(client, { threadId, sortDirection: 'asc', limit: 1 });
    expect(ids(asc)).toEqual([t1]);
    const ascNext = await turns(client, { threadId, sortDirection: 'asc', limit: 1, cursor: asc.nextCursor });
    expect(ids(ascNext)).toEqual([t2]);
    const reversed = await turns(client, { threadId, sortDirection: 'desc', cursor: ascNext.backwardsCursor });
    expect(ids(reversed)).toEqual([t2, t1]);

    // limit 0 counts as 1; a huge limit is cut to the maximum; nulls mean the defaults.
    expect(ids(await turns(client, { threadId, limit: 0 }))).toEqual([t3]);
    expect(ids(await turns(client, { threadId, limit: 4_000_000_000 }))).toEqual([t3, t2, t1]);
    expect(ids(await turns(client, { threadId, limit: null, cursor: null, sortDirection: null, itemsView: null }))).toEqual([t3, t2, t1]);
  });

  it('shows each items view with the same synthetic ids as thread/read', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'hello');
    await runTurn(client, thread.id, 'run: echo listed-output');
    const read = await client.call<{ thread: WireThread }>('thread/read', { threadId: thread.id, includeTurns: true });
    const full = read.thread.turns;
    expect(full[1]?.items.map((i) => i.type)).toEqual(['userMessage', 'commandExecution', 'agentMessage']);

    const summary = await turns(client, { threadId: thread.id, sortDirection: 'asc' });
    expect(summary.data.map((t) => t.itemsView)).toEqual(['summary', 'summary']);
    expect(summary.data[1]?.items).toEqual([full[1]?.items[0], full[1]?.items[2]]);
    expect(summary.data[1]?.items.map((i) => i.id)).toEqual(['item-3', 'item-5']);
    expect(summary.data[0]?.items).toEqual(full[0]?.items);

    const asFull = await turns(client, { threadId: thread.id, sortDirection: 'asc', itemsView: 'full' });
    expect(asFull.data).toEqual(full);

    const bare = await turns(client, { threadId: thread.id, itemsView: 'notLoaded' });
    expect(bare.data.map((t) => [t.items, t.itemsView, t.status])).toEqual([
      [[], 'notLoaded', 'completed'],
      [[], 'notLoaded', 'completed'],
    ]);
    expect(bare.data.map(({ items: _, itemsView: __, ...rest }) => rest)).toEqual(
      [...full].reverse().map(({ items: _, itemsView: __, ...rest }) => rest),
    );
  });

  it('shows a running turn as in progress', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'before');
    const turnId = await startTurn(client, thread.id, 'slow: 150');
    await client.waitForNotification('item/completed', (p) => p.turnId === turnId && (p.item as Item).type === 'userMessage');
    const page = await turns(client, { threadId: thread.id, limit: 1 });
    expect(page.data[0]).toMatchObject({ id: turnId, status: 'inProgress', itemsView: 'summary', completedAt: null });
    expect(page.data[0]?.items.map((i) => i.type)).toEqual(['userMessage']);
    await turnCompleted(client, turnId, 20_000);
  });

  it('lists the turns of stored and archived threads without loading them', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const { threadId, ids: turnIds } = await threeTurns(client);
    await client.call('thread/archive', { threadId });
    const archived = await turns(client, { threadId, sortDirection: 'asc', itemsView: 'full' });
    expect(ids(archived)).toEqual(turnIds);
    await client.call('thread/unarchive', { threadId });
    expect((await client.call<{ data: string[] }>('thread/loaded/list', {})).data).not.toContain(threadId);

    const stored = await turns(client, { threadId, limit: 2 });
    expect(ids(stored)).toEqual([turnIds[2], turnIds[1]]);
    expect(stored.data[0]?.items.map((i) => [i.type, i.id])).toEqual([
      ['userMessage', 'item-5'],
      ['agentMessage', 'item-6'],
    ]);
    const rest = await turns(client, { threadId, limit: 2, cursor: stored.nextCursor });
    expect(ids(rest)).toEqual([turnIds[0]]);
    const page = await items(client, { threadId, turnId: turnIds[1] });
    expect(page.data.map((i) => i.id)).toEqual(['item-3', 'item-4']);
    expect((await client.call<{ data: string[] }>('thread/loaded/list', {})).data).not.toContain(threadId);
  });

  it('answers a thread without turns with an empty page, whatever the cursor', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const thread = await startThread(client);
    const empty = { data: [], nextCursor: null, backwardsCursor: null };
    expect(await turns(client, { threadId: thread.id })).toEqual(empty);
    expect(await turns(client, { threadId: thread.id, cursor: 'garbage' })).toEqual(empty);
  });

  it('refuses unknown threads, bad ids and bad cursors with the reference texts, and keeps serving', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const { threadId, ids: turnIds } = await threeTurns(client);
    expect(await errorOf(client, 'thread/turns/list', { threadId: UNKNOWN })).toEqual({ code: -32600, message: `thread not loaded: ${UNKNOWN}` });
    expect((await errorOf(client, 'thread/turns/list', { threadId: 'nope' }))?.message).toMatch(/^invalid thread id: /);
    for (const cursor of ['garbage', '{"turnId":1,"includeAnchor":true}', '{"itemId":"item-1","includeAnchor":true}', '[]']) {
      expect(await errorOf(client, 'thread/turns/list', { threadId, cursor })).toEqual({ code: -32600, message: `invalid cursor: ${cursor}` });
    }
    expect((await errorOf(client, 'thread/turns/list', { threadId, sortDirection: 'up' }))?.message).toMatch(/^Invalid request: unknown variant `up`/);

    const page = await turns(client, { threadId, limit: 1 });
    expect(ids(page)).toEqual([turnIds[2]]);
    await client.call('thread/rollback', { threadId, numTurns: 1 });
    expect(await errorOf(client, 'thread/turns/list', { threadId, cursor: page.backwardsCursor })).toEqual({
      code: -32600,
      message: 'invalid cursor: anchor turn is no longer present',
    });
    expect(ids(await turns(client, { threadId }))).toEqual([turnIds[1], turnIds[0]]);
  });
});

describe('thread/turns/items/list', () => {
  it("pages one turn's items oldest first by default, and both ways with the cursors", async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'first');
    const turnId = (await runTurn(client, thread.id, 'run: echo paged')).params.turn as { id: string };
    const all = await items(client, { threadId: thread.id, turnId: turnId.id });
    expect(all.data.map((i) => [i.id, i.type])).toEqual([
      ['item-3', 'userMessage'],
      ['item-4', 'commandExecution'],
      ['item-5', 'agentMessage'],
    ]);
    expect(all.nextCursor).toBeNull();

    const first = await items(client, { threadId: thread.id, turnId: turnId.id, limit: 2 });
    expect(ids(first)).toEqual(['item-3', 'item-4']);
    expect(JSON.parse(first.nextCursor as string)).toEqual({ itemId: 'item-4', includeAnchor: false });
    const second = await items(client, { threadId: thread.id, turnId: turnId.id, limit: 2, cursor: first.nextCursor });
    expect(ids(second)).toEqual(['item-5']);
    expect(second.nextCursor).toBeNull();
    const back = await items(client, { threadId: thread.id, turnId: turnId.id, sortDirection: 'desc', cursor: second.backwardsCursor });
    expect(ids(back)).toEqual(['item-5', 'item-4', 'item-3']);
    const desc = await items(client, { threadId: thread.id, turnId: turnId.id, sortDirection: 'desc', limit: 1 });
    expect(ids(desc)).toEqual(['item-5']);
    expect(ids(await items(client, { threadId: thread.id, turnId: turnId.id, sortDirection: 'desc', cursor: desc.nextCursor }))).toEqual(['item-4', 'item-3']);
  });

  it('refuses an unknown thread or turn and a bad cursor', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const thread = await startThread(client);
    const done = await runTurn(client, thread.id, 'only');
    const turnId = (done.params.turn as { id: string }).id;
    expect((await errorOf(client, 'thread/turns/items/list', { threadId: UNKNOWN, turnId }))?.message).toBe(`thread not loaded: ${UNKNOWN}`);
    expect(await errorOf(client, 'thread/turns/items/list', { threadId: thread.id, turnId: UNKNOWN })).toEqual({
      code: -32600,
      message: `turn ${UNKNOWN} not found in thread ${thread.id}`,
    });
    const turnCursor = JSON.stringify({ turnId, includeAnchor: false });
    expect((await errorOf(client, 'thread/turns/items/list', { threadId: thread.id, turnId, cursor: turnCursor }))?.message).toBe(`invalid cursor: ${turnCursor}`);
    const gone = JSON.stringify({ itemId: 'item-9', includeAnchor: false });
    expect((await errorOf(client, 'thread/turns/items/list', { threadId: thread.id, turnId, cursor: gone }))?.message).toBe(
      'invalid cursor: anchor item is no longer present',
    );
    expect(ids(await items(client, { threadId: thread.id, turnId }))).toEqual(['item-1', 'item-2']);
  });
});

/** True while any process of group `pgid` exists. */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

describe('thread/backgroundTerminals/clean', () => {
  it('kills the terminal a turn left running and answers {}', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    const thread = await startThread(client);
    const pidFile = join(h.temp.cwd, 'bg.pid');
    const turnId = await startTurn(client, thread.id, `bg: echo $$ > ${pidFile}; exec sleep 100`);
    const command = await client.waitForNotification('item/completed', (p) => p.turnId === turnId && (p.item as Item).type === 'commandExecution');
    expect(command.params.item).toMatchObject({ status: 'completed', exitCode: null, processId: expect.any(String) });
    await turnCompleted(client, turnId, 20_000);
    const pgid = Number((await readFile(pidFile, 'utf8')).trim());
    try {
      expect(groupExists(pgid)).toBe(true);
      expect(await client.call('thread/backgroundTerminals/clean', { threadId: thread.id })).toEqual({});
      await client.waitUntil(() => !groupExists(pgid), 'the background command to be gone', 10_000);
      // Nothing left to clean: still {}.
      expect(await client.call('thread/backgroundTerminals/clean', { threadId: thread.id })).toEqual({});
      // The thread goes on working.
      await runTurn(client, thread.id, 'after the clean');
    } finally {
      if (groupExists(pgid)) process.kill(-pgid, 'SIGKILL');
    }
  });

  it('refuses a thread that is not loaded with the reference text', async () => {
    const client = await h.connect({ capabilities: EXPERIMENTAL });
    expect(await errorOf(client, 'thread/backgroundTerminals/clean', { threadId: UNKNOWN })).toEqual({
      code: -32600,
      message: `thread not found: ${UNKNOWN}`,
    });
    expect((await errorOf(client, 'thread/backgroundTerminals/clean', { threadId: 'x' }))?.message).toMatch(/^invalid thread id: /);
    const { threadId } = await threeTurns(client);
    await client.call('thread/archive', { threadId });
    await client.call('thread/unarchive', { threadId });
    expect((await errorOf(client, 'thread/backgroundTerminals/clean', { threadId }))?.message).toBe(`thread not found: ${threadId}`);
  });
});
