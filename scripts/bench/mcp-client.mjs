#!/usr/bin/env node
// MCP client benchmark (the engine using configured MCP servers), approvals off, no sandbox, the
// scripted model behind a timing proxy, with the fixture stdio server
// scripts/bench/fixtures/mcp-bench-server.mjs. In process (Deputy's engine):
//   1. per-call overhead of a model-driven MCP call beyond the server's own time: the time from
//      the mcpToolCall item's start to its completion minus the time the server itself reports
//      (goal < 5 ms median), and the whole turn minus model time minus server time;
//   2. time to the first turn's end while a configured server takes 8 s to start (goal ≤ 2.5 s:
//      the turn waits `mcp_startup_grace_ms`, 2 s by default; the reference waits for the server);
//   3. RSS per connected stdio server: the child's own RSS and the engine's growth per server.
// Side by side over stdio, Deputy's app-server (apps/app-server/bundle/main.js) and the reference
// `codex app-server` 0.130.0 (left out, "—", when not installed):
//   4. `mcpServerStatus/list` with 10 servers × 50 tools once they are ready (goal < 50 ms median);
//   5. `thread/start` → `turn/completed` of an echo turn while one server takes 8 s to start;
//   6. the model-driven call's overhead as a client sees it (item/started → item/completed);
//   7. the server's own RSS growth per connected stdio server.
//   pnpm build && node scripts/bench/mcp-client.mjs [--quick] [--calls N] [--servers N]
//     [--slow-start-ms N] [--list-servers N] [--list-tools N] [--list-runs N] [--only deputy|reference]
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { measureCallOverhead, measureSlowFirstTurn, measureStatusList, mcpServerToml } from './lib/mcp-app-server.mjs';
import { startTimingProxy } from './lib/model-script.mjs';
import { startNamespaceProxy } from './lib/namespace-proxy.mjs';
import { findCodexBinary, importDist, missingDist, requireDist } from './lib/paths.mjs';
import { num, numberFlag, ratio, summarize, table } from './lib/stats.mjs';

const CALL_GOAL_MS = 5;
const FIRST_TURN_GOAL_MS = 2500;
const LIST_GOAL_MS = 50;
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : null;
const calls = numberFlag(argv, 'calls', quick ? 20 : 100);
const warmup = numberFlag(argv, 'warmup', quick ? 3 : 10);
const serverCount = numberFlag(argv, 'servers', 5);
const slowStartMs = numberFlag(argv, 'slow-start-ms', 8000);
const listServers = numberFlag(argv, 'list-servers', 10);
const listTools = numberFlag(argv, 'list-tools', 50);
const listRuns = numberFlag(argv, 'list-runs', quick ? 10 : 30);
const log = (message) => console.error(`[bench mcp-client] ${message}`);

requireDist(['engine', 'testSupport', 'client'], 'mcp-client bench');
const engine = await importDist('engine');
const ts = await importDist('testSupport');

const kinds = [];
if (only !== 'reference') {
  if (missingDist(['appServer']).length === 0) kinds.push('deputy');
  else log('apps/app-server/bundle/main.js is missing (run `pnpm build`); app-server rows left out for Deputy');
}
const bin = findCodexBinary();
if (only !== 'deputy') {
  if (bin) kinds.push('reference');
  else log('reference not installed (bash scripts/install-codex-tui.sh); reference columns left out');
}

const handler = (request) => {
  const tail = ts.conversationTail(request);
  if (tail.kind === 'user' && tail.text.trim() === 'mcp') return { output: [ts.functionCall('mcp__bench__work', {})] };
  if (tail.kind === 'tool-output') return { output: [ts.text('done')] };
  return { output: [ts.text('ECHO')] };
};
const model = await ts.startScriptedModelServer({ handler, models: ['mock-model'] });
const proxy = await startTimingProxy(model.url);
// The app-servers' model path: the reference offers MCP tools as Responses `namespace` tools.
const namespaced = await startNamespaceProxy(model.url);
const appProxy = await startTimingProxy(namespaced.url);
const home = await mkdtemp(path.join(os.tmpdir(), 'deputy-mcp-client-home-'));
const cwd = await mkdtemp(path.join(os.tmpdir(), 'deputy-mcp-client-cwd-'));

async function open(servers) {
  await writeFile(
    path.join(home, 'config.toml'),
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      ...servers,
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${proxy.url}"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  const config = await engine.loadConfig({ home, cwd, env: process.env });
  const runtime = await engine.EngineRuntime.create({ config, approvals: engine.fixedApprovals('approved'), source: 'exec' });
  return engine.ThreadManager.open(runtime);
}

async function settledModelMs(from) {
  for (let i = 0; i < 100 && proxy.records.slice(from).some((r) => Number.isNaN(r.endMs)); i++) await new Promise((r) => setImmediate(r));
  return proxy.modelMsSince(from);
}

function childRssKb() {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,rss=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out.trim().split('\n').filter(Boolean).map((l) => Number(l.trim().split(/\s+/)[1]));
  } catch {
    return [];
  }
}

/** The app-server measurements of one kind; a failed one is logged and left null. */
async function measureAppServer(kind) {
  const ctx = { kind, bin, cwd, modelUrl: appProxy.url };
  const out = { list: null, slow: null, call: null, errors: [] };
  const attempt = async (key, fn) => {
    log(`${kind}: ${key}`);
    try {
      out[key] = await fn();
    } catch (error) {
      out.errors.push(`${key}: ${error?.message ?? error}`);
      log(`${kind}: ${key} failed: ${String(error?.stack ?? error)}`);
    }
  };
  await attempt('list', () => measureStatusList(ctx, { servers: listServers, tools: listTools, runs: listRuns }));
  await attempt('slow', () => measureSlowFirstTurn(ctx, slowStartMs));
  await attempt('call', () => measureCallOverhead(ctx, appProxy, { warmup, calls }));
  return out;
}

let manager = null;
try {
  // 1. Per-call overhead.
  manager = await open(['mcp_startup_grace_ms = 20000', mcpServerToml('bench')]);
  const thread = await manager.start({ cwd });
  const samples = [];
  for (let i = 0; i < warmup + calls; i++) {
    let started = 0;
    let completed = 0;
    let serverMs = 0;
    const off = thread.events.subscribe((e) => {
      if (e.type === 'item.started' && e.item.type === 'mcpToolCall') started = performance.now();
      if (e.type === 'item.completed' && e.item.type === 'mcpToolCall') {
        completed = performance.now();
        serverMs = e.item.result?._meta?.serverMs ?? 0;
      }
    });
    const from = proxy.records.length;
    const t0 = performance.now();
    const info = await thread.startTurn([{ type: 'text', text: 'mcp' }]).done;
    const wall = performance.now() - t0;
    off();
    if (info.status !== 'completed' || !completed) throw new Error(`turn ended ${info.status}`);
    const modelMs = await settledModelMs(from);
    if (i >= warmup) samples.push({ call: completed - started - serverMs, turn: wall - modelMs - serverMs });
  }
  const call = summarize(samples.map((s) => s.call));
  const turn = summarize(samples.map((s) => s.turn));
  await manager.close();
  manager = null;

  // 2. First turn while a server takes slowStartMs to start.
  manager = await open([mcpServerToml('slow', { SLOW_START_MS: slowStartMs })]);
  const t0 = performance.now();
  const slowThread = await manager.start({ cwd });
  const startMs = performance.now() - t0;
  await slowThread.startTurn([{ type: 'text', text: 'hello' }]).done;
  const firstTurnMs = performance.now() - t0;
  await manager.close();
  manager = null;

  // 3. RSS per connected stdio server.
  if (typeof global.gc === 'function') global.gc();
  const before = process.memoryUsage().rss;
  const childrenBefore = childRssKb().length;
  manager = await open(['mcp_startup_grace_ms = 20000', ...Array.from({ length: serverCount }, (_, i) => mcpServerToml(`s${i}`))]);
  const rssThread = await manager.start({ cwd });
  for (let i = 0; i < 200 && rssThread.mcpServerStatuses().some((s) => s.status === 'starting'); i++) await new Promise((r) => setTimeout(r, 50));
  const after = process.memoryUsage().rss;
  const children = childRssKb().slice(childrenBefore);
  const childMedianMb = children.length ? summarize(children).median / 1024 : Number.NaN;
  await manager.close();
  manager = null;

  // 4–7. Over stdio, Deputy's app-server and the reference.
  const results = {};
  for (const kind of kinds) results[kind] = await measureAppServer(kind);
  const ours = results.deputy ?? null;
  const ref = results.reference ?? null;

  const verdict = (value, ok) => (value === null || value === undefined || Number.isNaN(value) ? '—' : ok(value) ? 'ok' : 'MISS');
  const pick = (r, fn) => {
    try {
      return r ? (fn(r) ?? null) : null;
    } catch {
      return null;
    }
  };
  /** A row: measure, deputy, reference, ratio, goal, verdict (`ok(deputyValue)`, or none). */
  const row = (name, deputy, reference, digits, goal = '', ok = null) => [
    name,
    num(deputy, digits),
    num(reference, digits),
    ratio(deputy, reference),
    goal,
    ok ? verdict(deputy, ok) : '',
  ];
  const a = (fn) => pick(ours, fn);
  const b = (fn) => pick(ref, fn);
  const listNote = (r) => (r?.list ? `${r.list.seen.servers}×${r.list.seen.minTools}` : '—');
  const rows = [
    row('in process: per-call overhead (item start → completed − server), median ms', call.median, null, 2, `< ${CALL_GOAL_MS}`, (v) => v < CALL_GOAL_MS),
    row('in process: per-call overhead, p95 ms', call.p95, null, 2),
    row('in process: turn overhead with one MCP call (wall − model − server), median ms', turn.median, null, 2),
    row(`in process: first turn end, one server taking ${slowStartMs / 1000} s to start, ms`, firstTurnMs, null, 0, `≤ ${FIRST_TURN_GOAL_MS}`, (v) => v <= FIRST_TURN_GOAL_MS),
    row('in process:   of which thread start, ms', startMs, null, 1),
    row(`in process: RSS per connected stdio server (child, ${children.length} children), MiB`, childMedianMb, null, 1),
    row(`in process: engine RSS growth per server (${serverCount} servers), MiB`, (after - before) / serverCount / 1024 / 1024, null, 2),
    row(`app-server: mcpServerStatus/list, ${listServers} servers × ${listTools} tools, median ms`, a((r) => r.list.list.median), b((r) => r.list.list.median), 2, `< ${LIST_GOAL_MS}`, (v) => v < LIST_GOAL_MS),
    row('app-server: mcpServerStatus/list, p95 ms', a((r) => r.list.list.p95), b((r) => r.list.list.p95), 2),
    row(`app-server: first turn (thread/start → turn/completed), one server taking ${slowStartMs / 1000} s, ms`, a((r) => r.slow.firstTurnMs), b((r) => r.slow.firstTurnMs), 0, `≤ ${FIRST_TURN_GOAL_MS}`, (v) => v <= FIRST_TURN_GOAL_MS),
    row('app-server:   of which thread/start, ms', a((r) => r.slow.threadStartMs), b((r) => r.slow.threadStartMs), 1),
    row('app-server: per-call overhead (item/started → item/completed − server), median ms', a((r) => r.call.call.median), b((r) => r.call.call.median), 2, `< ${CALL_GOAL_MS}`, (v) => v < CALL_GOAL_MS),
    row('app-server: per-call overhead, p95 ms', a((r) => r.call.call.p95), b((r) => r.call.call.p95), 2),
    row('app-server: turn overhead with one MCP call (wall − model − server), median ms', a((r) => r.call.turn.median), b((r) => r.call.turn.median), 2),
    row(`app-server: own RSS growth per connected stdio server (${listServers} servers), MiB`, a((r) => r.list.ownGrowthPerServerKb / 1024), b((r) => r.list.ownGrowthPerServerKb / 1024), 2),
    row('app-server: RSS per stdio server child (fixture, node), MiB', a((r) => r.list.childRssKb / 1024), b((r) => r.list.childRssKb / 1024), 1),
  ];

  console.log(`MCP client: ${calls} model-driven calls after ${warmup} warm-up calls; stdio fixture server without SDK${quick ? '; --quick sizes' : ''}`);
  console.log(`app-server rows over stdio: ${kinds.length > 0 ? kinds.map((k) => (k === 'deputy' ? 'deputy (apps/app-server/bundle/main.js)' : `reference (${bin})`)).join(', ') : 'none'}`);
  console.log('');
  console.log(table(['measure', 'deputy', 'reference', 'ratio', 'goal', 'verdict'], rows));
  console.log('');
  console.log(`mcpServerStatus/list: ${listRuns} calls after 3 unmeasured ones, once every server listed its tools (seen: deputy ${listNote(ours)}, reference ${listNote(ref)})`);
  console.log('app-server call/notification times are taken where this client receives the lines; RSS growth is against a server with no MCP servers after the same thread/start');
  for (const [kind, r] of Object.entries(results)) for (const e of r.errors) console.log(`${kind}: not measured: ${e}`);
  const misses = rows.filter((r) => r[5] === 'MISS').map((r) => r[0]);
  if (misses.length > 0) console.log(`missed goals: ${misses.join('; ')}`);
  const deputyErrors = ours ? ours.errors.length : 0;
  process.exitCode = misses.length > 0 || deputyErrors > 0 ? 1 : 0;
} catch (error) {
  log(String(error?.stack ?? error));
  process.exitCode = 1;
} finally {
  await manager?.close();
  await proxy.close();
  await appProxy.close();
  await namespaced.close();
  await model.close();
  await rm(home, { recursive: true, force: true });
  await rm(cwd, { recursive: true, force: true });
}
