#!/usr/bin/env node
// Scale bench: Deputy's app-server beside the reference `codex app-server` 0.130.0 (when
// installed), on stdio against the same scripted model. Per server, in one process:
//   1. N loaded threads (thread/start N times): RSS per thread and open fds before and after;
//   2. M concurrent turns on M of those threads, each running one command: wall, latency
//      median/p95/p99, peak RSS, and RSS after idling against the RSS before the run;
//   3. one turn whose model answer holds K items, streamed to the client: wall, items/s, peak
//      RSS and RSS after idling.
// Targets: ≤ 50 KB RSS per idle loaded thread, M = 200 one-command turns ≤ 3 s wall, RSS after
// each run ≤ 1.2× the idle RSS before it.
//   pnpm build && node scripts/bench/scale.mjs [--quick] [--json] [--threads N] [--concurrent M]
//     [--items K] [--idle-seconds S] [--reference-cap N] [--only deputy|reference]
// --quick: 2,000 items, and the reference gets at most 20 threads and 20 concurrent turns.
import { runTurn, spawnAppServer, startThread } from './lib/app-server-client.mjs';
import { makeWorkDir } from './lib/app-server-suite.mjs';
import { makeHome, serverSpawnOptions } from './lib/homes.mjs';
import { startBenchModel } from './lib/model-script.mjs';
import { appServerSides } from './lib/paths.mjs';
import { num, numberFlag, ratio, summarize, table } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const asJson = argv.includes('--json');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : null;
const settings = {
  threads: numberFlag(argv, 'threads', 1_000),
  concurrent: numberFlag(argv, 'concurrent', 200),
  items: numberFlag(argv, 'items', quick ? 2_000 : 10_000),
  idleSeconds: numberFlag(argv, 'idle-seconds', quick ? 2 : 5),
};
// The reference takes about half a second per thread/start and runs concurrent command turns
// slowly here, so --quick gives it fewer threads and turns (per-thread figures still compare).
const refCap = numberFlag(argv, 'reference-cap', quick ? 20 : Number.POSITIVE_INFINITY);
const sizes = (kind) =>
  kind === 'reference'
    ? { threads: Math.min(settings.threads, refCap), concurrent: Math.min(settings.concurrent, refCap) }
    : { threads: settings.threads, concurrent: settings.concurrent };
const log = (message) => console.error(`[bench scale] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const { kinds, bin } = appServerSides('scale bench', only, log);

/** Runs `fn` while sampling the server's RSS every 250 ms; resolves with `{ value, peakKb }`. */
async function withPeak(server, fn) {
  let peakKb = server.rssKb() ?? 0;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, server.rssKb() ?? 0)), 250);
  try {
    const value = await fn();
    return { value, peakKb: Math.max(peakKb, server.rssKb() ?? 0) };
  } finally {
    clearInterval(sampler);
  }
}

/** Starts `count` threads, `batch` requests in flight at a time. */
async function startThreads(client, cwd, count, batch = 50) {
  const ids = [];
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i);
    ids.push(...(await Promise.all(Array.from({ length: n }, () => startThread(client, { cwd })))));
  }
  return ids;
}

async function scale(kind, modelUrl, cwd) {
  const home = await makeHome(kind, modelUrl);
  const server = await spawnAppServer(serverSpawnOptions(kind, home.dir, { bin, cwd }));
  const idle = async () => {
    await sleep(settings.idleSeconds * 1000);
    return server.rssKb();
  };
  try {
    // Warm: one thread with one echo and one command turn, so lazy start-up is paid before.
    const warm = await startThread(server, { cwd });
    await runTurn(server, warm, 'warm up');
    await runTurn(server, warm, 'run: echo warm');
    const baseKb = await idle();
    const baseFds = server.openFds();

    const { threads, concurrent } = sizes(kind);
    log(`${kind}: ${threads} threads`);
    const t0 = performance.now();
    const ids = await startThreads(server, cwd, threads);
    const startMs = performance.now() - t0;
    const loadedKb = await idle();
    const loadedFds = server.openFds();

    log(`${kind}: ${concurrent} concurrent one-command turns`);
    const chosen = ids.slice(0, concurrent);
    const t1 = performance.now();
    let failures = 0;
    const conc = await withPeak(server, async () => {
      const all = await Promise.all(
        chosen.map((id, i) =>
          runTurn(server, id, `run: echo scale ${i}`).catch((error) => {
            if (++failures <= 3) log(`${kind}: turn failed: ${error.message}`);
            return null;
          }),
        ),
      );
      return all.filter((ms) => ms !== null);
    });
    const concWallMs = performance.now() - t1;
    const concAfterKb = await idle();

    log(`${kind}: one turn of ${settings.items} items`);
    const streamThread = ids[ids.length - 1];
    let itemsSeen = 0;
    const stop = server.onNotification((m) => {
      if (m.method === 'item/completed' && m.params?.threadId === streamThread && m.params?.item?.type === 'agentMessage') itemsSeen++;
    });
    const t2 = performance.now();
    const stream = await withPeak(server, () => runTurn(server, streamThread, `items: ${settings.items}`));
    const streamWallMs = performance.now() - t2;
    stop();
    const streamAfterKb = await idle();

    return {
      threads: {
        count: ids.length,
        startMs,
        baseRssKb: baseKb,
        loadedRssKb: loadedKb,
        perThreadKb: (loadedKb - baseKb) / ids.length,
        fdsBefore: baseFds,
        fdsAfter: loadedFds,
      },
      concurrent: {
        turns: chosen.length,
        failures,
        wallMs: concWallMs,
        latency: summarize(conc.value),
        beforeRssKb: loadedKb,
        peakRssKb: conc.peakKb,
        afterRssKb: concAfterKb,
      },
      stream: {
        items: itemsSeen,
        wallMs: streamWallMs,
        itemsPerSecond: itemsSeen / (streamWallMs / 1000),
        beforeRssKb: concAfterKb,
        peakRssKb: stream.peakKb,
        afterRssKb: streamAfterKb,
      },
    };
  } finally {
    await server.close();
    await home.cleanup();
  }
}

const model = await startBenchModel();
const work = await makeWorkDir();
const results = {};
try {
  for (const kind of kinds) results[kind] = await scale(kind, model.url, work.dir);
} finally {
  await work.cleanup();
  await model.close();
}

const ours = results.deputy ?? null;
const ref = results.reference ?? null;
function row(name, f, digits, target, check) {
  const a = ours ? f(ours) : null;
  const b = ref ? f(ref) : null;
  const ok = a === null ? null : check(a, b);
  return [name, num(a, digits), num(b, digits), ratio(a, b), target, ok === null ? '—' : ok ? 'ok' : 'MISS'];
}
const none = () => null;
const mib = (kb) => kb / 1024;
const T = 'threads';
const M = 'concurrent';
const K = settings.items;
const rows = [
  row('loaded threads', (r) => r.threads.count, 0, `${settings.threads}`, none),
  row('concurrent one-command turns', (r) => r.concurrent.turns, 0, `${settings.concurrent}`, none),
  row(`${T}: thread/start, mean per thread (ms)`, (r) => r.threads.startMs / r.threads.count, 1, '', none),
  row(`${T}: RSS idle before (MiB)`, (r) => mib(r.threads.baseRssKb), 1, '', none),
  row(`${T}: RSS loaded (MiB)`, (r) => mib(r.threads.loadedRssKb), 1, '', none),
  row(`${T}: RSS per loaded thread (KiB)`, (r) => r.threads.perThreadKb, 1, '≤ 50 KB', (a) => a <= 50_000 / 1024),
  row(`${T}: open fds before`, (r) => r.threads.fdsBefore, 0, '', none),
  row(`${T}: open fds loaded`, (r) => r.threads.fdsAfter, 0, '', none),
  row(`${M}: failed turns`, (r) => r.concurrent.failures, 0, '0', (a) => a === 0),
  row(`${M}: wall (ms)`, (r) => r.concurrent.wallMs, 0, '200 in ≤ 3,000 ms', (a) => (ours.concurrent.turns === 200 ? a <= 3_000 : null)),
  row(`${M}: latency (median ms)`, (r) => r.concurrent.latency.median, 0, '', none),
  row(`${M}: latency (p95 ms)`, (r) => r.concurrent.latency.p95, 0, '', none),
  row(`${M}: latency (p99 ms)`, (r) => r.concurrent.latency.p99, 0, '', none),
  row(`${M}: RSS peak (MiB)`, (r) => mib(r.concurrent.peakRssKb), 1, '', none),
  row(`${M}: RSS after / before`, (r) => r.concurrent.afterRssKb / r.concurrent.beforeRssKb, 2, '≤ 1.2', (a) => a <= 1.2),
  row(`${K}-item turn: items received`, (r) => r.stream.items, 0, `${K}`, (a) => a === K),
  row(`${K}-item turn: wall (ms)`, (r) => r.stream.wallMs, 0, '', none),
  row(`${K}-item turn: items/s`, (r) => r.stream.itemsPerSecond, 0, '', none),
  row(`${K}-item turn: RSS peak (MiB)`, (r) => mib(r.stream.peakRssKb), 1, '', none),
  row(`${K}-item turn: RSS after / before`, (r) => r.stream.afterRssKb / r.stream.beforeRssKb, 2, '≤ 1.2', (a) => a <= 1.2),
];
const misses = rows.filter((r) => r[5] === 'MISS').map((r) => r[0].trim());
if (asJson) {
  console.log(JSON.stringify({ bench: 'scale', quick, settings, results, misses }, null, 2));
} else {
  console.log(`scale benchmark (stdio, scripted model, approvals off, no sandbox${quick ? ', --quick' : ''})`);
  console.log(`servers: ${kinds.map((k) => (k === 'deputy' ? 'deputy (apps/app-server/bundle/main.js)' : `reference (${bin})`)).join(', ')}`);
  console.log(`RSS is the server's process tree after ${settings.idleSeconds} s idle; "after / before" compares it with the idle RSS before that run`);
  console.log('');
  console.log(table(['metric', 'deputy', 'reference', 'ratio', 'target', 'verdict'], rows));
  if (misses.length > 0) console.log(`\nmissed targets: ${misses.join('; ')}`);
}
process.exitCode = !ours ? 2 : misses.length > 0 ? 1 : 0;
