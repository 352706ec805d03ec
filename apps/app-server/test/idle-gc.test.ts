/**
 * The idle collection (`idle-gc.ts`, docs/app-server.md "Limits"): once the loop has been idle
 * after the resident size grew by `GROWTH_BYTES` over the idle base, it collects at the idle
 * ticks `COLLECT_TICKS`, never while busy, and the size it then settles at is the new base. The
 * collector itself is the one V8 gives `--expose-gc`, found at run time.
 */
import { expect, it } from 'vitest';
import { COLLECT_TICKS, fullCollection, GROWTH_BYTES, IdleGc } from '../src/idle-gc.js';

const MiB = 1024 * 1024;
const busy = { utilization: 0.9 };
const idle = { utilization: 0.001 };

/** The idle ticks (1-based) of `count` idle samples at `rss` at which `gc` collected. */
function idleRun(gc: IdleGc, rss: number, count: number): number[] {
  const at: number[] = [];
  for (let tick = 1; tick <= count; tick++) if (gc.tick({ ...idle, rss })) at.push(tick);
  return at;
}

it('collects after a burst once idle, not while busy, and measures growth from where it settled', () => {
  const gc = new IdleGc(() => undefined);
  expect(idleRun(gc, 80 * MiB, 10)).toEqual([]);
  // A burst: the size grows while the loop is busy; nothing runs.
  for (let i = 0; i < 5; i++) expect(gc.tick({ ...busy, rss: 150 * MiB })).toBe(false);
  // Idle again: the collections run at their ticks, then the size settles (here at 100 MiB).
  expect(idleRun(gc, 150 * MiB, Math.max(...COLLECT_TICKS))).toEqual(COLLECT_TICKS);
  expect(idleRun(gc, 100 * MiB, 10)).toEqual([]);
  // Growth under the threshold runs nothing (and becomes the base); growth past it does.
  const base = 100 * MiB + GROWTH_BYTES - 1;
  gc.tick({ ...busy, rss: base });
  expect(idleRun(gc, base, 10)).toEqual([]);
  gc.tick({ ...busy, rss: base + GROWTH_BYTES });
  expect(idleRun(gc, base + GROWTH_BYTES, 10)).toEqual(COLLECT_TICKS);
});

it('finds a full collection without --expose-gc on the command line', async () => {
  const collect = fullCollection();
  expect(collect).toBeTypeOf('function');
  const before = new WeakRef({ garbage: 'x'.repeat(1000) });
  // A WeakRef's target lives at least until the current job ends.
  await new Promise((resolve) => setImmediate(resolve));
  collect?.();
  expect(before.deref()).toBeUndefined();
});
