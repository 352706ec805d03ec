/**
 * Contract tests of the 0.171 local-state methods over the real server (real engine, rollouts,
 * index and thread-state store under a temp home, the scripted model), every message checked
 * against our schemas and against the 0.130 and 0.171 reference schemas of each generation that
 * has the method: `thread/revert` + `thread/reverted`, `thread/items/list`, `thread/items/read`,
 * goals, `thread/delete` + `thread/deleted`, ephemeral threads and the queue.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ThreadStateStore, type StoredGoal } from '@deputy/engine';
import { harnessPerTest, type Harness } from './support/harness.js';
import { runTurn, startThread, startTurn, turnCompleted, type WireThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

/**
 * A current client (a capability key only 0.169+ clients send). `remoteControl/status/changed` is
 * opted out of: the connection greeting's 0.171 fields belong to another part of the 0.171 work
 * and are checked there.
 */
const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
const STABLE = { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
const UNKNOWN = '00000000-0000-0000-0000-000000000000';

interface Entry {
  turnId: string;
  item: { id: string; type: string; text?: string; content?: Array<{ text?: string }> };
}
interface ItemsPage {
  data: Entry[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}
/** A wire goal has the stored goal's fields. */
type Goal = StoredGoal;
interface Queued {
  id: string;
  clientUserMessageId: string;
  input: Array<{ type: string; text: string }>;
  responsesapiClientMetadata: Record<string, string> | null;
}

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

async function errorOf(client: WireClient, method: string, params: Record<string, unknown>): Promise<string | undefined> {
  return (await client.request(method, params)).error?.message;
}

/** A thread with finished text turns; resolves with the thread id and the turn ids in order. */
async function withTurns(client: WireClient, texts: readonly string[]): Promise<{ threadId: string; ids: string[] }> {
  const thread = await startThread(client);
  const ids: string[] = [];
  for (const text of texts) ids.push(((await runTurn(client, thread.id, text)).params.turn as { id: string }).id);
  return { threadId: thread.id, ids };
}


/** Every rollout file under the home. */
function rollouts(home: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.jsonl')) found.push(path);
    }
  };
  walk(join(home, 'sessions'));
  walk(join(home, 'archived_sessions'));
  return found;
}

describe('thread/revert and thread/items/list', () => {
  it('lists the whole thread newest first, reverts before a turn and re-hydrates from the cursors', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const { threadId, ids } = await withTurns(client, ['one', 'two', 'three']);

    // The TUI's rewind: the newest 100 items of the thread, then the revert.
    const all = await client.call<ItemsPage>('thread/items/list', { threadId, turnId: null, cursor: null, limit: 100, sortDirection: 'desc' });
    expect(all.data.map((e) => e.turnId)).toEqual([ids[2], ids[2], ids[1], ids[1], ids[0], ids[0]]);
    expect(all.data.map((e) => e.item.type)).toEqual(['agentMessage', 'userMessage', 'agentMessage', 'userMessage', 'agentMessage', 'userMessage']);
    expect(all.data[1]?.item.content?.[0]?.text).toBe('three');
    expect(all.nextCursor).toBeNull();

    const reverted = await client.call<{ thread: WireThread; turnsBackwardsCursor: string | null; itemsBackwardsCursor: string | null }>('thread/revert', {
      threadId,
      beforeTurnId: ids[1],
    });
    expect(reverted.thread.id).toBe(threadId);
    expect(reverted.thread.turns).toEqual([]);
    const notice = await client.waitForNotification('thread/reverted');
    expect(notice.params).toEqual({ threadId });
    const methods = client.received.map((m) => ('method' in m ? m.method : 'response'));
    expect(methods.lastIndexOf('thread/reverted')).toBeGreaterThan(methods.lastIndexOf('response'));

    const turns = await client.call<{ data: Array<{ id: string }> }>('thread/turns/list', {
      threadId,
      cursor: reverted.turnsBackwardsCursor,
      sortDirection: 'desc',
    });
    expect(turns.data.map((t) => t.id)).toEqual([ids[0]]);
    const items = await client.call<ItemsPage>('thread/items/list', { threadId, cursor: reverted.itemsBackwardsCursor, sortDirection: 'desc' });
    expect(items.data.map((e) => e.item.type)).toEqual(['agentMessage', 'userMessage']);
    expect(items.data.every((e) => e.turnId === ids[0])).toBe(true);

    // The history on disk follows: a read from another connection sees one turn.
    const other = await h.connect({ capabilities: CURRENT });
    const read = await other.call<{ thread: WireThread }>('thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns.map((t) => t.id)).toEqual([ids[0]]);
    // The old name stays: thread/rollback drops from the end.
    await runTurn(client, threadId, 'four');
    const rolled = await client.call<{ thread: WireThread }>('thread/rollback', { threadId, numTurns: 1 });
    expect(rolled.thread.turns.map((t) => t.id)).toEqual([ids[0]]);
  });

  it('refuses an unknown turn and reverting every turn leaves null cursors', async () => {
    const client = await h.connect({ capabilities: STABLE });
    const { threadId, ids } = await withTurns(client, ['one']);
    expect(await errorOf(client, 'thread/revert', { threadId, beforeTurnId: 'nope' })).toBe(`turn nope not found in thread ${threadId}`);
    expect(await errorOf(client, 'thread/revert', { threadId: UNKNOWN, beforeTurnId: 'x' })).toMatch(/thread not loaded|no rollout/);
    const reverted = await client.call<{ turnsBackwardsCursor: string | null; itemsBackwardsCursor: string | null }>('thread/revert', {
      threadId,
      beforeTurnId: ids[0],
    });
    expect(reverted).toMatchObject({ turnsBackwardsCursor: null, itemsBackwardsCursor: null });
    expect((await client.call<ItemsPage>('thread/items/list', { threadId })).data).toEqual([]);
  });

  it('pages one turn from an item anchor and reads chosen items', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const { threadId, ids } = await withTurns(client, ['one', 'two']);
    const turnId = ids[1] as string;
    const turn = await client.call<ItemsPage>('thread/items/list', { threadId, turnId });
    expect(turn.data.map((e) => e.turnId)).toEqual([turnId, turnId]);
    const [user, agent] = turn.data.map((e) => e.item.id) as [string, string];

    const after = await client.call<ItemsPage>('thread/items/list', { threadId, turnId, cursor: { type: 'item', itemId: user } });
    expect(after.data.map((e) => e.item.id)).toEqual([agent]);
    const before = await client.call<ItemsPage>('thread/items/list', { threadId, turnId, cursor: { type: 'item', itemId: agent }, sortDirection: 'desc' });
    expect(before.data.map((e) => e.item.id)).toEqual([user]);
    expect(await errorOf(client, 'thread/items/list', { threadId, cursor: { type: 'item', itemId: user } })).toBe(
      'an item cursor requires a non-empty turnId',
    );

    const first = await client.call<ItemsPage>('thread/items/list', { threadId, limit: 3 });
    expect(first.data).toHaveLength(3);
    const rest = await client.call<ItemsPage>('thread/items/list', { threadId, limit: 3, cursor: first.nextCursor });
    expect(rest.data.map((e) => e.item.id)).toEqual([agent]);
    expect(rest.nextCursor).toBeNull();

    const read = await client.call<{ data: Entry[] }>('thread/items/read', { threadId, turnId, itemIds: [agent, 'item-999'] });
    expect(read.data.map((e) => [e.turnId, e.item.id, e.item.type])).toEqual([[turnId, agent, 'agentMessage']]);
    expect(read.data[0]?.item.text).toBe('ECHO: two');
    expect(await errorOf(client, 'thread/items/read', { threadId, turnId: 'nope', itemIds: [agent] })).toBe(`turn nope not found in thread ${threadId}`);

    const stable = await h.connect({ capabilities: STABLE });
    expect(await errorOf(stable, 'thread/items/read', { threadId, turnId, itemIds: [agent] })).toBe('thread/items/read requires experimentalApi capability');
    expect((await stable.call<ItemsPage>('thread/items/list', { threadId, turnId })).data).toHaveLength(2);
  });
});

describe('goals', () => {
  it('sets, counts, persists and clears a goal, without the experimental capability', async () => {
    const client = await h.connect({ capabilities: STABLE });
    const thread = await startThread(client);
    const threadId = thread.id;
    expect(await client.call('thread/goal/get', { threadId })).toEqual({ goal: null });
    expect(await errorOf(client, 'thread/goal/set', { threadId, status: 'paused' })).toBe(
      `thread ${threadId} has no goal; an objective is required to set one`,
    );

    const set = await client.call<{ goal: Goal }>('thread/goal/set', { threadId, objective: '  ship it  ', tokenBudget: 1_000_000 });
    expect(set.goal).toMatchObject({ threadId, objective: 'ship it', status: 'active', tokenBudget: 1_000_000, tokensUsed: 0, timeUsedSeconds: 0 });
    const updated = await client.waitForNotification('thread/goal/updated');
    expect(updated.params).toEqual({ threadId, turnId: null, goal: set.goal });

    // A turn counts towards the active goal and names itself in the update.
    const done = await runTurn(client, threadId, 'work');
    const turnId = (done.params.turn as { id: string }).id;
    const counted = await client.waitForNotification('thread/goal/updated', (p) => p.turnId === turnId);
    const goal = counted.params.goal as Goal;
    expect(goal.tokensUsed).toBeGreaterThan(0);
    expect(await client.call('thread/goal/get', { threadId })).toEqual({ goal });

    // On disk, in the home's thread-state store.
    const store = ThreadStateStore.open(h.temp.home);
    try {
      expect(store.goal(threadId)).toMatchObject({ objective: 'ship it', tokensUsed: goal.tokensUsed });
    } finally {
      store.close();
    }

    const paused = await client.call<{ goal: Goal }>('thread/goal/set', { threadId, status: 'paused', origin: 'user' });
    expect(paused.goal).toMatchObject({ objective: 'ship it', status: 'paused', tokensUsed: goal.tokensUsed, createdAt: goal.createdAt });
    const renewed = await client.call<{ goal: Goal }>('thread/goal/set', { threadId, objective: 'another' });
    expect(renewed.goal).toMatchObject({ objective: 'another', status: 'active', tokensUsed: 0, tokenBudget: null });

    expect(await client.call('thread/goal/clear', { threadId, origin: 'user' })).toEqual({ cleared: true });
    expect((await client.waitForNotification('thread/goal/cleared')).params).toEqual({ threadId });
    expect(await client.call('thread/goal/clear', { threadId })).toEqual({ cleared: false });
    expect(await client.call('thread/goal/get', { threadId })).toEqual({ goal: null });
    expect(await errorOf(client, 'thread/goal/get', { threadId: UNKNOWN })).toBe(`no rollout found for thread id ${UNKNOWN}`);
  });

  it('stops an active goal whose token budget is spent', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const thread = await startThread(client);
    await client.call('thread/goal/set', { threadId: thread.id, objective: 'tiny', tokenBudget: 1 });
    const done = await runTurn(client, thread.id, 'work');
    const turnId = (done.params.turn as { id: string }).id;
    const update = await client.waitForNotification('thread/goal/updated', (p) => p.turnId === turnId);
    expect((update.params.goal as Goal).status).toBe('budgetLimited');
  });
});

describe('thread/delete', () => {
  it('removes the rollout, the index row and the goal, and tells every client', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    const { threadId } = await withTurns(client, ['one']);
    await client.call('thread/goal/set', { threadId, objective: 'gone soon' });
    const path = (await client.call<{ thread: WireThread }>('thread/read', { threadId })).thread.path as string;
    expect(existsSync(path)).toBe(true);

    expect(await client.call('thread/delete', { threadId })).toEqual({});
    expect((await watcher.waitForNotification('thread/deleted')).params).toEqual({ threadId });
    const status = client.notifications('thread/status/changed').at(-1);
    expect(status?.params).toEqual({ threadId, status: { type: 'notLoaded' } });
    expect(existsSync(path)).toBe(false);
    const listed = await client.call<{ data: WireThread[] }>('thread/list', {});
    expect(listed.data.map((t) => t.id)).not.toContain(threadId);
    expect(await errorOf(client, 'thread/read', { threadId })).toBe(`thread not loaded: ${threadId}`);
    expect(await errorOf(client, 'thread/delete', { threadId })).toBe(`no rollout found for thread id ${threadId}`);
    const store = ThreadStateStore.open(h.temp.home);
    try {
      expect(store.goal(threadId)).toBeNull();
    } finally {
      store.close();
    }
  });

  it('tells a 0.130 client nothing its generation does not define', async () => {
    const current = await h.connect({ capabilities: CURRENT });
    const old = await h.connect({ capabilities: { experimentalApi: true, optOutNotificationMethods: ['remoteControl/status/changed'] } });
    const { threadId } = await withTurns(current, ['one']);
    await current.call('thread/delete', { threadId });
    await current.waitForNotification('thread/deleted');
    // The 0.130 client got the status change that preceded it, and no thread/deleted.
    await old.waitForNotification('thread/status/changed', (p) => (p.status as { type: string }).type === 'notLoaded');
    expect(old.notifications('thread/deleted')).toEqual([]);
  });

  it('deletes an archived thread', async () => {
    const client = await h.connect({ capabilities: STABLE });
    const { threadId } = await withTurns(client, ['one']);
    await client.call('thread/archive', { threadId });
    expect(rollouts(h.temp.home).filter((p) => p.includes(threadId))).toHaveLength(1);
    await client.call('thread/delete', { threadId });
    expect(rollouts(h.temp.home).filter((p) => p.includes(threadId))).toEqual([]);
    const archived = await client.call<{ data: WireThread[] }>('thread/list', { archived: true });
    expect(archived.data.map((t) => t.id)).not.toContain(threadId);
  });
});

describe('ephemeral threads', () => {
  it('run turns in memory, are never listed and never written', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const before = rollouts(h.temp.home).length;
    const started = await client.call<{ thread: WireThread & { ephemeral: boolean } }>('thread/start', {
      ephemeral: true,
      approvalPolicy: 'never',
      sandbox: null,
      // What the 0.171 TUI sends for its hidden title thread (an open string in 0.171).
      threadSource: 'thread_title',
    });
    expect(started.thread).toMatchObject({ ephemeral: true, path: null });
    const threadId = started.thread.id;
    const done = await runTurn(client, threadId, 'title please');
    expect((done.params.turn as { status: string }).status).toBe('completed');
    const read = await client.call<{ thread: WireThread & { ephemeral: boolean } }>('thread/read', { threadId, includeTurns: true });
    expect(read.thread.ephemeral).toBe(true);
    expect(read.thread.turns).toHaveLength(1);

    const listed = await client.call<{ data: WireThread[] }>('thread/list', { sourceKinds: ['appServer', 'vscode', 'cli', 'exec'] });
    expect(listed.data.map((t) => t.id)).not.toContain(threadId);
    expect(rollouts(h.temp.home)).toHaveLength(before);
    expect(rollouts(h.temp.home).some((p) => readFileSync(p, 'utf8').includes(threadId))).toBe(false);
    expect(await errorOf(client, 'thread/goal/set', { threadId, objective: 'x' })).toBe(`thread ${threadId} is ephemeral; its state is not stored`);

    // Deleting it just unloads it.
    await client.call('thread/delete', { threadId });
    expect(await errorOf(client, 'thread/read', { threadId })).toBe(`thread not loaded: ${threadId}`);
  });
});

describe('thread/queue', () => {
  const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

  it('queues inputs while a turn runs and starts them in order after it', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    const thread = await startThread(client);
    const threadId = thread.id;
    await watcher.call('thread/resume', { threadId });

    const running = await startTurn(client, threadId, 'slow: 100');
    const a = await client.call<{ queuedSubmission: Queued }>('thread/queue/add', { threadId, clientUserMessageId: 'c-1', input: text('first queued') });
    const b = await client.call<{ queuedSubmission: Queued }>('thread/queue/add', {
      threadId,
      clientUserMessageId: 'c-2',
      input: text('second queued'),
      responsesapiClientMetadata: { k: 'v' },
    });
    expect(b.queuedSubmission).toMatchObject({ clientUserMessageId: 'c-2', responsesapiClientMetadata: { k: 'v' } });
    await watcher.waitUntil(() => watcher.notifications('thread/queue/changed').length >= 2 || undefined, 'two queue changes');
    const listed = await client.call<{ data: Queued[]; nextCursor: string | null }>('thread/queue/list', { threadId });
    expect(listed.data.map((q) => q.id)).toEqual([a.queuedSubmission.id, b.queuedSubmission.id]);

    await turnCompleted(client, running);
    const starts = await client.waitUntil(() => {
      const turns = client.notifications('turn/completed').map((n) => n.params.turn as { id: string });
      return turns.length >= 3 ? turns : undefined;
    }, 'the two queued turns', 20_000);
    const read = await client.call<{ thread: WireThread }>('thread/read', { threadId, includeTurns: true });
    const prompts = read.thread.turns.map((t) => (t.items.find((i) => i.type === 'userMessage')?.content as Array<{ text: string }>)[0]?.text);
    expect(prompts).toEqual(['slow: 100', 'first queued', 'second queued']);
    expect(read.thread.turns.map((t) => t.id)).toEqual(starts.map((t) => t.id));
    expect((await client.call<{ data: Queued[] }>('thread/queue/list', { threadId })).data).toEqual([]);
  });

  it('updates, reorders, deletes and starts queued submissions, persisted', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const thread = await startThread(client);
    const threadId = thread.id;
    const add = async (id: string) =>
      (await client.call<{ queuedSubmission: Queued }>('thread/queue/add', { threadId, clientUserMessageId: id, input: text(id) })).queuedSubmission;
    const [x, y, z] = [await add('x'), await add('y'), await add('z')];

    const updated = await client.call<{ queuedSubmission: Queued }>('thread/queue/update', { threadId, queuedSubmissionId: y.id, input: text('y2') });
    expect(updated.queuedSubmission).toMatchObject({ id: y.id, clientUserMessageId: 'y', input: text('y2') });
    expect(await errorOf(client, 'thread/queue/reorder', { threadId, queuedSubmissionIds: [z.id, x.id] })).toBe(
      'queuedSubmissionIds must name every queued submission of the thread exactly once',
    );
    expect(await client.call('thread/queue/reorder', { threadId, queuedSubmissionIds: [z.id, y.id, x.id] })).toEqual({});
    expect(await client.call('thread/queue/delete', { threadId, queuedSubmissionId: x.id })).toEqual({ deleted: true });
    expect(await client.call('thread/queue/delete', { threadId, queuedSubmissionId: x.id })).toEqual({ deleted: false });

    const page = await client.call<{ data: Queued[]; nextCursor: string | null }>('thread/queue/list', { threadId, limit: 1 });
    expect(page.data.map((q) => q.id)).toEqual([z.id]);
    const next = await client.call<{ data: Queued[]; nextCursor: string | null }>('thread/queue/list', { threadId, limit: 1, cursor: page.nextCursor });
    expect(next).toEqual({ data: [updated.queuedSubmission], nextCursor: null });
    const store = ThreadStateStore.open(h.temp.home);
    try {
      expect(store.queue(threadId).map((s) => s.id)).toEqual([z.id, y.id]);
    } finally {
      store.close();
    }

    // Start the second one now; the first then follows it.
    const started = await client.call<{ turn: { id: string; status: string } }>('thread/queue/start', { threadId, queuedSubmissionId: y.id });
    expect(started.turn.status).toBe('inProgress');
    await turnCompleted(client, started.turn.id);
    await client.waitUntil(() => client.notifications('turn/completed').length >= 2 || undefined, 'the queued turn after it');
    const read = await client.call<{ thread: WireThread }>('thread/read', { threadId, includeTurns: true });
    const prompts = read.thread.turns.map((t) => (t.items.find((i) => i.type === 'userMessage')?.content as Array<{ text: string }>)[0]?.text);
    expect(prompts).toEqual(['y2', 'z']);
    expect(await errorOf(client, 'thread/queue/start', { threadId })).toBe(`the queue of thread ${threadId} is empty`);

    const stable = await h.connect({ capabilities: STABLE });
    expect(await errorOf(stable, 'thread/queue/list', { threadId })).toBe('thread/queue/list requires experimentalApi capability');
  });
});
