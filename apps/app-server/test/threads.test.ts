/**
 * Contract tests of the thread methods (docs/app-server.md "Methods served") over in-memory
 * transports with the wire sniffer.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { runTurn, startThread, type WireThread } from './support/turns.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

describe('thread/start', () => {
  it('answers with the thread session, then broadcasts thread/started to every initialized connection', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const result = await a.call<Record<string, unknown> & { thread: WireThread }>('thread/start', { cwd: 'sub', sandbox: 'workspace-write' });
    expect(result).toMatchObject({
      model: 'mock-model',
      modelProvider: 'mock',
      cwd: `${h.temp.cwd}/sub`,
      approvalPolicy: 'never',
      approvalsReviewer: 'user',
      sandbox: { type: 'workspaceWrite', writableRoots: [], networkAccess: false },
      permissionProfile: { type: 'managed' },
      reasoningEffort: null,
    });
    expect(result.thread).toMatchObject({ preview: '', ephemeral: false, status: { type: 'idle' }, source: 'vscode', name: null, turns: [] });
    expect(result.thread.path && existsSync(result.thread.path)).toBe(true);
    const started = await b.waitForNotification('thread/started');
    expect((started.params.thread as WireThread).id).toBe(result.thread.id);
    const aMessages = a.received.map((m) => ('method' in m ? m.method : `response`));
    expect(aMessages.indexOf('thread/started')).toBeGreaterThan(aMessages.lastIndexOf('response'));
  });

  it('applies the config object and refuses a foreign provider or an ephemeral fork', async () => {
    const client = await h.connect();
    const result = await client.call<Record<string, unknown>>('thread/start', { config: { model_reasoning_effort: 'high', 'model': 'gpt-4.1' } });
    expect(result).toMatchObject({ model: 'gpt-4.1', reasoningEffort: 'high' });
    expect((await client.request('thread/start', { modelProvider: 'openai' })).error?.message).toBe(
      'model provider `openai` is not available: this server runs `mock`',
    );
    const stored = await client.call<{ thread: WireThread }>('thread/start', {});
    expect((await client.request('thread/fork', { threadId: stored.thread.id, ephemeral: true })).error?.message).toMatch(/^ephemeral forks are not supported/);
  });

  it('lists, reads and resumes a thread before its first turn', async () => {
    const a = await h.connect();
    const thread = await startThread(a);
    const list = await a.call<{ data: WireThread[] }>('thread/list', {});
    expect(list.data.map((t) => t.id)).toContain(thread.id);
    const read = await a.call<{ thread: WireThread }>('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns).toEqual([]);
    const b = await h.connect();
    const resumed = await b.call<{ thread: WireThread }>('thread/resume', { threadId: thread.id });
    expect(resumed.thread.id).toBe(thread.id);
  });
});

describe('stored threads', () => {
  it('reads turns with every item kind and synthetic item ids', async () => {
    const client = await h.connect();
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'first message');
    await runTurn(client, thread.id, 'run: echo hello-from-tool');
    const read = await client.call<{ thread: WireThread }>('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.preview).toBe('first message');
    expect(read.thread.turns.map((t) => [t.status, t.itemsView])).toEqual([['completed', 'full'], ['completed', 'full']]);
    const items = read.thread.turns.flatMap((t) => t.items);
    expect(items.map((i) => i.id)).toEqual(items.map((_, n) => `item-${n + 1}`));
    expect(items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage', 'userMessage', 'commandExecution', 'agentMessage']);
    expect(items[3]).toMatchObject({ status: 'completed', exitCode: 0, source: 'agent', aggregatedOutput: expect.stringContaining('hello-from-tool') });
    const bare = await client.call<{ thread: WireThread }>('thread/read', { threadId: thread.id });
    expect(bare.thread.turns).toEqual([]);
  });

  it('answers unknown threads with the reference texts', async () => {
    const client = await h.connect();
    const unknown = '00000000-0000-0000-0000-000000000000';
    expect((await client.request('thread/read', { threadId: unknown })).error?.message).toBe(`thread not loaded: ${unknown}`);
    expect((await client.request('thread/resume', { threadId: unknown })).error?.message).toBe(`no rollout found for thread id ${unknown}`);
    expect((await client.request('thread/fork', { threadId: unknown })).error?.message).toBe(`no rollout found for thread id ${unknown}`);
    expect((await client.request('turn/start', { threadId: unknown, input: [{ type: 'text', text: 'x' }] })).error?.message).toBe(`thread not found: ${unknown}`);
    expect(await client.call('thread/unsubscribe', { threadId: unknown })).toEqual({ status: 'notLoaded' });
  });

  it('pages, sorts and filters thread/list', async () => {
    const client = await h.connect();
    const a = await startThread(client);
    await runTurn(client, a.id, 'message on A');
    const b = await startThread(client, { cwd: 'proj' });
    await runTurn(client, b.id, 'message on B');
    const first = await client.call<{ data: WireThread[]; nextCursor: string | null; backwardsCursor: null }>('thread/list', { limit: 1 });
    expect(first.data.map((t) => t.id)).toEqual([b.id]);
    expect(first.nextCursor).not.toBeNull();
    const second = await client.call<{ data: WireThread[]; nextCursor: string | null }>('thread/list', { limit: 1, cursor: first.nextCursor });
    expect(second.data.map((t) => t.id)).toEqual([a.id]);
    const asc = await client.call<{ data: WireThread[] }>('thread/list', { sortKey: 'updated_at', sortDirection: 'asc' });
    expect(asc.data.map((t) => t.id)).toEqual([a.id, b.id]);
    const byCwd = await client.call<{ data: WireThread[] }>('thread/list', { cwd: `${h.temp.cwd}/proj` });
    expect(byCwd.data.map((t) => t.id)).toEqual([b.id]);
    const search = await client.call<{ data: WireThread[] }>('thread/list', { searchTerm: 'on A' });
    expect(search.data.map((t) => t.id)).toEqual([a.id]);
    const exec = await client.call<{ data: WireThread[] }>('thread/list', { sourceKinds: ['exec'] });
    expect(exec.data).toEqual([]);
    expect((await client.request('thread/list', { cursor: 'garbage' })).error?.code).toBe(-32600);
  });

  it('archives, lists archived, unarchives and refuses to repeat either', async () => {
    const a = await h.connect();
    const observer = await h.connect();
    const thread = await startThread(a);
    await runTurn(a, thread.id, 'to be archived');
    expect(await a.call('thread/archive', { threadId: thread.id })).toEqual({});
    const statuses = observer.notifications('thread/status/changed').filter((n) => n.params.threadId === thread.id);
    expect(statuses.at(-1)?.params.status).toEqual({ type: 'notLoaded' });
    await observer.waitForNotification('thread/archived', (p) => p.threadId === thread.id);
    expect((await a.call<{ data: string[] }>('thread/loaded/list', {})).data).not.toContain(thread.id);
    const archived = await a.call<{ data: WireThread[] }>('thread/list', { archived: true });
    expect(archived.data.map((t) => [t.id, t.status.type])).toEqual([[thread.id, 'notLoaded']]);
    expect((await a.request('thread/archive', { threadId: thread.id })).error?.message).toBe(`no rollout found for thread id ${thread.id}`);
    const back = await a.call<{ thread: WireThread }>('thread/unarchive', { threadId: thread.id });
    expect(back.thread.status).toEqual({ type: 'notLoaded' });
    await observer.waitForNotification('thread/unarchived', (p) => p.threadId === thread.id);
    expect((await a.request('thread/unarchive', { threadId: thread.id })).error?.message).toBe(`no archived rollout found for thread id ${thread.id}`);
    expect((await a.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'x' }] })).error?.message).toBe(`thread not found: ${thread.id}`);
    await a.call('thread/resume', { threadId: thread.id });
    await runTurn(a, thread.id, 'after unarchive');
  });

  it('names loaded and stored threads and broadcasts the new name', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const thread = await startThread(a);
    expect(await a.call('thread/name/set', { threadId: thread.id, name: 'My thread' })).toEqual({});
    const updated = await b.waitForNotification('thread/name/updated');
    expect(updated.params).toEqual({ threadId: thread.id, threadName: 'My thread' });
    expect((await a.request('thread/name/set', { threadId: thread.id, name: '' })).error?.message).toBe('thread name must not be empty');
    await a.call('thread/archive', { threadId: thread.id });
    await a.call('thread/unarchive', { threadId: thread.id });
    await a.call('thread/name/set', { threadId: thread.id, name: 'Renamed while stored' });
    const read = await a.call<{ thread: WireThread }>('thread/read', { threadId: thread.id });
    expect([read.thread.name, read.thread.status.type]).toEqual(['Renamed while stored', 'notLoaded']);
  });
});

describe('subscriptions and forks', () => {
  it('resumes with turns and the last usage, and lists loaded threads with a cursor', async () => {
    const a = await h.connect();
    const t1 = await startThread(a);
    await runTurn(a, t1.id, 'hello');
    const t2 = await startThread(a);
    const b = await h.connect();
    const resumed = await b.call<{ thread: WireThread }>('thread/resume', { threadId: t1.id });
    expect(resumed.thread.turns).toHaveLength(1);
    const usage = await b.waitForNotification('thread/tokenUsage/updated');
    expect(usage.params.threadId).toBe(t1.id);
    const page = await a.call<{ data: string[]; nextCursor: string | null }>('thread/loaded/list', { limit: 1 });
    expect(page).toEqual({ data: [t1.id], nextCursor: t1.id });
    expect(await a.call('thread/loaded/list', { cursor: page.nextCursor })).toEqual({ data: [t2.id], nextCursor: null });
  });

  it('unsubscribes: the thread stays loaded and its turn events stop', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const thread = await startThread(a);
    await b.call('thread/resume', { threadId: thread.id });
    expect(await b.call('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
    expect(await b.call('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'notSubscribed' });
    await runTurn(a, thread.id, 'only a hears this');
    expect(b.notifications('turn/started')).toEqual([]);
    expect(b.notifications('thread/status/changed').length).toBeGreaterThan(0);
    expect((await a.call<{ data: string[] }>('thread/loaded/list', {})).data).toContain(thread.id);
  });

  it('forks with copied turns, then replays usage and broadcasts thread/started', async () => {
    const a = await h.connect();
    const thread = await startThread(a);
    await runTurn(a, thread.id, 'original turn');
    const fork = await a.call<{ thread: WireThread }>('thread/fork', { threadId: thread.id });
    expect(fork.thread.id).not.toBe(thread.id);
    expect(fork.thread).toMatchObject({ forkedFromId: thread.id, preview: 'original turn' });
    expect(fork.thread.turns).toHaveLength(1);
    await a.waitForNotification('thread/started', (p) => (p.thread as WireThread).id === fork.thread.id);
    const forkNotes = a.notifications().filter((n) => n.params.threadId === fork.thread.id || (n.params.thread as WireThread | undefined)?.id === fork.thread.id);
    expect(forkNotes.map((n) => n.method)).toEqual(['thread/tokenUsage/updated', 'thread/started']);
    await runTurn(a, fork.thread.id, 'continue the fork');
  });

  it('rolls back the last turn', async () => {
    const a = await h.connect();
    const thread = await startThread(a);
    await runTurn(a, thread.id, 'keep me');
    await runTurn(a, thread.id, 'drop me');
    const result = await a.call<{ thread: WireThread }>('thread/rollback', { threadId: thread.id, numTurns: 1 });
    expect(result.thread.turns).toHaveLength(1);
    expect(result.thread.turns[0]?.items[0]).toMatchObject({ type: 'userMessage', content: [{ type: 'text', text: 'keep me' }] });
    expect((await a.request('thread/rollback', { threadId: thread.id, numTurns: 0 })).error?.code).toBe(-32600);
  });
});
