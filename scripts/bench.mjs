#!/usr/bin/env node
// `pnpm bench`: runs every benchmark script in scripts/bench/*.mjs in turn, each in its own Node
// process printing its own table, after checking that the build they import exists. Known
// benches run in a fixed order (list, read, sandbox, mcp, app-server, turn-overhead, robust, soak, scale), any other
// script after them alphabetically; helpers live in scripts/bench/lib/ and are not run.
//   pnpm bench                       # all of them
//   pnpm bench app-server list       # only these (names without .mjs)
//   pnpm bench -- --quick            # flags after the names are passed to every script
// Exit status: 0 when every bench ran and met its targets, 1 when one missed a target or failed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = path.join(root, 'scripts', 'bench');
const ORDER = ['list', 'read', 'sandbox', 'mcp', 'mcp-client', 'app-server', 'turn-overhead', 'robust', 'soak', 'scale'];
const REQUIRED_BUILD = ['packages/protocol/dist/index.js', 'packages/engine/dist/index.js', 'packages/test-support/dist/index.js'];

// Names come first; everything from the first flag on is passed through (flag values included).
const args = process.argv.slice(2).filter((a) => a !== '--');
const firstFlag = args.findIndex((a) => a.startsWith('-'));
const names = firstFlag === -1 ? args : args.slice(0, firstFlag);
const flags = firstFlag === -1 ? [] : args.slice(firstFlag);

const missing = REQUIRED_BUILD.filter((file) => !existsSync(path.join(root, file)));
if (missing.length > 0) {
  console.error(`pnpm bench: the build is missing (${missing.join(', ')}); run \`pnpm build\` first`);
  process.exit(2);
}

const available = readdirSync(benchDir)
  .filter((file) => file.endsWith('.mjs'))
  .map((file) => file.slice(0, -'.mjs'.length));
const rank = (name) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);
const selected = available
  .filter((name) => names.length === 0 || names.includes(name))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
const unknown = names.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`pnpm bench: no such bench: ${unknown.join(', ')} (available: ${available.join(', ')})`);
  process.exit(2);
}

/** Runs one bench script with inherited stdio; resolves with its exit code and duration. */
function runBench(name) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(benchDir, `${name}.mjs`), ...flags], { cwd: root, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve({ name, code: code ?? (signal ? 128 : 1), seconds: (performance.now() - started) / 1000 }));
    child.on('error', (error) => {
      console.error(`pnpm bench: ${name}: ${error.message}`);
      resolve({ name, code: 1, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/**
 * What the figures depend on, printed first: the cores, the load, and how long a login shell takes
 * here (the shell rows and the scale bench start hundreds of shells). Warns when either is off.
 */
function preflight() {
  const cores = os.cpus().length;
  const [load] = os.loadavg();
  const started = performance.now();
  const shell = spawnSync('bash', ['-lc', 'true'], { stdio: 'ignore', timeout: 30_000 });
  const shellMs = performance.now() - started;
  const shellText = shell.error?.code === 'ENOENT' ? 'no bash' : shell.error ? `\`bash -lc true\` failed (${shell.error.message})` : `\`bash -lc true\` ${shellMs.toFixed(0)} ms`;
  console.log(`machine: ${cores} cores, load average ${load.toFixed(2)}, Node ${process.version}, ${shellText}`);
  if (shell.error?.code !== 'ENOENT' && (shell.error || shellMs > 1_000)) {
    console.warn('pnpm bench: warning: a login shell takes over a second here (a stale pyenv lock? see docs/performance.md); the shell rows will measure that');
  }
  if (load > cores) console.warn(`pnpm bench: warning: the load average (${load.toFixed(2)}) is above the core count (${cores}); timings will measure the other work too`);
}

preflight();
const results = [];
for (const name of selected) {
  console.log(`\n=== bench: ${name} ===\n`);
  results.push(await runBench(name));
}

const verdict = (code) => (code === 0 ? 'ok' : code === 1 ? 'missed a target' : code === 2 ? 'not run (see above)' : `failed (exit ${code})`);
console.log('\n=== bench summary ===');
for (const r of results) console.log(`${r.name.padEnd(16)} ${r.seconds.toFixed(1).padStart(7)} s  ${verdict(r.code)}`);
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
