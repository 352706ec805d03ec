/**
 * Memory back after a burst (docs/app-server.md "Limits"). After a flood of large frames V8
 * keeps the heap it grew to (a young generation grown to its maximum, old-space pages kept for
 * reuse) and only a full collection gives those pages back, which an idle process never runs:
 * measured, the resident size stayed at about 1.9x the start for minutes after a fuzz, with
 * under 25 MiB of live objects. So once the process has been idle for a while after its resident
 * size grew by {@link GROWTH_BYTES}, it runs a full collection ({@link COLLECT_TICKS}). Idle means
 * the event loop was busy for under {@link IDLE_UTILIZATION} of a tick of {@link IDLE_TICK_MS}; a
 * client request that arrives during the collection waits for it (tens of
 * milliseconds on a heap of this size), which is why it only runs when nobody is asking. The
 * decision is a pure function of the samples (`IdleGc.tick`), so it is tested without timers.
 * Those collections leave the young generation as large as the burst made it, so it is also kept
 * from growing past the size start-up gives it ({@link capYoungGeneration}). And they free the C
 * memory the burst's buffers held, which glibc keeps inside its heap (only a free block at its
 * top goes back): measured, 40 MiB after a 10,000-item model response. So each collection is
 * followed by a trim of the C heap (`mallocTrim`, glibc's `malloc_trim(0)`) when the addon is
 * there (docs/performance.md "Freed memory back to the system").
 */
import { performance, PerformanceObserver, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Worker } from 'node:worker_threads';

/** How often the loop is sampled. */
export const IDLE_TICK_MS = 500;
/**
 * The idle ticks (counted from the last busy one) at which a grown process collects: twice,
 * because V8 shrinks its young generation only once the allocation rate it measured between
 * collections is low, which the first collection after a burst does not see yet.
 */
export const COLLECT_TICKS: readonly number[] = [1, 2, 3];
/** The idle tick at which the resident size is taken as the new base. */
const SETTLED_TICK = 10;
/** Loop utilization under which a tick counts as idle. */
export const IDLE_UTILIZATION = 0.05;
/** Growth of the resident size over the idle base that calls for collections. */
export const GROWTH_BYTES = 16 * 1024 * 1024;

/** One sample of the process. */
export interface IdleSample {
  /** Event-loop utilization over the tick, 0..1. */
  utilization: number;
  /** Resident set size, bytes. */
  rss: number;
}

/** The decision logic; see the module comment. */
export class IdleGc {
  #idleTicks = 0;
  /** Resident size the process settles at when idle; null until the first sample. */
  #baseline: number | null = null;

  constructor(private readonly collect: () => void) {}

  /** Takes one sample; returns true when it ran a collection. */
  tick(sample: IdleSample): boolean {
    this.#baseline ??= sample.rss;
    this.#idleTicks = sample.utilization < IDLE_UTILIZATION ? this.#idleTicks + 1 : 0;
    // Once the collections of this idle period are done, the size it settled at is the new base.
    if (this.#idleTicks === SETTLED_TICK) this.#baseline = sample.rss;
    if (!COLLECT_TICKS.includes(this.#idleTicks) || sample.rss - this.#baseline < GROWTH_BYTES) return false;
    this.collect();
    return true;
  }
}

/**
 * The full collection V8 runs for `--expose-gc`, without that flag on the command line (the
 * server is started by `node` with no flags): the flag is set at run time and the function read
 * from a fresh context, where V8 installs it. Null when that does not work.
 */
export function fullCollection(): (() => void) | null {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return () => void existing();
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => void gc() : null;
  } catch {
    return null;
  }
}

/** The C heap's trim (`mallocTrim`), its module loaded now; null without the addon. */
export async function loadMallocTrim(): Promise<(() => boolean) | null> {
  const { mallocTrim } = await import('@deputy/engine/native-addon');
  return mallocTrim();
}

/**
 * What an idle collection runs: a full collection, then the trim of the C heap that it freed.
 * Both are found on first use, the trim's module with the first collection (nothing of it is
 * needed to start); one that cannot be found is skipped from then on. The returned promise
 * settles once the trim ran.
 */
export function collectThenTrim(
  findCollect: () => (() => void) | null = fullCollection,
  loadTrim: () => Promise<(() => boolean) | null> = loadMallocTrim,
): () => Promise<void> {
  let collect: (() => void) | null | undefined;
  let trim: Promise<(() => boolean) | null> | undefined;
  return async () => {
    collect = collect === undefined ? findCollect() : collect;
    collect?.();
    trim ??= loadTrim().catch(() => null);
    (await trim)?.();
  };
}

/** Starts sampling (an unref'd timer); returns the stop function. */
export function startIdleGc(): () => void {
  const run = collectThenTrim();
  const gc = new IdleGc(() => void run());
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    gc.tick({ utilization, rss: process.memoryUsage.rss() });
  }, IDLE_TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The capacity of one semi-space of the young generation past which it stops growing. Node 20
 * lets it grow to 16 MiB under any sustained work (the young generation then holds 32 MiB, both
 * semi-spaces), and V8 shrinks it again only in the collections its memory reducer starts some
 * 8 s after the last full one, so after a burst the resident size stays up to 16 MiB higher
 * for that long. Start-up alone takes it to 8 MiB.
 */
export const SEMI_SPACE_CAP_BYTES = 8 * 1024 * 1024;

/** The capacity of the young generation's semi-space now, bytes. */
export function semiSpaceBytes(): number {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space === undefined ? 0 : space.space_used_size + space.space_available_size;
}

/**
 * Keeps the young generation's semi-space at `cap` at most. V8 reads `--max-semi-space-size`
 * only when the process starts (the server is started by `node` with no flags), but it reads
 * its growth factor each time it grows the young generation (doubling it by default), so once
 * the next doubling would pass `cap` the factor becomes 1 (checked after each collection until
 * then, and no more after). Starting a worker thread puts V8's flags back to their defaults, so
 * once capped the factor is set again when a worker comes online. Returns the stop function.
 */
export function capYoungGeneration(cap = SEMI_SPACE_CAP_BYTES): () => void {
  let capped = false;
  const setFactor = (): void => v8.setFlagsFromString('--semi-space-growth-factor=1');
  const check = (): void => {
    if (capped || 2 * semiSpaceBytes() <= cap) return;
    capped = true;
    setFactor();
    observer.disconnect();
  };
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  const onWorker = (worker: Worker): void => void worker.once('online', () => (capped ? setFactor() : check()));
  process.on('worker', onWorker);
  check();
  return () => {
    observer.disconnect();
    process.off('worker', onWorker);
  };
}
