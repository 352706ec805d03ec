/**
 * Contract tests of thread search over the real server (real index and rollouts under a temp
 * home, the scripted model), every message checked against our schemas and the 0.171 reference:
 * `thread/search` by name, preview and message text, paging, `thread/search/stream` with its
 * `thread/search/partial` batches, the cancels, and `thread/searchOccurrences`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { runTurn, startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };

interface Found {
  thread: { id: string; name: string | null; preview: string; projectId: string | null };
  snippet: string;
}
interface SearchPage {
  data: Found[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}
interface Occurrence {
  turnId: string;
  itemId: string;
  snippet: string;
  snippetMatchRange: { start: number; end: number };
  turnCursor: string;
}

let h: Harness;
let client: WireClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  client = await h.connect({ capabilities: CURRENT });
  // alpha: found by its preview; named: by its name; gamma: only by a later message.
  const alpha = await startThread(client);
  await runTurn(client, alpha.id, 'Alpha deploy checklist');
  const named = await startThread(client);
  await runTurn(client, named.id, 'something else');
  await client.call('thread/name/set', { threadId: named.id, name: 'Release NEEDLE notes' });
  const gamma = await startThread(client);
  await runTurn(client, gamma.id, 'gamma first');
  await runTurn(client, gamma.id, 'a needle, and another needle here');
  Object.assign(ids, { alpha: alpha.id, named: named.id, gamma: gamma.id });
});
afterAll(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

function searchFor(params: Record<string, unknown>): Promise<SearchPage> {
  return client.call<SearchPage>('thread/search', { sourceKinds: ['vscode'], ...params });
}

describe('thread/search', () => {
  it('finds threads by name, preview and message text, case-insensitively, newest first', async () => {
    const needle = await searchFor({ searchTerm: '  needle ' });
    expect(needle.data.map((f) => f.thread.id)).toEqual([ids.gamma, ids.named]);
    expect(needle.data[0]?.snippet).toBe('a needle, and another needle here');
    expect(needle.data[1]?.snippet).toBe('Release NEEDLE notes');
    expect(needle.data[0]?.thread.projectId).toBeNull();

    const alpha = await searchFor({ searchTerm: 'ALPHA' });
    expect(alpha.data.map((f) => [f.thread.id, f.snippet])).toEqual([[ids.alpha, 'Alpha deploy checklist']]);
    const oldest = await searchFor({ searchTerm: 'needle', sortDirection: 'asc', sortKey: 'recency_at' });
    expect(oldest.data.map((f) => f.thread.id)).toEqual([ids.named, ids.gamma]);
    expect((await searchFor({ searchTerm: 'nowhere to be found' })).data).toEqual([]);
    expect((await searchFor({ searchTerm: 'needle', archived: true })).data).toEqual([]);
  });

  it('pages with the cursor', async () => {
    const first = await searchFor({ searchTerm: 'needle', limit: 1 });
    expect(first.data.map((f) => f.thread.id)).toEqual([ids.gamma]);
    expect(first.nextCursor).not.toBeNull();
    const second = await searchFor({ searchTerm: 'needle', limit: 1, cursor: first.nextCursor });
    expect(second).toMatchObject({ nextCursor: null, backwardsCursor: null });
    expect(second.data.map((f) => f.thread.id)).toEqual([ids.named]);
    expect((await client.request('thread/search', { searchTerm: 'needle', cursor: 'garbage!' })).error?.message).toBe('invalid cursor: garbage!');
  });

  it('streams partial batches to the caller before the same final answer', async () => {
    const plain = await searchFor({ searchTerm: 'needle' });
    const response = await client.request('thread/search/stream', { searchTerm: 'needle', sourceKinds: ['vscode'] }, 'stream-1');
    expect('result' in response ? response.result : response.error).toEqual(plain);
    const partials = client.notifications('thread/search/partial').filter((n) => n.params.requestId === 'stream-1');
    expect(partials.flatMap((n) => (n.params.data as Found[]).map((f) => f.thread.id))).toEqual([ids.gamma, ids.named]);
    const order = client.received.map((m) => ('method' in m ? m.method : `response ${String(m.id)}`));
    expect(order.lastIndexOf('thread/search/partial')).toBeLessThan(order.indexOf('response stream-1'));
  });

  it('answers cancels of finished or unknown searches with {} and refuses bad terms', async () => {
    expect(await client.call('thread/search/cancel', { requestId: 'never-sent' })).toEqual({});
    expect(await client.call('thread/search/stream/cancel', { requestId: 42 })).toEqual({});
    expect((await client.request('thread/search', { searchTerm: '   ' })).error?.message).toBe('searchTerm must not be empty');
    expect((await client.request('thread/search', { searchTerm: 'x'.repeat(65_537) })).error?.message).toBe('searchTerm must be at most 65536 UTF-8 bytes');
    const stable = await h.connect({ capabilities: { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] } });
    expect((await stable.request('thread/search', { searchTerm: 'needle' })).error?.message).toBe('thread/search requires experimentalApi capability');
  });
});

describe('thread/searchOccurrences', () => {
  it('lists every match in the thread messages in order, with ranges and turn cursors', async () => {
    const page = await client.call<{ data: Occurrence[]; nextCursor: string | null }>('thread/searchOccurrences', { threadId: ids.gamma, searchTerm: 'NEEDLE' });
    // The user message has it twice, the echoed agent message twice.
    expect(page.data).toHaveLength(4);
    expect(page.nextCursor).toBeNull();
    for (const o of page.data) expect(o.snippet.slice(o.snippetMatchRange.start, o.snippetMatchRange.end).toLowerCase()).toBe('needle');
    expect(new Set(page.data.map((o) => o.turnId)).size).toBe(1);
    expect(page.data.map((o) => o.itemId)).toEqual(['item-3', 'item-3', 'item-4', 'item-4']);
    const turns = await client.call<{ data: Array<{ id: string }> }>('thread/turns/list', { threadId: ids.gamma, cursor: page.data[0]?.turnCursor });
    expect(turns.data[0]?.id).toBe(page.data[0]?.turnId);

    const first = await client.call<{ data: Occurrence[]; nextCursor: string | null }>('thread/searchOccurrences', { threadId: ids.gamma, searchTerm: 'needle', limit: 3 });
    const rest = await client.call<{ data: Occurrence[]; nextCursor: string | null }>('thread/searchOccurrences', {
      threadId: ids.gamma,
      searchTerm: 'needle',
      limit: 3,
      cursor: first.nextCursor,
    });
    expect([...first.data, ...rest.data]).toEqual(page.data);
    expect((await client.request('thread/searchOccurrences', { threadId: '00000000-0000-0000-0000-000000000000', searchTerm: 'x' })).error?.message).toBe(
      'thread not loaded: 00000000-0000-0000-0000-000000000000',
    );
  });
});
