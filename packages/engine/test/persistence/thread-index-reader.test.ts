/**
 * The thread index's worker reader (`thread-index-reader.ts`): searches run there give the same
 * pages as on the main thread; a job past its time limit is stopped and the next one runs on a
 * fresh worker; the worker exits when idle; rollout scans read files on the worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ThreadIndex, type ThreadListOptions, type ThreadRow } from '../../src/persistence/thread-index.js';
import { IndexJobTimeoutError, ThreadIndexReader } from '../../src/persistence/thread-index-reader.js';
import { indexRow, makeHome, removeHome } from './fixtures.js';

let home: string;
let index: ThreadIndex;
let readers: ThreadIndexReader[];
beforeEach(async () => {
  home = await makeHome();
  index = await ThreadIndex.open(home);
  readers = [];
});
afterEach(async () => {
  for (const reader of readers) reader.close();
  index.close();
  await removeHome(home);
});

function row(n: number, preview: string, name: string | null = null): ThreadRow {
  return indexRow(n, { preview, name });
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('answers searches on the worker with the same pages, cursors and errors as the main thread', async () => {
  for (let n = 0; n < 60; n++) index.upsert(row(n, `fix the parser ${n}`, n % 7 === 0 ? `Ticket DB-${n}` : null));
  const queries: ThreadListOptions[] = [
    { search: 'parser', limit: 10 },
    { search: 'PARSER 1', limit: 4, sortKey: 'updated_at', sortDirection: 'asc' },
    { search: 'db', limit: 5 },
    { search: 'ticket', limit: 3, sources: ['vscode', 'cli'] },
    { search: 'nothing like this', limit: 5 },
  ];
  for (const options of queries) {
    let cursor: string | null = null;
    do {
      const sync = index.list({ ...options, cursor });
      const worker = await index.listAsync({ ...options, cursor });
      expect(worker).toEqual(sync);
      cursor = sync.nextCursor;
    } while (cursor !== null);
  }
  expect(index.reader.isRunning).toBe(true);
  await expect(index.listAsync({ search: 'parser', cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'invalid_cursor' });
});

it('stops a job past its time limit; the jobs behind it run on a fresh worker', async () => {
  for (let n = 0; n < 3; n++) index.upsert(row(n, 'hello'));
  const reader = new ThreadIndexReader(index.path, { timeoutMs: 200 });
  readers.push(reader);
  // Counting to ten million: about 3.6 s of SQLite here, so far past the limit on any machine,
  // and finite (the stopped worker's thread runs on inside SQLite until the statement returns).
  const slow = reader.all('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT count(*) AS n FROM c', []);
  const behind = reader.all('SELECT count(*) AS n FROM threads', []);
  await expect(slow).rejects.toBeInstanceOf(IndexJobTimeoutError);
  expect(await behind).toEqual([{ n: 3 }]);
  expect(reader.isRunning).toBe(true);
});

it('exits its worker when idle and starts one again for the next job', async () => {
  index.upsert(row(1, 'hello'));
  const reader = new ThreadIndexReader(index.path, { idleMs: 50 });
  readers.push(reader);
  expect(reader.isRunning).toBe(false);
  expect(await reader.all('SELECT id FROM threads', [])).toEqual([{ id: '0000-0001' }]);
  await until(() => !reader.isRunning, 'the idle worker to exit');
  expect(await reader.all('SELECT count(*) AS n FROM threads', [])).toEqual([{ n: 1 }]);
});

it('tells whether a file contains a term, case-insensitively, and false for a missing file', async () => {
  const file = path.join(home, 'rollout.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ text: 'The Quick Brown Fox' })}\n`.repeat(1000));
  expect(await index.reader.fileContains(file, 'quick brown')).toBe(true);
  expect(await index.reader.fileContains(file, 'slow')).toBe(false);
  expect(await index.reader.fileContains(path.join(home, 'missing.jsonl'), 'quick')).toBe(false);
});
