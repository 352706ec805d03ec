/**
 * The idle collection (`idle-gc.ts`, docs/app-server.md "Limits"): once the loop has been idle
 * after the resident size grew by `GROWTH_BYTES` over the idle base, it collects at the idle
 * ticks `COLLECT_TICKS`, never while busy, and the size it then settles at is the new base. The
 * collector itself is the one V8 gives `--expose-gc`, found at run time, and each collection is
 * followed by the C heap's trim (its effect on the host is measured in the engine's
 * native-addon test).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hasCCompiler, isGlibc } from '@deputy/test-support';
import { expect, it } from 'vitest';
import { collectThenTrim, COLLECT_TICKS, fullCollection, GROWTH_BYTES, IdleGc, loadMallocTrim, SEMI_SPACE_CAP_BYTES } from '../src/idle-gc.js';

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

it('trims the C heap after each collection, loading the trim once, and collects without it', async () => {
  const calls: string[] = [];
  let loads = 0;
  const run = collectThenTrim(
    () => () => void calls.push('collect'),
    async () => {
      loads++;
      return () => (calls.push('trim'), true);
    },
  );
  await run();
  await run();
  expect(calls).toEqual(['collect', 'trim', 'collect', 'trim']);
  expect(loads).toBe(1);
  // No addon (or one that does not load): the collections still run, and the load is not retried.
  for (const loadTrim of [async () => null, () => Promise.reject(new Error('wrong ELF class'))]) {
    calls.length = 0;
    loads = 0;
    const without = collectThenTrim(
      () => () => void calls.push('collect'),
      () => (loads++, loadTrim()),
    );
    await without();
    await without();
    expect(calls).toEqual(['collect', 'collect']);
    expect(loads).toBe(1);
  }
});

it.runIf(isGlibc && hasCCompiler)('finds the C heap trim of the built addon', async () => {
  const trim = await loadMallocTrim();
  expect(trim).toBeTypeOf('function');
  expect(typeof trim?.()).toBe('boolean');
});

/** The built module, run in a child process: V8's flags are the whole process's. */
const BUILT = fileURLToPath(new URL('../dist/idle-gc.js', import.meta.url));

/**
 * A child that (when `cap`) caps the young generation, allocates 600,000 objects, starts a worker
 * thread (which puts V8's flags back to their defaults) and allocates 1,200,000 more, keeping the
 * last 100,000-200,000 alive (what makes V8 grow the young generation), in tasks of 5,000 (under a
 * MiB), so that the collections' observer, which runs a task or two after a collection, sees each
 * growth before the next one; prints the semi-space's capacity.
 */
async function semiSpaceAfterBurst(cap: boolean): Promise<number> {
  const script = `
    import { Worker } from 'node:worker_threads';
    import { capYoungGeneration, semiSpaceBytes } from ${JSON.stringify(BUILT)};
    if (${cap}) capYoungGeneration();
    let keep = [];
    const burst = (tasks) => new Promise((resolve) => {
      const chunk = () => {
        for (let i = 0; i < 5000; i++) keep.push({ text: 'x'.repeat(40) + i, list: [i, i + 1] });
        if (keep.length > 200000) keep = keep.slice(100000);
        if (--tasks > 0) setImmediate(chunk);
        else resolve();
      };
      chunk();
    });
    await burst(120);
    const worker = new Worker('setTimeout(() => {}, 200)', { eval: true });
    await new Promise((resolve) => worker.once('online', resolve));
    await burst(240);
    console.log(semiSpaceBytes());`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 30_000 });
  return Number(stdout.trim());
}

it('keeps the young generation at its cap, also after a worker starts, where it would grow past it', async () => {
  const [capped, free] = await Promise.all([semiSpaceAfterBurst(true), semiSpaceAfterBurst(false)]);
  expect(capped).toBeGreaterThan(0);
  expect(capped).toBeLessThanOrEqual(SEMI_SPACE_CAP_BYTES);
  // Without the cap the same burst takes it past the cap (Node 20: to 16 MiB).
  expect(free).toBeGreaterThan(SEMI_SPACE_CAP_BYTES);
}, 60_000);
