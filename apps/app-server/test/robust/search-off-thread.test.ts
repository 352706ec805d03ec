/**
 * Long index work off the event loop (docs/app-server.md "Limits"): a `thread/list` whose
 * `searchTerm` makes SQLite work for a long time (a trigram phrase of one repeated character over
 * thousands of threads that hold it) runs on the index's worker thread, so another connection's
 * request sent after it is answered before it, and the event loop of the server (this process:
 * the harness runs the server in-process) never stalls for as long as the search takes.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

const require = createRequire(import.meta.url);
const THREADS = 3000;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** Adds `THREADS` rows whose previews are one repeated character, through a second connection. */
function seedIndex(home: string): void {
  const Database = require('better-sqlite3') as new (file: string) => {
    prepare(sql: string): { run(...args: unknown[]): unknown };
    transaction(fn: () => void): () => void;
    close(): void;
  };
  const db = new Database(join(home, 'state.sqlite'));
  const insert = db.prepare(
    'INSERT INTO threads(id, created_at_ms, updated_at_ms, cwd, model_provider, model, source, preview, name, archived, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?)',
  );
  db.transaction(() => {
    for (let n = 0; n < THREADS; n++) {
      const id = `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
      insert.run(id, 1_000 + n, 1_000 + n, '/seeded', 'mock', 'mock-model', 'cli', 'a'.repeat(200), `/nowhere/rollout-${id}.jsonl`);
    }
  })();
  db.close();
}

it('answers another connection while a long search runs, and the event loop stays free', async () => {
  const searcher = await h.connect({ name: 'searcher' });
  const other = await h.connect({ name: 'other' });
  // The first listing opens the index; then the rows are added behind the server's back.
  await searcher.call('thread/list', {});
  seedIndex(h.temp.home);

  const order: string[] = [];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const search = searcher.call<{ data: Array<{ preview: string }> }>('thread/list', { searchTerm: 'a'.repeat(40), limit: 2 }).then((result) => {
    order.push('search');
    return { result, ms: performance.now() - started };
  });
  const plain = await other.call<{ data: unknown[] }>('thread/list', { limit: 1, cwd: '/seeded' });
  order.push('other');
  const { result, ms } = await search;
  delay.disable();

  // The search found the seeded rows, and the other connection did not wait for it.
  expect(result.data).toHaveLength(2);
  expect(result.data[0]?.preview).toBe('a'.repeat(200));
  expect(plain.data).toHaveLength(1);
  expect(order).toEqual(['other', 'search']);
  // Run on the event loop, the search would have held it for its whole duration.
  expect(delay.max / 1e6).toBeLessThan(ms / 2);
}, 60_000);
