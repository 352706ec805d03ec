/** The thread index: keyset pagination with ties, filters, search, cursors, row updates. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidCursorError, ThreadIndex, type ThreadListOptions } from '../../src/persistence/thread-index.js';
import { indexRow, makeHome, removeHome } from './fixtures.js';

let home: string;
let index: ThreadIndex;
beforeEach(async () => {
  home = await makeHome();
  index = await ThreadIndex.open(home);
});
afterEach(async () => {
  index.close();
  await removeHome(home);
});

const row = indexRow;

function walk(options: ThreadListOptions): string[][] {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page = index.list({ ...options, cursor });
    pages.push(page.rows.map((r) => r.id));
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 100);
  return pages;
}

describe('ThreadIndex.list', () => {
  it('pages through every thread once, in a stable order when timestamps tie', () => {
    // 23 threads; the first 12 share one creation time, so order among them comes from the id.
    for (let n = 0; n < 23; n++) index.upsert(row(n, { createdAtMs: n < 12 ? 1_000 : 1_000 + n }));
    const pages = walk({ limit: 5 });
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    const ids = pages.flat();
    const expected = Array.from({ length: 23 }, (_, n) => row(n, { createdAtMs: n < 12 ? 1_000 : 1_000 + n }))
      .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(23);
    expect(walk({ limit: 7, sortDirection: 'asc' }).flat()).toEqual([...expected].reverse());
  });

  it('keeps its place when a row is added ahead of the cursor between pages', () => {
    for (let n = 0; n < 10; n++) index.upsert(row(n));
    const first = index.list({ limit: 4 });
    index.upsert(row(99, { createdAtMs: 9_999 }));
    const second = index.list({ limit: 4, cursor: first.nextCursor });
    expect([...first.rows, ...second.rows].map((r) => r.id)).toEqual([9, 8, 7, 6, 5, 4, 3, 2].map((n) => row(n).id));
  });

  it('sorts by update time when asked', () => {
    index.upsert(row(1, { updatedAtMs: 30 }));
    index.upsert(row(2, { updatedAtMs: 10 }));
    index.upsert(row(3, { updatedAtMs: 20 }));
    expect(index.list({ sortKey: 'updated_at' }).rows.map((r) => r.id)).toEqual([row(1).id, row(3).id, row(2).id]);
    expect(index.list({ sortKey: 'created_at' }).rows.map((r) => r.id)).toEqual([row(3).id, row(2).id, row(1).id]);
  });

  it('filters by archived flag, cwd, provider and source', () => {
    index.upsert(row(1));
    index.upsert(row(2, { archived: true }));
    index.upsert(row(3, { cwd: '/b' }));
    index.upsert(row(4, { modelProvider: 'mock' }));
    index.upsert(row(5, { source: 'cli' }));
    const ids = (o: ThreadListOptions) => index.list(o).rows.map((r) => Number(r.id.slice(-4)));
    expect(ids({})).toEqual([5, 4, 3, 1]);
    expect(ids({ archived: true })).toEqual([2]);
    expect(ids({ cwd: '/b' })).toEqual([3]);
    expect(ids({ cwd: ['/a', '/b'] })).toEqual([5, 4, 3, 1]);
    expect(ids({ modelProviders: ['mock'] })).toEqual([4]);
    expect(ids({ modelProviders: ['mock', 'openai'], sources: ['vscode'] })).toEqual([4, 3, 1]);
    expect(ids({ sources: [] })).toEqual([5, 4, 3, 1]);
    expect(ids({ cwd: '/nowhere' })).toEqual([]);
  });

  it('searches previews and names as case-insensitive substrings', () => {
    index.upsert(row(1, { preview: 'Fix the flaky LOGIN test' }));
    index.upsert(row(2, { preview: 'add a message on startup' }));
    index.upsert(row(3, { preview: 'unrelated', name: 'Login redesign' }));
    index.upsert(row(4, { preview: 'a 100% "quoted" thing_x' }));
    const ids = (search: string) => index.list({ search }).rows.map((r) => Number(r.id.slice(-4)));
    expect(ids('login')).toEqual([3, 1]);
    expect(ids('message on')).toEqual([2]);
    expect(ids('flaky login')).toEqual([1]);
    expect(ids('"quoted"')).toEqual([4]);
    expect(ids('100%')).toEqual([4]);
    expect(ids('g_x')).toEqual([4]);
    expect(ids('%')).toEqual([4]);
    expect(ids('IN')).toEqual([4, 3, 1]);
    expect(ids('nothing like this')).toEqual([]);
    expect(ids('   ')).toEqual([4, 3, 2, 1]);
  });

  it('finds a renamed thread by its new name and not by its old one', () => {
    index.upsert(row(1, { name: 'alpha plan' }));
    index.setName(row(1).id, 'beta plan');
    expect(index.list({ search: 'alpha' }).rows).toEqual([]);
    expect(index.list({ search: 'beta' }).rows.map((r) => r.id)).toEqual([row(1).id]);
  });

  it('rejects a cursor made for another order, or garbage', () => {
    for (let n = 0; n < 3; n++) index.upsert(row(n));
    const page = index.list({ limit: 1 });
    expect(() => index.list({ cursor: page.nextCursor, sortKey: 'updated_at' })).toThrow(InvalidCursorError);
    expect(() => index.list({ cursor: page.nextCursor, sortDirection: 'asc' })).toThrow(/made for sort created_at desc/);
    expect(() => index.list({ cursor: 'not-a-cursor' })).toThrow(InvalidCursorError);
  });

  it('returns no cursor on the last page, and an empty page for an empty index', () => {
    expect(index.list({})).toEqual({ rows: [], nextCursor: null });
    for (let n = 0; n < 4; n++) index.upsert(row(n));
    expect(index.list({ limit: 4 }).nextCursor).toBeNull();
    expect(index.list({ limit: 3 }).nextCursor).not.toBeNull();
  });
});

describe('ThreadIndex row updates', () => {
  it('upserts, gets and counts rows', () => {
    index.upsert(row(1));
    index.upsert(row(1, { model: 'gpt-5.1', forkedFromId: 'src' }));
    index.upsert(row(2, { archived: true }));
    expect(index.get(row(1).id)).toEqual(row(1, { model: 'gpt-5.1', forkedFromId: 'src' }));
    expect(index.get('missing')).toBeNull();
    expect(index.count()).toBe(2);
  });

  it('touch moves the update time and keeps the first preview', () => {
    index.upsert(row(1, { preview: '' }));
    expect(index.touch(row(1).id, 9_000, '  first message  ')).toBe(true);
    expect(index.touch(row(1).id, 9_500, 'second message')).toBe(true);
    expect(index.touch(row(1).id, 9_600)).toBe(true);
    expect(index.get(row(1).id)).toMatchObject({ updatedAtMs: 9_600, preview: 'first message' });
    expect(index.touch('missing', 1)).toBe(false);
  });

  it('searches the first 4096 characters of a name (a name of megabytes is not indexed whole)', () => {
    index.upsert(row(1, { name: `${'n'.repeat(4000)}early bird${'n'.repeat(10_000)}late owl` }));
    for (const search of ['early bird', 'EARLY', 'ea']) expect(index.list({ search }).rows.map((r) => r.id)).toEqual([row(1).id]);
    for (const search of ['late owl', 'ow']) expect(index.list({ search }).rows).toEqual([]);
    // The name itself is kept whole.
    expect(index.get(row(1).id)?.name).toHaveLength(14_018);
  });

  it('cuts previews to 200 characters', () => {
    index.upsert(row(1, { preview: 'é'.repeat(500) }));
    expect(index.get(row(1).id)?.preview).toBe('é'.repeat(200));
  });

  it('sets names and archive state, reporting unknown ids', () => {
    index.upsert(row(1));
    expect(index.setName(row(1).id, 'named')).toBe(true);
    expect(index.setArchived(row(1).id, true, '/home/archived_sessions/x.jsonl')).toBe(true);
    expect(index.get(row(1).id)).toMatchObject({ name: 'named', archived: true, path: '/home/archived_sessions/x.jsonl' });
    expect(index.setName('missing', 'x')).toBe(false);
    expect(index.setArchived('missing', true, '/x')).toBe(false);
  });

  it('reports its schema version and keeps its file private', () => {
    expect(index.schemaVersion).toBe(2);
    expect(index.openOutcome).toBe('created');
    expect(index.path).toBe(path.join(home, 'state.sqlite'));
    expect(fs.statSync(index.path).mode & 0o777).toBe(0o600);
  });
});
