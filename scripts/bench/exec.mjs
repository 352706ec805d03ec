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
import { num, numberFlag, ratio, summarize, table } from './lib/stats.mjs';

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

async function measure(label, command, args, env, cwd) {
  await timed(command, args, env, cwd); // warm-up: file cache, first-run work
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(command, args, env, cwd));
  log(`${label}: median ${num(summarize(samples).median)} ms`);
  return summarize(samples);
}

const model = await startBenchModel();
const work = await makeWorkDir();
const homes = [];
const results = {};
try {
  const base = { ...process.env, NO_COLOR: '1', RUST_LOG: 'error', OPENAI_API_KEY: '' };
  const ours = await makeHome('deputy', model.url);
  homes.push(ours);
  results.deputy = await measure('deputy exec', process.execPath, [distPath('cli'), 'exec', '--skip-git-repo-check', 'hello bench'], { ...base, DEPUTY_HOME: ours.dir }, work.dir);
  // The offline demo model: a home with no config and no key.
  const demo = await makeHome('deputy-demo', model.url);
  homes.push(demo);
  const { rm } = await import('node:fs/promises');
  await rm(`${demo.dir}/config.toml`);
  results.demo = await measure('deputy exec (demo model)', process.execPath, [distPath('cli'), 'exec', '--skip-git-repo-check', 'what is in this directory?'], { ...base, DEPUTY_HOME: demo.dir }, work.dir);
  const bin = findCodexBinary();
  if (bin) {
    const ref = await makeHome('reference', model.url);
    homes.push(ref);
    results.reference = await measure('codex exec', bin, ['exec', '--skip-git-repo-check', 'hello bench'], { ...base, CODEX_HOME: ref.dir }, work.dir);
  } else log('reference not installed (bash scripts/install-codex-tui.sh); reporting Deputy alone');
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
  console.log(`exec benchmark: spawn → exit of one one-turn task, ${runs} runs after one warm-up, scripted model`);
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
