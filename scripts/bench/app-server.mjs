#!/usr/bin/env node
// App-server benchmark: Deputy's app-server side by side with the reference `codex app-server`
// 0.130.0 (the native binary `scripts/install-codex-tui.sh` installs; left out when absent), both
// on stdio against the same scripted model server, with approvals off and no sandbox. Measures
// spawn → initialize, idle RSS, warm echo and one-tool-call turns, N concurrent turns on one
// server, thread/list and thread/resume over a store of 50,000 threads, and thread/resume of a
// 100 MiB thread; prints medians/p95 with ratios to the reference and the issue's targets.
//   pnpm build && node scripts/bench/app-server.mjs [--quick] [--threads N] [--store N]
//     [--megabytes N] [--turns N] [--only deputy|reference]
//     [--sections startup,cli-startup,echo,tool,shell,shell10,concurrent,store,big]
// `shell`/`shell10`: a one-command and a ten-command turn in the default shell (login shell, or
// the shell snapshot), where the reference pays its own default the same way.
import { makeWorkDir, measureBigResume, measureConcurrent, measureStartup, measureStore, measureTurns } from './lib/app-server-suite.mjs';
import { startBenchModel } from './lib/model-script.mjs';
import { appServerSides } from './lib/paths.mjs';
import { num, numberFlag, ratio, table } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : null;
const settings = {
  startupRuns: numberFlag(argv, 'startup-runs', quick ? 3 : 10),
  turns: numberFlag(argv, 'turns', quick ? 10 : 50),
  concurrent: numberFlag(argv, 'threads', quick ? 20 : 100),
  store: numberFlag(argv, 'store', quick ? 2_000 : 50_000),
  storeRuns: numberFlag(argv, 'store-runs', quick ? 10 : 50),
  megabytes: numberFlag(argv, 'megabytes', quick ? 10 : 100),
  bigRuns: numberFlag(argv, 'big-runs', quick ? 2 : 3),
};
const SECTIONS = ['startup', 'cli-startup', 'echo', 'tool', 'shell', 'shell10', 'concurrent', 'store', 'big'];
const sections = argv.includes('--sections') ? argv[argv.indexOf('--sections') + 1].split(',') : SECTIONS;
const unknownSections = sections.filter((name) => !SECTIONS.includes(name));
if (unknownSections.length > 0) {
  console.error(`app-server bench: unknown section(s) ${unknownSections.join(', ')}; sections are ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const log = (message) => console.error(`[bench app-server] ${message}`);

const { kinds, bin } = appServerSides('app-server bench', only, log);

const model = await startBenchModel();
const work = await makeWorkDir();
const results = {};
const referenceFailures = [];
try {
  for (const kind of kinds) {
    const ctx = { kind, bin, cwd: work.dir, modelUrl: model.url };
    const measure = {
      startup: () => measureStartup(ctx, settings.startupRuns),
      // Through `deputy app-server` (the CLI entry); the reference's row is its binary again.
      'cli-startup': () => measureStartup({ ...ctx, viaCli: true }, settings.startupRuns),
      echo: () => measureTurns(ctx, 'hello bench', { warmup: 5, runs: settings.turns }),
      tool: () => measureTurns(ctx, 'run: echo hi', { warmup: 3, runs: settings.turns }),
      // The default shell (a login shell per command, or the thread's shell snapshot).
      shell: () => measureTurns(ctx, 'shell: echo hi', { warmup: 3, runs: settings.turns }),
      shell10: () => measureTurns(ctx, 'shell10: echo hi', { warmup: 1, runs: Math.max(3, Math.ceil(settings.turns / 3)) }),
      concurrent: () => measureConcurrent(ctx, settings.concurrent),
      store: () => measureStore(ctx, settings.store, settings.storeRuns, log),
      big: () => measureBigResume(ctx, settings.megabytes, settings.bigRuns, log),
    };
    results[kind] = {};
    for (const section of sections) {
      log(`${kind}: ${section}`);
      try {
        results[kind][section] = await measure[section]();
      } catch (error) {
        // The reference failing a section (its initialize on a 50,000-thread store took over the
        // 120 s request timeout here) leaves that column empty; ours failing fails the bench.
        if (kind !== 'reference') throw error;
        referenceFailures.push(`${section}: ${error.message.split('\n')[0].slice(0, 300)}`);
        log(`reference: ${section} failed: ${error.message.split('\n')[0]}`);
      }
    }
  }
} finally {
  await work.cleanup();
  await model.close();
}

const ours = results.deputy ?? null;
const ref = results.reference ?? null;
/** A row: metric, ours, reference, ratio, target, verdict (`check(oursValue, refValue)` → boolean|null). */
function row(name, pick, digits, target, check) {
  // A section that was not run reads as missing, not as an error.
  const value = (r) => {
    try {
      return r ? (pick(r) ?? null) : null;
    } catch {
      return null;
    }
  };
  const a = value(ours);
  const b = value(ref);
  const verdict = a === null || a === undefined ? '—' : (() => {
    const ok = check(a, b);
    return ok === null ? '—' : ok ? 'ok' : 'MISS';
  })();
  return [name, num(a, digits), num(b, digits), ratio(a, b), target, verdict];
}
const atMost = (factor) => (a, b) => (b === null || b === undefined ? null : a <= factor * b);
const under = (limit) => (a) => a < limit;
const rows = [
  row('spawn → initialize (median ms)', (r) => r.startup.startup.median, 1, '≤ 2.5×', atMost(2.5)),
  row('`deputy app-server` spawn → initialize (median ms)', (r) => r['cli-startup'].startup.median, 1, '≤ 2.0×', atMost(2.0)),
  row('idle RSS (median MiB)', (r) => (r.startup.idleRssKb ? r.startup.idleRssKb.median / 1024 : null), 1, '≤ 1.5×', atMost(1.5)),
  row('echo turn (median ms)', (r) => r.echo.median, 1, '≤ 1.0×', atMost(1.0)),
  row('echo turn (p95 ms)', (r) => r.echo.p95, 1, '', () => null),
  row('one-tool turn (median ms)', (r) => r.tool.median, 1, '≤ 1.0×', atMost(1.0)),
  row('one-tool turn (p95 ms)', (r) => r.tool.p95, 1, '', () => null),
  row('one-tool turn, default shell (median ms)', (r) => r.shell.median, 1, '≤ 0.5×', atMost(0.5)),
  row('one-tool turn, default shell (p95 ms)', (r) => r.shell.p95, 1, '', () => null),
  row('ten-command turn, default shell (median ms)', (r) => r.shell10.median, 1, '≤ 0.3×', atMost(0.3)),
  row('ten-command turn, default shell (p95 ms)', (r) => r.shell10.p95, 1, '', () => null),
  row(`${settings.concurrent} concurrent turns: wall (ms)`, (r) => r.concurrent.wallMs, 0, '≤ 0.5×', atMost(0.5)),
  row(`${settings.concurrent} concurrent turns: turns/s`, (r) => r.concurrent.throughput, 1, '', () => null),
  row(`${settings.concurrent} concurrent turns: p99 (ms)`, (r) => r.concurrent.latency.p99, 0, '', () => null),
  row(`thread/list @${settings.store}: first call after restart (ms)`, (r) => r.store.firstListMs, 1, '', () => null),
  row(`thread/list @${settings.store} (median ms)`, (r) => r.store.list.median, 2, '≤ 1.0×', atMost(1.0)),
  row(`thread/list @${settings.store} (p95 ms)`, (r) => r.store.list.p95, 2, '< 100 ms', under(100)),
  row(`thread/list page 2 @${settings.store} (p95 ms)`, (r) => r.store.secondPage.p95, 2, '< 100 ms', under(100)),
  row(`thread/list by updated_at (p95 ms)`, (r) => r.store.byUpdated.p95, 2, '< 100 ms', under(100)),
  row(`thread/resume @${settings.store} (median ms)`, (r) => r.store.resume.median, 2, '', () => null),
  row(`thread/resume @${settings.store} (p95 ms)`, (r) => r.store.resume.p95, 2, '', () => null),
  row(`thread/resume ${settings.megabytes} MiB (median ms)`, (r) => r.big.resume.median, 0, '< 300 ms', under(300)),
  row(`  … as the first request after start`, (r) => r.big.firstRequest.median, 0, '', () => null),
];

console.log(`app-server benchmark (stdio, scripted model, approvals off, no sandbox${quick ? ', --quick sizes' : ''})`);
console.log(`servers: ${kinds.map((k) => (k === 'deputy' ? 'deputy (apps/app-server/bundle/main.js)' : `reference (${bin})`)).join(', ')}`);
console.log('');
console.log(table(['metric', 'deputy', 'reference', 'ratio', 'target', 'verdict'], rows));
console.log('');
console.log(`echo/one-tool turns: ${settings.turns} measured turns each after warm-up; concurrent: ${settings.concurrent} threads, one echo turn each, started together`);
const bigLine = (name, r) =>
  r.big === undefined
    ? `${name}: big thread not measured`
    : `${name} ${settings.megabytes} MiB thread: ${r.big.turns} turns, ${r.big.items} items returned, response ${(r.big.responseBytes / 1048576).toFixed(1)} MiB`;
if (ours) console.log(bigLine('deputy', ours));
if (ref) console.log(bigLine('reference', ref));
console.log('request latencies are measured from writing the request to the arrival of the response line (client parsing excluded)');
console.log(`thread/resume ${settings.megabytes} MiB: on a running server (after one thread/list); "as the first request" also pays the lazy start (Deputy loads its engine then)`);
for (const failure of referenceFailures) console.log(`reference failed a section, its column is empty there: ${failure}`);
const misses = rows.filter((r) => r[5] === 'MISS').map((r) => r[0]);
if (misses.length > 0) console.log(`missed targets: ${misses.join('; ')}`);
process.exitCode = !ours ? 2 : misses.length > 0 ? 1 : 0;
