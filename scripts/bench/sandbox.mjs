#!/usr/bin/env node
// Sandbox cost benchmark: the wall time of one short command through the engine's exec layer
// (ExecSessionManager.start → spawn → exit → snapshot), unsandboxed and under bubblewrap
// (read-only and workspace-write), with median, p95 and the sandboxed/unsandboxed ratio.
// Also reports the one-time bwrap probe. Needs the built engine:
//   npx tsc -b packages/engine && node scripts/bench/sandbox.mjs [--runs N] [--warmup N] [--json]
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../../packages/engine/dist/exec/', import.meta.url));
for (const file of ['exec-session.js', 'sandbox-probe.js']) {
  if (!existsSync(path.join(dist, file))) {
    console.error(`missing ${path.join(dist, file)}; run \`npx tsc -b packages/engine\` (or \`pnpm build\`) first`);
    process.exit(1);
  }
}
const { ExecSessionManager } = await import(pathToFileURL(path.join(dist, 'exec-session.js')).href);
const { checkSandboxAvailable } = await import(pathToFileURL(path.join(dist, 'sandbox-probe.js')).href);

function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}
const RUNS = flag('runs', 40);
const WARMUP = flag('warmup', 3);
const AS_JSON = process.argv.includes('--json');

const COMMANDS = [
  { name: 'true', argv: ['true'] },
  { name: 'echo hi', argv: ['echo', 'hi'] },
  { name: "bash -c 'echo hi'", argv: ['/bin/bash', '-c', 'echo hi'] },
];
const POLICIES = [
  { name: 'unsandboxed', policy: { type: 'danger-full-access' } },
  { name: 'read-only', policy: { type: 'read-only', networkAccess: false } },
  {
    name: 'workspace-write',
    policy: { type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false },
  },
];

/** The q-quantile (0..1) of sorted numbers, by nearest rank. */
function quantile(sorted, q) {
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

function summarise(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
  return { runs: samples.length, medianMs: quantile(sorted, 0.5), p95Ms: quantile(sorted, 0.95), minMs: sorted[0], meanMs: mean };
}

const probeStarted = performance.now();
const availability = await checkSandboxAvailable();
const probeMs = performance.now() - probeStarted;
if (!availability.ok) {
  console.error(`the sandbox is unavailable here: ${availability.message}`);
  process.exit(1);
}

const cwd = await realpath(await mkdtemp(path.join(os.tmpdir(), 'deputy-bench-sandbox-')));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, LANG: 'C.UTF-8' };
const manager = new ExecSessionManager();
const results = [];
try {
  for (const command of COMMANDS) {
    // Policies take turns within each round, so drift in machine load hits all of them alike.
    const samples = new Map(POLICIES.map(({ name }) => [name, []]));
    for (let i = 0; i < WARMUP + RUNS; i += 1) {
      for (const { name, policy } of POLICIES) {
        const started = performance.now();
        const snapshot = await manager.start({
          argv: command.argv,
          cwd,
          env,
          tty: false,
          sandbox: policy,
          signal: new AbortController().signal,
          yieldTimeMs: 30_000,
        });
        const elapsed = performance.now() - started;
        if (snapshot.exitCode !== 0) throw new Error(`${command.name} under ${name} exited with ${snapshot.exitCode}: ${snapshot.output}`);
        if (i >= WARMUP) samples.get(name).push(elapsed);
      }
    }
    for (const { name } of POLICIES) results.push({ command: command.name, sandbox: name, ...summarise(samples.get(name)) });
  }
} finally {
  await manager.killAll();
  await rm(cwd, { recursive: true, force: true });
}

const rows = results.map((row) => {
  const base = results.find((r) => r.command === row.command && r.sandbox === 'unsandboxed');
  return { ...row, ratio: row.medianMs / base.medianMs, overheadMs: row.medianMs - base.medianMs };
});

if (AS_JSON) {
  console.log(JSON.stringify({ bwrap: availability.bwrapPath, probeMs, runs: RUNS, warmup: WARMUP, cpus: os.cpus().length, rows }, null, 2));
} else {
  const fmt = (ms) => ms.toFixed(2).padStart(8);
  console.log(`sandbox bench: ${RUNS} runs each after ${WARMUP} warm-up runs, ${os.cpus().length} CPUs, node ${process.version}`);
  console.log(`bwrap: ${availability.bwrapPath}; first probe (one-time, cached): ${probeMs.toFixed(1)} ms`);
  console.log('');
  console.log(`${'command'.padEnd(20)}${'sandbox'.padEnd(18)}${'median ms'.padStart(10)}${'p95 ms'.padStart(10)}${'min ms'.padStart(10)}${'ratio'.padStart(8)}${'+ms'.padStart(9)}`);
  for (const r of rows) {
    const ratio = r.sandbox === 'unsandboxed' ? '1.00x' : `${r.ratio.toFixed(2)}x`;
    const extra = r.sandbox === 'unsandboxed' ? '' : r.overheadMs.toFixed(2);
    console.log(`${r.command.padEnd(20)}${r.sandbox.padEnd(18)}  ${fmt(r.medianMs)}  ${fmt(r.p95Ms)}  ${fmt(r.minMs)}${ratio.padStart(8)}${extra.padStart(9)}`);
  }
}
