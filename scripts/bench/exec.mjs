#!/usr/bin/env node
// `deputy exec` beside the reference's `codex exec` (Codex 0.130.0, native, when installed): the
// wall time from spawn to exit of one one-turn task, the command a user types. Both run against
// the same scripted model (an echo answer, no tool), with the same bench config as the
// app-server benches; Deputy also once more with its built-in offline demo model (a turn with a
// plan and one `ls`, so a larger task than the echo). Target: `deputy exec` ≤ 1.0× the
// reference on the same task.
//   pnpm build && node scripts/bench/exec.mjs [--runs N] [--json]
import { spawn } from 'node:child_process';
import { makeWorkDir } from './lib/app-server-suite.mjs';
import { makeHome } from './lib/homes.mjs';
import { startBenchModel } from './lib/model-script.mjs';
import { distPath, findCodexBinary, requireDist } from './lib/paths.mjs';
import { num, numberFlag, ratio, sampleInTurn, summarize, table } from './lib/stats.mjs';

requireDist(['cli', 'testSupport'], 'exec');
const argv = process.argv.slice(2);
const runs = numberFlag(argv, 'runs', 7);
const asJson = argv.includes('--json');
const log = (message) => console.error(`[bench exec] ${message}`);

/** Runs `command args` to its exit (bounded); resolves with the wall time in ms. */
function timed(command, args, env, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${command} exited with ${code ?? signal}: ${output.slice(-800)}`));
    });
  });
}

/**
 * Times each target `runs` times after one warm-up each (file cache, first-run work), the targets
 * taking turns (sampleInTurn). `targets`: { name, label, command, args, env, cwd }.
 */
async function measureAlternating(targets) {
  const run = (t) => timed(t.command, t.args, t.env, t.cwd);
  for (const t of targets) await run(t);
  const samples = await sampleInTurn(targets, runs, run);
  const results = {};
  for (const t of targets) {
    results[t.name] = summarize(samples.get(t.name));
    log(`${t.label}: median ${num(results[t.name].median)} ms`);
  }
  return results;
}

const model = await startBenchModel();
const work = await makeWorkDir();
const homes = [];
let results = {};
try {
  const base = { ...process.env, NO_COLOR: '1', RUST_LOG: 'error', OPENAI_API_KEY: '' };
  const ours = await makeHome('deputy', model.url);
  homes.push(ours);
  // The offline demo model: a home with no config and no key.
  const demo = await makeHome('deputy-demo', model.url);
  homes.push(demo);
  const { rm } = await import('node:fs/promises');
  await rm(`${demo.dir}/config.toml`);
  const targets = [
    { name: 'deputy', label: 'deputy exec', command: process.execPath, args: [distPath('cli'), 'exec', '--skip-git-repo-check', 'hello bench'], env: { ...base, DEPUTY_HOME: ours.dir }, cwd: work.dir },
    { name: 'demo', label: 'deputy exec (demo model)', command: process.execPath, args: [distPath('cli'), 'exec', '--skip-git-repo-check', 'what is in this directory?'], env: { ...base, DEPUTY_HOME: demo.dir }, cwd: work.dir },
  ];
  const bin = findCodexBinary();
  if (bin) {
    const ref = await makeHome('reference', model.url);
    homes.push(ref);
    targets.push({ name: 'reference', label: 'codex exec', command: bin, args: ['exec', '--skip-git-repo-check', 'hello bench'], env: { ...base, CODEX_HOME: ref.dir }, cwd: work.dir });
  } else log('reference not installed (bash scripts/install-codex-tui.sh); reporting Deputy alone');
  results = await measureAlternating(targets);
} finally {
  await Promise.all(homes.map((h) => h.cleanup()));
  await work.cleanup();
  await model.close();
}

const ref = results.reference ?? null;
const ok = ref ? results.deputy.median <= ref.median : null;
if (asJson) {
  console.log(JSON.stringify({ bench: 'exec', runs, results, met: ok }, null, 2));
} else {
  console.log(`exec benchmark: spawn → exit of one one-turn task, ${runs} runs each after one warm-up, taken in turn, scripted model`);
  console.log('');
  console.log(
    table(
      ['command', 'median ms', 'p95 ms', 'reference median ms', 'ratio', 'target', 'verdict'],
      [
        ['deputy exec "hello bench" (scripted echo)', num(results.deputy.median), num(results.deputy.p95), ref ? num(ref.median) : '—', ratio(results.deputy.median, ref?.median ?? null), '≤ 1.0×', ok === null ? '—' : ok ? 'ok' : 'MISS'],
        ['deputy exec, offline demo model (plan + ls)', num(results.demo.median), num(results.demo.p95), '', '', '', '—'],
      ],
    ),
  );
}
process.exitCode = ok === false ? 1 : 0;
