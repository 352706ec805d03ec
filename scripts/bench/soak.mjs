#!/usr/bin/env node
// Soak bench: Deputy's app-server beside the reference `codex app-server` 0.130.0 (when
// installed), each listening on ws://127.0.0.1, against the same scripted model. N WebSocket
// clients each start a thread and run turns back to back on it for the soak's duration, echo and
// one-command turns alternating; afterwards the server idles. Printed per server: turns
// completed, failures, throughput, turn latency median/p95/p99, and the server's RSS at the
// start, at its peak (sampled every 250 ms) and after idling.
// Targets: throughput ≥ 1.5× the reference, p99 ≤ the reference's, RSS after idle ≤ 1.5× start.
//   pnpm build && node scripts/bench/soak.mjs [--quick] [--json] [--clients N] [--seconds N]
//     [--idle-seconds N] [--only deputy|reference]
import net from 'node:net';
import { connectWebSocket, runTurn, spawnServerProcess, startThread } from './lib/app-server-client.mjs';
import { makeHome, serverSpawnOptions } from './lib/homes.mjs';
import { startBenchModel } from './lib/model-script.mjs';
import { appServerSides } from './lib/paths.mjs';
import { num, numberFlag, ratio, summarize, table } from './lib/stats.mjs';
import { makeWorkDir } from './lib/app-server-suite.mjs';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const asJson = argv.includes('--json');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : null;
const settings = {
  clients: numberFlag(argv, 'clients', 10),
  seconds: numberFlag(argv, 'seconds', quick ? 15 : 180),
  idleSeconds: numberFlag(argv, 'idle-seconds', quick ? 5 : 15),
};
const log = (message) => console.error(`[bench soak] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const { kinds, bin } = appServerSides('soak bench', only, log);

/** A port free on 127.0.0.1 right now (the reference takes no port 0 it would report back). */
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One soak against one server kind. */
async function soak(kind, modelUrl, cwd) {
  const home = await makeHome(kind, modelUrl);
  const url = `ws://127.0.0.1:${await freePort()}`;
  const server = spawnServerProcess(serverSpawnOptions(kind, home.dir, { bin, cwd, listen: url }));
  server.child.stdout.resume();
  const clients = [];
  try {
    for (let i = 0; i < settings.clients; i++) clients.push(await connectWebSocket(url, { label: `${kind} ws ${i}` }));
    const threads = [];
    for (const client of clients) {
      threads.push(await startThread(client, { cwd }));
    }
    // One warm turn per client, so the soak does not measure lazy start-up work.
    await Promise.all(clients.map((client, i) => runTurn(client, threads[i], 'warm up')));
    await sleep(1_000);
    const startKb = server.rssKb();
    let peakKb = startKb ?? 0;
    const sampler = setInterval(() => (peakKb = Math.max(peakKb, server.rssKb() ?? 0)), 250);
    const latencies = [];
    let failures = 0;
    const t0 = performance.now();
    const end = t0 + settings.seconds * 1000;
    await Promise.all(
      clients.map(async (client, i) => {
        for (let n = 0; performance.now() < end; n++) {
          const text = n % 2 === 0 ? `soak ${i} ${n}` : `run: echo soak ${i} ${n}`;
          try {
            latencies.push(await runTurn(client, threads[i], text));
          } catch (error) {
            failures++;
            if (failures <= 3) log(`${kind}: turn failed: ${error.message}`);
          }
        }
      }),
    );
    const wallMs = performance.now() - t0;
    clearInterval(sampler);
    peakKb = Math.max(peakKb, server.rssKb() ?? 0);
    await sleep(settings.idleSeconds * 1000);
    const afterKb = server.rssKb();
    return {
      turns: latencies.length,
      failures,
      wallMs,
      throughput: latencies.length / (wallMs / 1000),
      latency: summarize(latencies),
      rssMiB: { start: startKb / 1024, peak: peakKb / 1024, after: afterKb / 1024 },
    };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await server.close();
    await home.cleanup();
  }
}

const model = await startBenchModel();
const work = await makeWorkDir();
const results = {};
try {
  for (const kind of kinds) {
    log(`${kind}: ${settings.clients} clients for ${settings.seconds} s`);
    results[kind] = await soak(kind, model.url, work.dir);
  }
} finally {
  await work.cleanup();
  await model.close();
}

const ours = results.deputy ?? null;
const ref = results.reference ?? null;
const pick = (r, f) => (r ? f(r) : null);
function row(name, f, digits, target, check) {
  const a = pick(ours, f);
  const b = pick(ref, f);
  const ok = a === null ? null : check(a, b);
  return [name, num(a, digits), num(b, digits), ratio(a, b), target, ok === null ? '—' : ok ? 'ok' : 'MISS'];
}
const none = () => null;
const rows = [
  row('turns completed', (r) => r.turns, 0, '', none),
  row('failed turns', (r) => r.failures, 0, '0', (a) => a === 0),
  row('throughput (turns/s)', (r) => r.throughput, 1, '≥ 1.5×', (a, b) => (b === null ? null : a >= 1.5 * b)),
  row('turn latency (median ms)', (r) => r.latency.median, 1, '', none),
  row('turn latency (p95 ms)', (r) => r.latency.p95, 1, '', none),
  row('turn latency (p99 ms)', (r) => r.latency.p99, 1, '≤ 1.0×', (a, b) => (b === null ? null : a <= b)),
  row('RSS at start (MiB)', (r) => r.rssMiB.start, 1, '', none),
  row('RSS at peak (MiB)', (r) => r.rssMiB.peak, 1, '', none),
  row(`RSS after ${settings.idleSeconds} s idle (MiB)`, (r) => r.rssMiB.after, 1, '≤ 1.5× start', none),
  row('  RSS after / start', (r) => r.rssMiB.after / r.rssMiB.start, 2, '≤ 1.5', (a) => a <= 1.5),
];
const misses = rows.filter((r) => r[5] === 'MISS').map((r) => r[0].trim());
if (asJson) {
  console.log(JSON.stringify({ bench: 'soak', quick, settings, results, misses }, null, 2));
} else {
  console.log(`soak benchmark (ws://127.0.0.1, scripted model, approvals off, no sandbox${quick ? ', --quick' : ''})`);
  console.log(`servers: ${kinds.map((k) => (k === 'deputy' ? 'deputy (apps/app-server/bundle/main.js)' : `reference (${bin})`)).join(', ')}`);
  console.log(`${settings.clients} WebSocket clients, one thread each, turns back to back for ${settings.seconds} s (echo and one-command turns alternating), then ${settings.idleSeconds} s idle`);
  console.log('');
  console.log(table(['metric', 'deputy', 'reference', 'ratio', 'target', 'verdict'], rows));
  if (misses.length > 0) console.log(`\nmissed targets: ${misses.join('; ')}`);
}
process.exitCode = !ours ? 2 : misses.length > 0 ? 1 : 0;
