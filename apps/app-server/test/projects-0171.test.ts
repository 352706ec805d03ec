/**
 * Contract tests of projects over the real server (real index and thread-state store under a
 * temp home, the scripted model), every message checked against our schemas and the 0.171
 * reference (0.130 for a 0.130 client): `project/list|read|create|import|update|move|delete`,
 * `project/changed`, `thread/project/updated`, `Thread.projectId`, `thread/start.projectId`,
 * `thread/metadata/update.projectId`, the `projectId` filter of `thread/list`, and the projects
 * surviving a restart of the server.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { harnessPerTest, restartServer, type Harness } from './support/harness.js';
import { startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
const UNKNOWN = '01a22b00-1111-7222-8333-944455556666';

interface Project {
  id: string;
  name: string;
  roots: Array<{ path: string }>;
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  recencyAt?: number | null;
}
interface Page {
  data: Project[];
  nextCursor: string | null;
}
type ProjectThread = { id: string; projectId: string | null; recencyAt?: number | null };

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const create = async (client: WireClient, name: string, extra: Record<string, unknown> = {}) =>
  (await client.call<{ project: Project }>('project/create', { idempotencyKey: `key-${name}`, name, roots: [], ...extra })).project;
const names = async (client: WireClient, params: Record<string, unknown> = {}) => (await client.call<Page>('project/list', params)).data.map((p) => p.name);
const listIds = async (client: WireClient, params: Record<string, unknown>) =>
  (await client.call<{ data: ProjectThread[] }>('thread/list', { sourceKinds: ['vscode'], ...params })).data.map((t) => t.id);
const errorOf = async (client: WireClient, method: string, params: unknown) => (await client.request(method, params)).error;

describe('project/*', () => {
  it('creates, reads, updates and deletes projects, announcing each change to every current client', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    expect(await errorOf(client, 'project/create', { idempotencyKey: 'd', name: 'D', roots: [{ path: '/srv/deputy/' }, { path: '/srv/deputy' }] })).toMatchObject({
      code: -32602,
      message: 'duplicate project root: /srv/deputy',
    });
    const created = await create(client, ' Deputy ', { roots: [{ path: '/srv/deputy/' }], metadata: { color: 'blue' } });
    expect(created).toMatchObject({ name: 'Deputy', roots: [{ path: '/srv/deputy' }], metadata: { color: 'blue' }, recencyAt: null });
    expect(created.updatedAt).toBe(created.createdAt);
    expect(await client.call('project/read', { projectId: created.id })).toEqual({ project: created });

    const updated = (await client.call<{ project: Project }>('project/update', { projectId: created.id, name: 'Renamed', metadata: {} })).project;
    expect(updated).toMatchObject({ id: created.id, name: 'Renamed', roots: [{ path: '/srv/deputy' }], metadata: {} });
    const kept = (await client.call<{ project: Project }>('project/update', { projectId: created.id, name: null, roots: [{ path: '/srv/other' }] })).project;
    expect(kept).toMatchObject({ name: 'Renamed', roots: [{ path: '/srv/other' }] });

    expect(await client.call('project/delete', { projectId: created.id })).toEqual({});
    const changes = await watcher.waitUntil(() => {
      const n = watcher.notifications('project/changed');
      return n.length >= 4 ? n.map((x) => x.params) : undefined;
    }, 'four project changes');
    expect(changes).toEqual(['created', 'updated', 'updated', 'deleted'].map((changeType) => ({ projectId: created.id, changeType })));
    expect(await client.call('project/list', {})).toEqual({ data: [], nextCursor: null });
    expect((await errorOf(client, 'project/read', { projectId: created.id }))?.message).toBe(`project not found: ${created.id}`);
  });

  it('returns the first project again for a repeated idempotency key, without a second create', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    const first = await create(client, 'Once');
    const again = await create(client, 'Once', { roots: [{ path: '/elsewhere' }] });
    expect(again).toEqual(first);
    const other = (await client.call<{ project: Project }>('project/create', { idempotencyKey: 'another', name: 'Once', roots: [] })).project;
    expect(other.id).not.toBe(first.id);
    await watcher.waitUntil(() => watcher.notifications('project/changed').length >= 2 || undefined, 'two creates');
    expect(watcher.notifications('project/changed').map((n) => n.params.projectId)).toEqual([first.id, other.id]);
    expect(await names(client)).toEqual(['Once', 'Once']);
  });

  it('orders projects by move and pages the list by cursor', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const [a, b, c] = [await create(client, 'A'), await create(client, 'B'), await create(client, 'C')];
    expect(await names(client)).toEqual(['A', 'B', 'C']);
    expect(await client.call('project/move', { projectId: c.id, beforeProjectId: a.id })).toEqual({});
    expect(await names(client)).toEqual(['C', 'A', 'B']);
    await client.call('project/move', { projectId: a.id, beforeProjectId: null });
    expect(await names(client)).toEqual(['C', 'B', 'A']);
    await client.call('project/move', { projectId: a.id, beforeProjectId: b.id });
    expect(await names(client)).toEqual(['C', 'A', 'B']);
    expect(await names(client, { sortKey: 'position', sortDirection: 'desc' })).toEqual(['B', 'A', 'C']);

    const first = await client.call<Page>('project/list', { limit: 2 });
    expect(first).toEqual({ data: [expect.objectContaining({ name: 'C' }), expect.objectContaining({ name: 'A' })], nextCursor: a.id });
    expect(await client.call<Page>('project/list', { limit: 2, cursor: first.nextCursor })).toEqual({ data: [expect.objectContaining({ id: b.id })], nextCursor: null });

    expect(await errorOf(client, 'project/list', { cursor: 'nope' })).toMatchObject({ code: -32602, message: 'invalid project cursor: nope' });
    expect(await errorOf(client, 'project/move', { projectId: a.id, beforeProjectId: a.id })).toMatchObject({ code: -32602, message: `project ${a.id} cannot be moved before itself` });
    expect(await errorOf(client, 'project/move', { projectId: a.id, beforeProjectId: UNKNOWN })).toMatchObject({ code: -32602, message: `before project not found: ${UNKNOWN}` });
    expect(await names(client)).toEqual(['C', 'A', 'B']);
  });

  it('refuses bad input with precise errors, and experimental methods without experimentalApi', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    // Codes and texts as the 0.171 reference answers them.
    expect(await errorOf(client, 'project/create', { idempotencyKey: 'k', name: '  ', roots: [] })).toMatchObject({ code: -32602, message: 'project name must not be empty' });
    expect(await errorOf(client, 'project/create', { idempotencyKey: '', name: 'x', roots: [] })).toMatchObject({ code: -32602, message: 'idempotencyKey must not be empty' });
    expect((await errorOf(client, 'project/create', { idempotencyKey: 'k', name: 'x', roots: [{ path: 'relative/dir' }] }))?.code).toBe(-32600);
    expect((await errorOf(client, 'project/create', { name: 'x', roots: [] }))?.code).toBe(-32600);
    for (const [method, params] of [
      ['project/read', { projectId: UNKNOWN }],
      ['project/update', { projectId: UNKNOWN, name: 'x' }],
      ['project/move', { projectId: UNKNOWN }],
      ['project/delete', { projectId: UNKNOWN }],
    ] as const) {
      expect(await errorOf(client, method, params)).toMatchObject({ code: -32602, message: `project not found: ${UNKNOWN}` });
    }
    const project = await create(client, 'P');
    expect((await errorOf(client, 'project/update', { projectId: project.id, name: '' }))?.message).toBe('project name must not be empty');
    expect(await errorOf(client, 'project/import', { idempotencyKey: 'i', name: 'I', roots: [], threads: [UNKNOWN] })).toMatchObject({ code: -32602, message: `thread not found: ${UNKNOWN}` });
    expect(await names(client)).toEqual(['P']);

    const stable = await h.connect({ capabilities: { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] } });
    expect((await errorOf(stable, 'project/list', {}))?.message).toBe('project/list requires experimentalApi capability');
  });
});

describe('threads in projects', () => {
  it('puts threads into projects on start, import and metadata update, filters thread/list by project and frees them on delete', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    const work = await create(client, 'Work');
    const loose = await startThread(client);
    const started = await client.call<{ thread: ProjectThread }>('thread/start', { projectId: work.id });
    expect(started.thread.projectId).toBe(work.id);
    const startedNote = await watcher.waitForNotification('thread/started', (p) => (p.thread as ProjectThread).id === started.thread.id);
    expect((startedNote.params.thread as ProjectThread).projectId).toBe(work.id);
    await watcher.waitForNotification('thread/project/updated', (p) => p.threadId === started.thread.id && p.projectId === work.id);
    expect(await errorOf(client, 'thread/start', { projectId: UNKNOWN })).toMatchObject({ code: -32600, message: `project not found: ${UNKNOWN}` });

    const [i1, i2] = [await startThread(client), await startThread(client)];
    const imported = (await client.call<{ project: Project }>('project/import', { idempotencyKey: 'imp', name: 'Imported', roots: [], threads: [i1.id, i2.id] })).project;
    for (const t of [i1, i2]) await watcher.waitForNotification('thread/project/updated', (p) => p.threadId === t.id && p.projectId === imported.id);
    expect(imported.recencyAt).toBe(Math.max(i1.updatedAt, i2.updatedAt));

    const moved = await client.call<{ thread: ProjectThread }>('thread/metadata/update', { threadId: loose.id, projectId: work.id });
    expect(moved.thread).toMatchObject({ id: loose.id, projectId: work.id });
    await watcher.waitForNotification('thread/project/updated', (p) => p.threadId === loose.id && p.projectId === work.id);
    expect((await client.call<{ thread: ProjectThread }>('thread/read', { threadId: loose.id })).thread.projectId).toBe(work.id);

    expect(new Set(await listIds(client, { projectId: work.id }))).toEqual(new Set([loose.id, started.thread.id]));
    expect(new Set(await listIds(client, { projectId: imported.id }))).toEqual(new Set([i1.id, i2.id]));
    expect(await listIds(client, { projectId: null })).toEqual([]);
    expect(await errorOf(client, 'thread/list', { projectId: UNKNOWN })).toMatchObject({ code: -32602, message: `project not found: ${UNKNOWN}` });
    const all = await listIds(client, {});
    expect(all).toHaveLength(4);
    const page = await client.call<{ data: ProjectThread[]; nextCursor: string | null }>('thread/list', { sourceKinds: ['vscode'], projectId: imported.id, limit: 1, sortKey: 'created_at' });
    expect(page.data.map((t) => t.id)).toEqual([i2.id]);
    expect(await listIds(client, { projectId: imported.id, limit: 1, sortKey: 'created_at', cursor: page.nextCursor })).toEqual([i1.id]);

    // "" takes a thread out of its project; null (or nothing) changes nothing and is refused.
    expect((await client.call<{ thread: ProjectThread }>('thread/metadata/update', { threadId: loose.id, projectId: '' })).thread.projectId).toBeNull();
    await watcher.waitForNotification('thread/project/updated', (p) => p.threadId === loose.id && p.projectId === null);
    expect(await errorOf(client, 'thread/metadata/update', { threadId: i1.id, projectId: null })).toMatchObject({
      code: -32600,
      message: 'thread metadata update must include at least one field',
    });
    expect((await client.call<{ thread: ProjectThread }>('thread/read', { threadId: i1.id })).thread.projectId).toBe(imported.id);
    expect(await listIds(client, { projectId: null })).toEqual([loose.id]);
    expect(await errorOf(client, 'thread/metadata/update', { threadId: loose.id, projectId: UNKNOWN })).toMatchObject({ code: -32600, message: `project not found: ${UNKNOWN}` });
    expect((await errorOf(client, 'thread/metadata/update', { threadId: loose.id, gitInfo: { branch: 'main' } }))?.code).toBe(-32600);

    const empty = await create(client, 'Empty');
    // Projects without threads come last in both directions.
    for (const sortDirection of ['asc', 'desc']) {
      expect(new Set((await names(client, { sortKey: 'recencyAt', sortDirection })).slice(0, 2))).toEqual(new Set(['Work', 'Imported']));
      expect((await names(client, { sortKey: 'recencyAt', sortDirection })).at(-1)).toBe(empty.name);
    }

    await client.call('project/delete', { projectId: imported.id });
    for (const t of [i1, i2]) await watcher.waitForNotification('thread/project/updated', (p) => p.threadId === t.id && p.projectId === null);
    expect(new Set(await listIds(client, { projectId: null }))).toEqual(new Set([loose.id, i1.id, i2.id]));
    expect((await client.call<{ thread: ProjectThread }>('thread/read', { threadId: i1.id })).thread.projectId).toBeNull();
  });

  it('sends Thread.projectId to a 0.130 client but no project notifications', async () => {
    const current = await h.connect({ capabilities: CURRENT });
    const old = await h.connect({ capabilities: {}, clientInfo: { name: 'codex-tui', version: '0.130.0' } });
    const project = await create(current, 'P');
    const thread = await startThread(current);
    await current.call('thread/metadata/update', { threadId: thread.id, projectId: project.id });
    await current.waitForNotification('thread/project/updated', (p) => p.threadId === thread.id);
    const listed = await old.call<{ data: ProjectThread[] }>('thread/list', { sourceKinds: ['vscode'] });
    expect(listed.data.map((t) => t.projectId)).toEqual([project.id]);
    expect(old.notifications('project/changed')).toEqual([]);
    expect(old.notifications('thread/project/updated')).toEqual([]);
  });
});

describe('persistence', () => {
  it('keeps projects, their order and their threads across a restart', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const [a, b] = [await create(client, 'A', { metadata: { k: 'v' } }), await create(client, 'B')];
    await client.call('project/move', { projectId: b.id, beforeProjectId: a.id });
    const thread = await startThread(client, { projectId: a.id });
    const before = await client.call<Page>('project/list', {});
    const restarted = await restartServer(h, CURRENT);
    const again = restarted.client;
    try {
      expect(await again.call<Page>('project/list', {})).toEqual(before);
      expect(before.data.map((p) => p.name)).toEqual(['B', 'A']);
      expect((await again.call<{ thread: ProjectThread }>('thread/read', { threadId: thread.id })).thread.projectId).toBe(a.id);
      expect(await listIds(again, { projectId: a.id })).toEqual([thread.id]);
      // The idempotency key is remembered too.
      expect((await create(again, 'A')).id).toBe(a.id);
    } finally {
      await restarted.close();
    }
  });
});
