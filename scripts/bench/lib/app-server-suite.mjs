/**
 * The app-server measurements, each run the same way against either server (`kind` is `deputy`
 * or `reference`): spawn to `initialize` response and idle RSS, warm echo and one-tool-call turn
 * latency, N threads each running a turn concurrently, `thread/list` and `thread/resume` over a
 * large synthetic store, and `thread/resume` of one very large thread. Every function spawns its
 * own server(s) on a temp home and closes them (by PID) before returning.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runTurn, spawnAppServer, startThread } from './app-server-client.mjs';
import { makeHome, serverSpawnOptions } from './homes.mjs';
import { importDist } from './paths.mjs';
import { summarize } from './stats.mjs';
import { writeCodexBigThread, writeCodexStore, writeDeputyBigThread, writeDeputyStore } from './stores.mjs';

/** Runs `fn(client)` against a fresh, initialized server on `home`, then closes it. */
async function withServer(ctx, home, fn) {
  const client = await spawnAppServer(serverSpawnOptions(ctx.kind, home, { bin: ctx.bin, cwd: ctx.cwd, viaCli: ctx.viaCli }));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** Polls `fn` every `everyMs` for `forMs` and returns its last value (RSS settling after start). */
async function settle(fn, forMs, everyMs = 100) {
  let value = fn();
  for (const end = performance.now() + forMs; performance.now() < end; ) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    value = fn() ?? value;
  }
  return value;
}

/** Spawn → `initialize` response, `runs` times, and the idle RSS a second after each start. */
export async function measureStartup(ctx, runs) {
  const home = await makeHome(ctx.kind, ctx.modelUrl);
  const startMs = [];
  const rssKb = [];
  try {
    for (let i = 0; i < runs; i++) {
      await withServer(ctx, home.dir, async (client) => {
        startMs.push(client.readyAt - client.spawnedAt);
        const rss = await settle(() => client.rssKb(), 1_000);
        if (rss !== null) rssKb.push(rss);
      });
    }
  } finally {
    await home.cleanup();
  }
  return { startup: summarize(startMs), idleRssKb: rssKb.length > 0 ? summarize(rssKb) : null };
}

/** Warm turn latency on one thread: `warmup` unmeasured turns, then `runs` measured ones. */
export async function measureTurns(ctx, text, { warmup, runs }) {
  const home = await makeHome(ctx.kind, ctx.modelUrl);
  try {
    return await withServer(ctx, home.dir, async (client) => {
      const threadId = await startThread(client, { cwd: ctx.cwd });
      for (let i = 0; i < warmup; i++) await runTurn(client, threadId, text);
      const samples = [];
      for (let i = 0; i < runs; i++) samples.push(await runTurn(client, threadId, text));
      return summarize(samples);
    });
  } finally {
    await home.cleanup();
  }
}

/** `threads` threads on one server, each running one echo turn, all started at once. */
export async function measureConcurrent(ctx, threads) {
  const home = await makeHome(ctx.kind, ctx.modelUrl);
  try {
    return await withServer(ctx, home.dir, async (client) => {
      // One warm turn first, so the first concurrent turn does not pay for lazy start-up work.
      const warm = await startThread(client, { cwd: ctx.cwd });
      await runTurn(client, warm, 'warm up');
      const ids = [];
      for (let i = 0; i < threads; i++) ids.push(await startThread(client, { cwd: ctx.cwd }));
      const t0 = performance.now();
      const latencies = await Promise.all(ids.map((id, i) => runTurn(client, id, `concurrent ${i}`)));
      const wallMs = performance.now() - t0;
      return { wallMs, throughput: threads / (wallMs / 1000), latency: summarize(latencies) };
    });
  } finally {
    await home.cleanup();
  }
}

/** Times `runs` calls of `request(i)` (a `requestTimed` promise) after 3 unmeasured ones. */
async function timeRequests(runs, request) {
  for (let i = 0; i < 3; i++) await request(i);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push((await request(i)).ms);
  return summarize(samples);
}

/**
 * A store of `threads` one-turn threads in the server's own format (ours indexed beforehand with
 * the engine's ThreadIndex, as a running Deputy keeps it); then, on one server: the first
 * `thread/list` after start, `runs` first pages, `runs` second pages (cursor), and `thread/resume`
 * of `runs` different stored threads.
 */
export async function measureStore(ctx, threads, runs, log) {
  const home = await makeHome(ctx.kind, ctx.modelUrl);
  try {
    const t0 = performance.now();
    const ids = ctx.kind === 'deputy' ? await writeDeputyStore(home.dir, threads, { log }) : writeCodexStore(home.dir, threads, { log });
    const writeMs = performance.now() - t0;
    let indexMs = null;
    if (ctx.kind === 'deputy') {
      const { ThreadIndex } = await importDist('threadIndex');
      const t1 = performance.now();
      const index = await ThreadIndex.open(home.dir);
      index.close();
      indexMs = performance.now() - t1;
    }
    log(`${ctx.kind}: store of ${threads} threads written in ${(writeMs / 1000).toFixed(1)} s${indexMs === null ? '' : `, indexed in ${(indexMs / 1000).toFixed(1)} s`}`);
    // One server has run on the store before (as on any machine but the first start after a
    // migration), so the first call below is the first after a restart.
    await withServer(ctx, home.dir, async (client) => {
      await client.request('thread/list', { limit: 1 });
    });
    return await withServer(ctx, home.dir, async (client) => {
      const { result: first, ms: firstListMs } = await client.requestTimed('thread/list', { limit: 25 });
      if (first.data.length !== 25) throw new Error(`${ctx.kind}: thread/list returned ${first.data.length} threads, expected 25`);
      const list = await timeRequests(runs, () => client.requestTimed('thread/list', { limit: 25 }));
      const secondPage = await timeRequests(runs, () => client.requestTimed('thread/list', { limit: 25, cursor: first.nextCursor }));
      const byUpdated = await timeRequests(runs, () => client.requestTimed('thread/list', { limit: 25, sortKey: 'updated_at' }));
      // Each resume loads a different thread from disk (spread over the store).
      const step = Math.max(1, Math.floor(ids.length / (runs + 4)));
      const resume = await timeRequests(runs, (i) => client.requestTimed('thread/resume', { threadId: ids[((i + 4) * step) % ids.length] }));
      return { firstListMs, list, secondPage, byUpdated, resume };
    });
  } finally {
    await home.cleanup();
  }
}

/** `thread/resume` of one thread of about `megabytes` MiB, on a fresh server each run. */
export async function measureBigResume(ctx, megabytes, runs, log) {
  const home = await makeHome(ctx.kind, ctx.modelUrl);
  try {
    const big = ctx.kind === 'deputy' ? await writeDeputyBigThread(home.dir, megabytes) : writeCodexBigThread(home.dir, megabytes);
    log(`${ctx.kind}: ${megabytes} MiB thread written`);
    const samples = [];
    const firstSamples = [];
    let turns = 0;
    let items = 0;
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      // On a running server (one request served before, as when a client lists threads and then
      // picks one), and as the very first request after start-up (which includes opening the
      // store and, for Deputy, loading the engine).
      for (const warm of [true, false]) {
        await withServer(ctx, home.dir, async (client) => {
              if (warm) await client.request('thread/list', { limit: 1 });
          const timed = await client.requestTimed('thread/resume', { threadId: big.id });
          (warm ? samples : firstSamples).push(timed.ms);
          bytes = timed.bytes;
          turns = timed.result.thread.turns.length;
          items = timed.result.thread.turns.reduce((n, t) => n + t.items.length, 0);
        });
      }
    }
    return { resume: summarize(samples), firstRequest: summarize(firstSamples), turns, items, responseBytes: bytes };
  } finally {
    await home.cleanup();
  }
}

/** A temp working directory for the threads; `cleanup()` removes it. */
export async function makeWorkDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deputy-bench-cwd-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
