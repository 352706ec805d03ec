/**
 * Contract tests of thread attachments over the real server (real index and thread-state store
 * under a temp home, the scripted model), every message checked against our schemas and the 0.171
 * reference: `thread/attachment/add|list|remove`, `thread/attachmentOwner/list`,
 * `thread/attachment/updated` (current clients only), and the attachments surviving a restart.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { harnessPerTest, restartServer, type Harness } from './support/harness.js';
import { runTurn, startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
const UNKNOWN = '01a22b00-1111-7222-8333-944455556666';

interface Attachment {
  id: string;
  attachmentType: string;
  identityKey: string;
  payload: unknown;
  createdAt: number;
}
interface AddResult {
  attachment: Attachment;
  outcome: 'created' | 'existing';
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const add = (client: WireClient, threadId: string, identityKey: string, payload: unknown, attachmentType = 'pr') =>
  client.call<AddResult>('thread/attachment/add', { threadId, attachmentType, identityKey, payload });
const list = (client: WireClient, params: Record<string, unknown>) => client.call<Page<Attachment>>('thread/attachment/list', params);
const owners = (client: WireClient, params: Record<string, unknown>) =>
  client.call<Page<{ threadId: string; archived: boolean }>>('thread/attachmentOwner/list', { attachmentType: 'pr', ...params });

describe('thread/attachment/*', () => {
  it('adds idempotently, lists in order with paging, removes, and announces each change to current clients only', async () => {
    // None of these methods is experimental: a client without experimentalApi uses them.
    const client = await h.connect({ capabilities: CURRENT });
    const watcher = await h.connect({ capabilities: CURRENT });
    const old = await h.connect({ capabilities: {}, clientInfo: { name: 'codex-tui', version: '0.130.0' } });
    const thread = await startThread(client);
    const threadId = thread.id;

    const first = await add(client, threadId, 'github.com/o/r/pull/1', { url: 'https://github.com/o/r/pull/1', n: [1, 2] });
    expect(first).toMatchObject({ outcome: 'created', attachment: { attachmentType: 'pr', identityKey: 'github.com/o/r/pull/1', payload: { url: 'https://github.com/o/r/pull/1', n: [1, 2] } } });
    expect(first.attachment.createdAt).toBeGreaterThan(1_600_000_000);
    const again = await add(client, threadId, 'github.com/o/r/pull/1', { other: true });
    expect(again).toEqual({ attachment: first.attachment, outcome: 'existing' });
    const second = (await add(client, threadId, 'k2', null)).attachment;
    const third = (await add(client, threadId, 'k2', 'text', 'note')).attachment;
    expect(new Set([first.attachment.id, second.id, third.id]).size).toBe(3);

    expect(await list(client, { threadId })).toEqual({ data: [first.attachment, second, third], nextCursor: null });
    const page = await list(client, { threadId, limit: 2 });
    expect(page).toEqual({ data: [first.attachment, second], nextCursor: second.id });
    expect(await list(client, { threadId, limit: 2, cursor: page.nextCursor })).toEqual({ data: [third], nextCursor: null });
    expect(await list(client, { threadId: UNKNOWN })).toEqual({ data: [], nextCursor: null });

    expect(await client.call('thread/attachment/remove', { threadId, attachmentType: 'pr', identityKey: 'k2' })).toEqual({});
    // Removing what the thread does not hold changes nothing and announces nothing.
    expect(await client.call('thread/attachment/remove', { threadId, attachmentType: 'pr', identityKey: 'k2' })).toEqual({});
    expect((await list(client, { threadId })).data).toEqual([first.attachment, third]);

    const updates = await watcher.waitUntil(() => {
      const n = watcher.notifications('thread/attachment/updated');
      return n.length >= 4 ? n.map((x) => x.params) : undefined;
    }, 'four attachment updates');
    expect(updates).toEqual([
      { threadId, attachmentId: first.attachment.id, attachmentType: 'pr', identityKey: 'github.com/o/r/pull/1', operation: 'created' },
      { threadId, attachmentId: second.id, attachmentType: 'pr', identityKey: 'k2', operation: 'created' },
      { threadId, attachmentId: third.id, attachmentType: 'note', identityKey: 'k2', operation: 'created' },
      { threadId, attachmentId: second.id, attachmentType: 'pr', identityKey: 'k2', operation: 'deleted' },
    ]);
    // The 0.130 client was connected the whole time and never hears of attachments.
    await old.call('thread/list', { sourceKinds: ['vscode'] });
    expect(old.notifications('thread/attachment/updated')).toEqual([]);
  });

  it('finds the owners of an identity, filtered by archived, and forgets a deleted thread’s attachments', async () => {
    const client = await h.connect({ capabilities: { ...CURRENT, experimentalApi: true } });
    const [a, b, c] = [await startThread(client), await startThread(client), await startThread(client)];
    await runTurn(client, b.id, 'hello');
    for (const t of [a, b]) await add(client, t.id, 'shared', { t: t.id });
    await add(client, c.id, 'other', {});
    await client.call('thread/archive', { threadId: b.id });

    const sorted = [a.id, b.id].sort();
    const all = await owners(client, { identityKey: 'shared' });
    expect(all).toEqual({ data: sorted.map((threadId) => ({ threadId, archived: threadId === b.id })), nextCursor: null });
    expect((await owners(client, { identityKey: 'shared', archived: false })).data).toEqual([{ threadId: a.id, archived: false }]);
    expect((await owners(client, { identityKey: 'shared', archived: true })).data).toEqual([{ threadId: b.id, archived: true }]);
    const firstPage = await owners(client, { identityKey: 'shared', limit: 1 });
    expect(firstPage).toEqual({ data: [expect.objectContaining({ threadId: sorted[0] })], nextCursor: sorted[0] });
    expect((await owners(client, { identityKey: 'shared', limit: 1, cursor: firstPage.nextCursor })).data).toEqual([
      expect.objectContaining({ threadId: sorted[1] }),
    ]);
    expect(await owners(client, { identityKey: 'nobody' })).toEqual({ data: [], nextCursor: null });

    await client.call('thread/delete', { threadId: a.id });
    expect((await owners(client, { identityKey: 'shared' })).data).toEqual([{ threadId: b.id, archived: true }]);
    expect(await list(client, { threadId: a.id })).toEqual({ data: [], nextCursor: null });
  });

  it('refuses bad input with precise errors and keeps serving', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const thread = await startThread(client);
    const errorOf = async (method: string, params: unknown) => (await client.request(method, params)).error;
    expect((await errorOf('thread/attachment/add', { threadId: thread.id, attachmentType: 'pr', identityKey: 'k' }))?.code).toBe(-32600);
    expect(await errorOf('thread/attachment/add', { threadId: UNKNOWN, attachmentType: 'pr', identityKey: 'k', payload: 1 })).toMatchObject({
      code: -32600,
      message: `no rollout found for thread id ${UNKNOWN}`,
    });
    expect(await errorOf('thread/attachment/remove', { threadId: 'not-an-id', attachmentType: 'pr', identityKey: 'k' })).toMatchObject({ code: -32600 });
    expect(await errorOf('thread/attachment/list', { threadId: thread.id, cursor: 'bad' })).toMatchObject({ code: -32600, message: 'invalid cursor: bad' });
    const ephemeral = await startThread(client, { ephemeral: true });
    expect(await errorOf('thread/attachment/add', { threadId: ephemeral.id, attachmentType: 'pr', identityKey: 'k', payload: 1 })).toMatchObject({
      code: -32600,
      message: `thread ${ephemeral.id} is ephemeral; its state is not stored`,
    });
    expect((await add(client, thread.id, 'k', 1)).outcome).toBe('created');
  });
});

describe('persistence', () => {
  it('keeps attachments and their identities across a restart', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'hello');
    const stored = (await add(client, thread.id, 'kept', { deep: { list: [1, 'two', null] } })).attachment;
    const restarted = await restartServer(h, CURRENT);
    try {
      const again = restarted.client;
      expect(await list(again, { threadId: thread.id })).toEqual({ data: [stored], nextCursor: null });
      expect(await add(again, thread.id, 'kept', 'new payload')).toEqual({ attachment: stored, outcome: 'existing' });
      expect((await owners(again, { identityKey: 'kept' })).data).toEqual([{ threadId: thread.id, archived: false }]);
    } finally {
      await restarted.close();
    }
  });
});
