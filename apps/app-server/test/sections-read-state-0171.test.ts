/**
 * Contract tests of read state and thread sections over the real server (real index and
 * thread-state store under a temp home, the scripted model), every message checked against our
 * schemas and the 0.130 and 0.171 references: `thread/readState/update` and
 * `thread/readState/changed` after turns, `readStates` and the `recency_at` / `section_position`
 * sort keys and `sectionId` filter of `thread/list`, `threadSection/*`, `thread/section/move` and
 * `thread/section/changed`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ThreadStateStore } from '@deputy/engine';
import { harnessPerTest, type Harness } from './support/harness.js';
import { runTurn, startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };

interface ReadState {
  firstUnread: { type: string; turnId?: string } | null;
  revision: string;
}
interface ListPage {
  data: Array<{ id: string }>;
  nextCursor: string | null;
  readStates: Record<string, ReadState>;
}
interface Section {
  id: string;
  name: string;
  appearance: { color?: string | null; icon?: string | null } | null;
}

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const list = (client: WireClient, params: Record<string, unknown>) => client.call<ListPage>('thread/list', { sourceKinds: ['vscode'], ...params });
const listIds = async (client: WireClient, params: Record<string, unknown>) => (await list(client, params)).data.map((t) => t.id);

describe('read state', () => {
  it('marks a thread unread from its completed turn, and read or unread on request with a revision check', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const other = await h.connect({ capabilities: CURRENT });
    const thread = await startThread(client);
    const threadId = thread.id;
    expect((await list(client, {})).readStates).toEqual({ [threadId]: { firstUnread: null, revision: '0' } });

    const done = await runTurn(client, threadId, 'hello');
    const turnId = (done.params.turn as { id: string }).id;
    const changed = await other.waitForNotification('thread/readState/changed');
    expect(changed.params).toEqual({ threadId, readState: { firstUnread: { type: 'turn', turnId }, revision: '1' } });
    expect((await list(client, {})).readStates[threadId]).toEqual(changed.params.readState);
    // A second turn while unread keeps the first unread position.
    await runTurn(client, threadId, 'again');
    expect(client.notifications('thread/readState/changed')).toHaveLength(1);

    // What the TUI answers: read, with the revision it saw.
    const read = await client.call<{ readState: ReadState }>('thread/readState/update', { threadId, operation: { type: 'read' }, expectedRevision: '1' });
    expect(read.readState).toEqual({ firstUnread: null, revision: '2' });
    expect((await other.waitForNotification('thread/readState/changed', (p) => (p.readState as ReadState).revision === '2')).params.threadId).toBe(threadId);
    expect((await client.request('thread/readState/update', { threadId, operation: { type: 'unread' }, expectedRevision: '1' })).error?.message).toBe(
      `stale read state revision 1: thread ${threadId} is at revision 2`,
    );
    const unread = await client.call<{ readState: ReadState }>('thread/readState/update', { threadId, operation: { type: 'unread' }, expectedRevision: '2' });
    expect(unread.readState).toEqual({ firstUnread: { type: 'threadStart' }, revision: '3' });
    expect((await client.call<{ readState: ReadState }>('thread/read', { threadId })).readState).toEqual(unread.readState);
    const store = ThreadStateStore.open(h.temp.home);
    try {
      expect(store.readState(threadId)).toEqual({ firstUnread: { type: 'threadStart' }, revision: 3 });
    } finally {
      store.close();
    }
    const stable = await h.connect({ capabilities: { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] } });
    expect((await stable.request('thread/readState/update', { threadId, operation: { type: 'read' }, expectedRevision: '3' })).error?.message).toBe(
      'thread/readState/update requires experimentalApi capability',
    );
  });

  it('sorts by recency_at as by updated_at', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const a = await startThread(client);
    const b = await startThread(client);
    await runTurn(client, a.id, 'touch a later');
    expect(await listIds(client, { sortKey: 'recency_at' })).toEqual(await listIds(client, { sortKey: 'updated_at' }));
    expect((await listIds(client, { sortKey: 'recency_at' }))[0]).toBe(a.id);
    expect(await listIds(client, { sortKey: 'created_at' })).toEqual([b.id, a.id]);
  });
});

describe('thread sections', () => {
  it('creates, lists, updates and deletes sections, and orders and filters thread/list by them', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    const [t1, t2, t3, loose] = [await startThread(client), await startThread(client), await startThread(client), await startThread(client)];

    const work = (await client.call<{ section: Section }>('threadSection/create', { name: ' Work ', appearance: { color: 'blue', icon: null } })).section;
    expect(work).toMatchObject({ name: 'Work', appearance: { color: 'blue', icon: null } });
    const later = (await client.call<{ section: Section }>('threadSection/create', { name: 'Later' })).section;
    expect(later.appearance).toBeNull();
    const sections = await client.call<{ data: Section[]; nextCursor: string | null }>('threadSection/list', {});
    expect(sections).toEqual({ data: [work, later], nextCursor: null });
    const firstPage = await client.call<{ data: Section[]; nextCursor: string | null }>('threadSection/list', { limit: 1 });
    expect(firstPage).toEqual({ data: [work], nextCursor: work.id });

    for (const t of [t1, t2]) expect(await client.call('thread/section/move', { threadId: t.id, sectionId: work.id })).toEqual({});
    await client.call('thread/section/move', { threadId: t3.id, sectionId: work.id, beforeThreadId: t2.id });
    const changed = await watcher.waitUntil(() => {
      const n = watcher.notifications('thread/section/changed');
      return n.length >= 3 ? n : undefined;
    }, 'three section changes');
    expect(changed.map((n) => n.params)).toEqual([t1, t2, t3].map((t) => ({ threadId: t.id, sectionId: work.id })));

    expect(await listIds(client, { sortKey: 'section_position', sectionId: work.id })).toEqual([t1.id, t3.id, t2.id]);
    expect(await listIds(client, { sortKey: 'section_position', sectionId: work.id, sortDirection: 'desc' })).toEqual([t2.id, t3.id, t1.id]);
    const paged = await list(client, { sortKey: 'section_position', sectionId: work.id, limit: 2 });
    expect(paged.data.map((t) => t.id)).toEqual([t1.id, t3.id]);
    expect(await listIds(client, { sortKey: 'section_position', sectionId: work.id, limit: 2, cursor: paged.nextCursor })).toEqual([t2.id]);
    expect(await listIds(client, { sectionId: work.id, sortKey: 'created_at' })).toEqual([t3.id, t2.id, t1.id]);
    expect(await listIds(client, { sectionId: null })).toEqual([loose.id]);
    expect(await list(client, { sortKey: 'section_position', sectionId: '01a2286b-0072-7ad3-9f71-2d86309503a6' })).toMatchObject({ data: [], readStates: {} });
    expect((await client.request('thread/list', { sortKey: 'section_position' })).error?.message).toBe('sortKey section_position requires a sectionId');

    // Moving within a section sends nothing; out of it, a change with null.
    await client.call('thread/section/move', { threadId: t2.id, sectionId: work.id, beforeThreadId: t1.id });
    expect(await listIds(client, { sortKey: 'section_position', sectionId: work.id })).toEqual([t2.id, t1.id, t3.id]);
    await client.call('thread/section/move', { threadId: t3.id, sectionId: null });
    expect((await watcher.waitForNotification('thread/section/changed', (p) => p.sectionId === null)).params).toEqual({ threadId: t3.id, sectionId: null });
    expect(watcher.notifications('thread/section/changed')).toHaveLength(4);
    expect((await client.request('thread/section/move', { threadId: t1.id, sectionId: later.id, beforeThreadId: t2.id })).error?.message).toBe(
      `thread ${t2.id} is not another thread of section ${later.id}`,
    );

    // Every Thread names its section and when it entered it (thread/read, thread/list, loaded or not).
    const read = async (id: string) => (await client.call<{ thread: Record<string, unknown> }>('thread/read', { threadId: id })).thread;
    const t1Read = await read(t1.id);
    expect(t1Read).toMatchObject({ section: work, sectionEnteredAt: expect.any(Number) });
    expect(Math.abs((t1Read.sectionEnteredAt as number) - Date.now() / 1000)).toBeLessThan(600);
    expect(await read(t3.id)).toMatchObject({ section: null, sectionEnteredAt: null });
    expect((await list(client, { sectionId: work.id })).data.map((t) => (t as unknown as { section: Section | null }).section)).toEqual([work, work]);

    const renamed = await client.call<{ section: Section }>('threadSection/update', { sectionId: work.id, name: 'Job' });
    expect(renamed.section).toEqual({ ...work, name: 'Job' });
    const cleared = await client.call<{ section: Section }>('threadSection/update', { sectionId: work.id, name: 'Job', appearance: null });
    expect(cleared.section.appearance).toBeNull();
    expect((await client.request('threadSection/update', { sectionId: 'nope', name: 'x' })).error?.message).toBe('section not found: nope');
    expect((await client.request('threadSection/create', { name: '  ' })).error?.message).toBe('section name must not be empty');

    expect(await client.call('threadSection/delete', { sectionId: work.id })).toEqual({});
    await watcher.waitUntil(() => watcher.notifications('thread/section/changed').length >= 6 || undefined, 'the members leaving');
    expect(watcher.notifications('thread/section/changed').slice(4).map((n) => n.params)).toEqual([
      { threadId: t2.id, sectionId: null },
      { threadId: t1.id, sectionId: null },
    ]);
    expect((await client.call<{ data: Section[] }>('threadSection/list', {})).data).toEqual([later]);
    expect((await listIds(client, { sectionId: null })).sort()).toEqual([t1.id, t2.id, t3.id, loose.id].sort());
    expect((await client.request('threadSection/delete', { sectionId: work.id })).error?.message).toBe(`section not found: ${work.id}`);
  });
});
