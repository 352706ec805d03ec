#!/usr/bin/env node
// MCP server benchmark: Deputy's MCP server as users run it, `deputy mcp-server` (stdio, the CLI's
// `apps/cli/dist/deputy.cjs`, which hands over to the server's bundle), and, when DEPUTY_BENCH_REFERENCE
// names the native `codex` binary of @openai/codex 0.130.0 (installed in a scratch folder outside
// the repo; else the one scripts/install-codex-tui.sh caches), the reference `codex mcp-server` — both against the same scripted model server,
// approvals off, no sandbox. Measures process start → `initialize` response (`deputy mcp-server`,
// the server's bundle `apps/mcp-server/bundle/main.js` alone for information, the native reference,
// and the reference's npm launcher `bin/codex.js` when it sits next to the binary; the target is
// `deputy mcp-server` ≤ 1.0× the launcher, what users of the reference run),
// idle RSS after the handshake, and `tools/call codex` / `codex-reply` echo latency (median,
// p95); prints ratios against the issue's targets and exits 1 when one is missed.
//   pnpm build && node scripts/bench/mcp.mjs [--quick] [--runs N] [--calls N]
//   DEPUTY_BENCH_REFERENCE=/path/to/codex node scripts/bench/mcp.mjs
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findCodexBinary, REPO_ROOT } from './lib/paths.mjs';
import { num, numberFlag, ratio, sampleInTurn, summarize, table } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const RUNS = numberFlag(argv, 'runs', quick ? 5 : 15);
const CALLS = numberFlag(argv, 'calls', quick ? 10 : 40);
const WARMUP = 3;
const log = (message) => console.error(`[bench mcp] ${message}`);

const CLI_MAIN = path.join(REPO_ROOT, 'apps/cli/dist/deputy.cjs');
const SERVER_MAIN = path.join(REPO_ROOT, 'apps/mcp-server/bundle/main.js');
const TEST_SUPPORT = path.join(REPO_ROOT, 'packages/test-support/dist/index.js');
/** `deputy mcp-server` must be at most this many times the reference's npm launcher (issue 17). */
const STARTUP_TARGET = 1.0;
for (const file of [CLI_MAIN, SERVER_MAIN, TEST_SUPPORT]) {
  if (!existsSync(file)) {
    console.error(`mcp bench: ${path.relative(REPO_ROOT, file)} is missing; run \`pnpm build\` first`);
    process.exit(2);
  }
}

/** A line-delimited JSON-RPC client over a child's stdio (no SDK, so both servers get the same client). */
class LineClient {
  constructor(child) {
    this.child = child;
    this.waiters = new Map();
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.id !== undefined && !message.method && this.waiters.has(message.id)) {
          this.waiters.get(message.id)(message);
          this.waiters.delete(message.id);
        }
      }
    });
    this.exited = new Promise((resolve) => child.once('exit', resolve));
  }

  request(id, method, params, timeoutMs = 60_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method} (${id}) timed out`)), timeoutMs);
      this.waiters.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    });
  }

  notify(method) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async stop() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
    await this.exited;
    clearTimeout(timer);
  }
}

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deputy-bench', version: '1.0' } };

/** Resident set size of a process in MiB (Linux /proc), or null elsewhere. */
function rssMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Spawns `command`, sends initialize at once, returns the time to its response. */
async function timeStartup(target) {
  const started = performance.now();
  const child = spawn(target.command, target.args, { env: target.env, cwd: target.cwd, stdio: ['pipe', 'pipe', 'ignore'] });
  const client = new LineClient(child);
  try {
    await client.request(0, 'initialize', INITIALIZE, 30_000);
    return performance.now() - started;
  } finally {
    await client.stop();
  }
}

/** Starts a server, handshakes, measures idle RSS, then echo latencies of codex and codex-reply. */
async function measureSession(target) {
  const child = spawn(target.command, target.args, { env: target.env, cwd: target.cwd, stdio: ['pipe', 'pipe', 'ignore'] });
  const client = new LineClient(child);
  let id = 1;
  try {
    await client.request(id++, 'initialize', INITIALIZE, 30_000);
    client.notify('notifications/initialized');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idleRss = rssMiB(child.pid);
    await client.request(id++, 'tools/list', {});
    const call = (name, args) => client.request(id++, 'tools/call', { name, arguments: args });
    let threadId = null;
    for (let i = 0; i < WARMUP; i++) threadId = (await call('codex', { prompt: 'warm up', cwd: target.cwd })).structuredContent?.threadId ?? threadId;
    const codex = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      const result = await call('codex', { prompt: `echo ${i}`, cwd: target.cwd });
      codex.push(performance.now() - t0);
      threadId = result.structuredContent?.threadId ?? threadId;
      if (!JSON.stringify(result).includes(`ECHO: echo ${i}`)) throw new Error(`${target.name}: unexpected codex result ${JSON.stringify(result).slice(0, 300)}`);
    }
    const reply = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      const result = await call('codex-reply', { prompt: `again ${i}`, threadId });
      reply.push(performance.now() - t0);
      if (!JSON.stringify(result).includes(`ECHO: again ${i}`)) throw new Error(`${target.name}: unexpected codex-reply result ${JSON.stringify(result).slice(0, 300)}`);
    }
    return { idleRss, busyRss: rssMiB(child.pid), codex: summarize(codex), reply: summarize(reply) };
  } finally {
    await client.stop();
  }
}

/** Finds `@openai/codex/bin/codex.js` above the native binary (the npm launcher users run). */
function findLauncher(binary) {
  if (process.env.DEPUTY_BENCH_REFERENCE_LAUNCHER) return process.env.DEPUTY_BENCH_REFERENCE_LAUNCHER;
  for (let dir = path.dirname(binary); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
    if (existsSync(candidate)) return candidate;
    if (path.basename(dir) === 'node_modules' && existsSync(path.join(dir, '@openai', 'codex', 'bin', 'codex.js'))) return path.join(dir, '@openai', 'codex', 'bin', 'codex.js');
  }
  return null;
}

async function main() {
  const { startScriptedModelServer, text, conversationTail } = await import(pathToFileURL(TEST_SUPPORT).href);
  const model = await startScriptedModelServer();
  model.setHandler((request) => {
    const tail = conversationTail(request);
    return { output: [text(`ECHO: ${tail.kind === 'user' ? tail.text : ''}`)] };
  });
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'deputy-bench-mcp-'));
  const workspace = path.join(scratch, 'ws');
  await mkdir(workspace);
  const providerToml = () =>
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${model.url}"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
    ].join('\n');
  const baseEnv = { PATH: process.env.PATH, HOME: scratch, LANG: 'C.UTF-8' };
  const targets = [];
  const deputyHome = path.join(scratch, 'deputy-home');
  await mkdir(deputyHome);
  await writeFile(path.join(deputyHome, 'config.toml'), providerToml());
  const deputyEnv = { ...baseEnv, DEPUTY_HOME: deputyHome, DEPUTY_LOG: 'error' };
  targets.push({ name: 'deputy', command: process.execPath, args: [CLI_MAIN, 'mcp-server'], env: deputyEnv, cwd: workspace });
  targets.push({ name: 'deputy-bundle', command: process.execPath, args: [SERVER_MAIN], env: deputyEnv, cwd: workspace, startupOnly: true });
  const reference = process.env.DEPUTY_BENCH_REFERENCE || findCodexBinary();
  let launcher = null;
  if (reference) {
    if (!existsSync(reference)) throw new Error(`DEPUTY_BENCH_REFERENCE=${reference} does not exist`);
    const codexHome = path.join(scratch, 'codex-home');
    await mkdir(codexHome);
    await writeFile(path.join(codexHome, 'config.toml'), providerToml());
    const env = { ...baseEnv, CODEX_HOME: codexHome, RUST_LOG: 'error' };
    targets.push({ name: 'reference', command: reference, args: ['mcp-server'], env, cwd: workspace });
    launcher = findLauncher(reference);
    if (launcher) targets.push({ name: 'reference-launcher', command: process.execPath, args: [launcher, 'mcp-server'], env, cwd: workspace, startupOnly: true });
  } else {
    log('DEPUTY_BENCH_REFERENCE is not set: measuring Deputy only (set it to the native codex binary of @openai/codex 0.130.0 to compare)');
  }

  const results = {};
  try {
    // Start-ups take turns (sampleInTurn): no target always starts right after the same other
    // one (the launcher's native child may still be exiting when the next start begins).
    log(`start-up × ${RUNS}, alternating: ${targets.map((t) => t.name).join(', ')}`);
    const startups = await sampleInTurn(targets, RUNS, timeStartup);
    for (const target of targets) {
      results[target.name] = { startup: summarize(startups.get(target.name)) };
      if (target.startupOnly) continue;
      log(`${target.name}: echo turns × ${CALLS} (codex) + ${CALLS} (codex-reply)`);
      Object.assign(results[target.name], await measureSession(target));
    }
  } finally {
    await model.close();
    await rm(scratch, { recursive: true, force: true });
  }
  report(results);
}

function report(results) {
  const d = results.deputy;
  const r = results.reference;
  const l = results['reference-launcher'];
  const b = results['deputy-bundle'];
  const rows = [
    ['start-up → initialize, median (ms)', num(d.startup.median), num(r?.startup.median), num(l?.startup.median), ratio(d.startup.median, l?.startup.median ?? r?.startup.median), `≤ ${STARTUP_TARGET.toFixed(1)}× (launcher)`],
    ['start-up → initialize, p95 (ms)', num(d.startup.p95), num(r?.startup.p95), num(l?.startup.p95), ratio(d.startup.p95, l?.startup.p95 ?? r?.startup.p95), ''],
    ['  bundle alone (no CLI), median (ms)', num(b.startup.median), '', '', ratio(b.startup.median, l?.startup.median ?? r?.startup.median), 'info'],
    ['idle RSS after handshake (MiB)', num(d.idleRss), num(r?.idleRss), '', ratio(d.idleRss, r?.idleRss), '≤ 1.5×'],
    ['RSS after the echo turns (MiB)', num(d.busyRss), num(r?.busyRss), '', ratio(d.busyRss, r?.busyRss), ''],
    ['codex echo, median (ms)', num(d.codex.median), num(r?.codex.median), '', ratio(d.codex.median, r?.codex.median), '≤ 1.0×'],
    ['codex echo, p95 (ms)', num(d.codex.p95), num(r?.codex.p95), '', ratio(d.codex.p95, r?.codex.p95), ''],
    ['codex-reply echo, median (ms)', num(d.reply.median), num(r?.reply.median), '', ratio(d.reply.median, r?.reply.median), '≤ 1.0×'],
    ['codex-reply echo, p95 (ms)', num(d.reply.p95), num(r?.reply.p95), '', ratio(d.reply.p95, r?.reply.p95), ''],
  ];
  console.log(`MCP server bench (${RUNS} start-ups, ${CALLS} calls each; node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  console.log('deputy = `node apps/cli/dist/deputy.cjs mcp-server` (what users run); the bundle row starts apps/mcp-server/bundle/main.js directly');
  console.log(table(['measure', 'deputy', 'codex (native)', 'codex (npm launcher)', 'ratio', 'target'], rows));
  if (!r) return;
  const launcherStartup = l?.startup.median ?? r.startup.median;
  console.log(`\`deputy mcp-server\` start-up vs native binary: ${ratio(d.startup.median, r.startup.median)}; vs the launcher users run: ${ratio(d.startup.median, launcherStartup)}`);
  const targets = [
    ['start-up', d.startup.median / launcherStartup, STARTUP_TARGET],
    ['idle RSS', d.idleRss / r.idleRss, 1.5],
    ['codex echo', d.codex.median / r.codex.median, 1.0],
    ['codex-reply echo', d.reply.median / r.reply.median, 1.0],
  ];
  const missed = targets.filter(([, value, limit]) => Number.isFinite(value) && value > limit);
  console.log(missed.length === 0 ? 'targets: all met' : `targets missed: ${missed.map(([name, value, limit]) => `${name} ${num(value, 2)}× > ${limit}×`).join(', ')}`);
  if (missed.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
