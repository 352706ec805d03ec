/**
 * The app-server half of the MCP client bench, run the same way against Deputy's app-server and
 * the reference `codex app-server` (`ctx.kind` is `deputy` or `reference`), both on stdio with a
 * temp home whose config.toml adds `[mcp_servers.*]` entries running
 * `scripts/bench/fixtures/mcp-bench-server.mjs`: `mcpServerStatus/list` latency with many
 * servers × tools once they are ready (and the servers' resident memory), the first turn's end
 * while one server is slow to start, and the overhead of a model-driven MCP tool call as the
 * client sees it (`item/started` → `item/completed` of the mcpToolCall item, minus the server's
 * own time). Every server process it starts is closed (by PID) before a function returns.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTurn, spawnAppServer, startThread } from './app-server-client.mjs';
import { benchConfigToml, serverSpawnOptions } from './homes.mjs';
import { summarize } from './stats.mjs';

/** The fixture MCP server (stdio, no SDK). */
export const MCP_FIXTURE = fileURLToPath(new URL('../fixtures/mcp-bench-server.mjs', import.meta.url));

/** One `[mcp_servers.NAME]` table running the fixture with `env` (an object of strings). */
export function mcpServerToml(name, env = {}) {
  const pairs = Object.entries(env).map(([k, v]) => `${k} = ${JSON.stringify(String(v))}`);
  return [
    `[mcp_servers.${name}]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = [${JSON.stringify(MCP_FIXTURE)}]`,
    ...(pairs.length > 0 ? [`env = { ${pairs.join(', ')} }`] : []),
    '',
  ].join('\n');
}

/** A temp home with the bench config plus `tables` (TOML text); `cleanup()` removes it. */
async function makeMcpHome(kind, modelUrl, tables) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `deputy-bench-mcp-${kind}-home-`));
  await writeFile(path.join(dir, 'config.toml'), `${await benchConfigToml(modelUrl)}\n${tables.join('\n')}`);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `fn(client)` against a fresh server on a home with `tables`, then closes both. */
async function withMcpServer(ctx, tables, fn) {
  const home = await makeMcpHome(ctx.kind, ctx.modelUrl, tables);
  let client;
  try {
    client = await spawnAppServer({ ...serverSpawnOptions(ctx.kind, home.dir, { bin: ctx.bin, cwd: ctx.cwd }), timeoutMs: 60_000 });
    return await fn(client);
  } finally {
    await client?.close();
    await home.cleanup();
  }
}

/** Resolves once every name in `names` reported `ready` (or after `waitMs`); returns the ready set. */
function watchReady(client, names, waitMs) {
  const ready = new Set();
  let stop;
  const done = new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(ready);
    }, waitMs);
    stop = client.onNotification((m) => {
      if (m.method !== 'mcpServer/startupStatus/updated' || m.params?.status !== 'ready') return;
      ready.add(m.params.name);
      if (names.every((n) => ready.has(n))) {
        clearTimeout(timer);
        stop();
        resolve(ready);
      }
    });
  });
  return done;
}

/** RSS (KiB) of `pid` itself, or null. */
function rssKbOf(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** RSS (KiB) of every running fixture server process (Linux /proc). */
function fixtureRssKb() {
  if (process.platform !== 'linux') return [];
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(MCP_FIXTURE)) continue;
    } catch {
      continue;
    }
    const rss = rssKbOf(Number(name));
    if (rss !== null) out.push(rss);
  }
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `mcpServerStatus/list` (all pages, full detail) on a server with `servers` MCP servers of
 * `tools` tools each, after a thread started them and all reported ready: `runs` timed calls
 * after 3 unmeasured ones. Also the server's own RSS with them connected against a server whose
 * config has none (same thread start), and the fixture children's RSS.
 */
export async function measureStatusList(ctx, { servers, tools, runs }) {
  const names = Array.from({ length: servers }, (_, i) => `s${i}`);
  const baseKb = await withMcpServer(ctx, [], async (client) => {
    await startThread(client, { cwd: ctx.cwd });
    await sleep(500);
    return rssKbOf(client.pid);
  });
  const tables = names.map((n) => mcpServerToml(n, { BENCH_TOOLS: tools }));
  return withMcpServer(ctx, tables, async (client) => {
    const ready = watchReady(client, names, 30_000);
    await startThread(client, { cwd: ctx.cwd });
    const readyNames = await ready;
    const check = (result) => {
      const counts = result.data.map((s) => Object.keys(s.tools ?? {}).length);
      return { servers: result.data.length, minTools: counts.length ? Math.min(...counts) : 0 };
    };
    // Some servers may not notify; poll the list until every server lists its tools.
    let seen = check(await client.request('mcpServerStatus/list', {}));
    for (let i = 0; i < 100 && (seen.servers < servers || seen.minTools < tools); i++) {
      await sleep(100);
      seen = check(await client.request('mcpServerStatus/list', {}));
    }
    const samples = [];
    for (let i = 0; i < runs + 3; i++) {
      const timed = await client.requestTimed('mcpServerStatus/list', {});
      if (i >= 3) samples.push(timed.ms);
    }
    await sleep(300);
    const ownKb = rssKbOf(client.pid);
    const children = fixtureRssKb();
    return {
      list: summarize(samples),
      notifiedReady: readyNames.size,
      seen,
      ownGrowthPerServerKb: ownKb !== null && baseKb !== null ? (ownKb - baseKb) / servers : null,
      childRssKb: children.length > 0 ? summarize(children).median : null,
      children: children.length,
    };
  });
}

/**
 * Spawn and `initialize` a server whose one MCP server takes `slowMs` to start, warm it with a
 * `thread/list`; then, timed from `thread/start`, a thread and one echo turn until `turn/completed`.
 */
export async function measureSlowFirstTurn(ctx, slowMs) {
  return withMcpServer(ctx, [mcpServerToml('slow', { SLOW_START_MS: slowMs })], async (client) => {
    // A running server (both sides load lazily what thread/list needs): the one-time start of
    // the server's own store is not what this row measures.
    await client.request('thread/list', {});
    const t0 = performance.now();
    const threadId = await startThread(client, { cwd: ctx.cwd });
    const threadStartMs = performance.now() - t0;
    await runTurn(client, threadId, 'hello');
    return { firstTurnMs: performance.now() - t0, threadStartMs };
  });
}

/**
 * `warmup` + `calls` turns in which the model calls the fixture's `work` tool once (the model
 * script answers `mcp` with a call of `mcp__bench__work`). Per call: the client-side time from
 * the mcpToolCall item's `item/started` to its `item/completed`, minus the server's own time
 * (`_meta.serverMs` when passed through, else 0); per turn: wall minus model time (`proxy`
 * records) minus server time.
 */
export async function measureCallOverhead(ctx, proxy, { warmup, calls }) {
  return withMcpServer(ctx, [mcpServerToml('bench')], async (client) => {
    const ready = watchReady(client, ['bench'], 20_000);
    const threadId = await startThread(client, { cwd: ctx.cwd });
    await ready;
    const samples = [];
    for (let i = 0; i < warmup + calls; i++) {
      let started = 0;
      let completed = 0;
      let serverMs = 0;
      let failure = null;
      const off = client.onNotification((m) => {
        const item = m.params?.item;
        if (item?.type !== 'mcpToolCall') return;
        if (m.method === 'item/started') started = performance.now();
        if (m.method === 'item/completed') {
          completed = performance.now();
          serverMs = Number(item.result?._meta?.serverMs ?? 0) || 0;
          if (item.status !== 'completed') failure = item.error?.message ?? item.status;
        }
      });
      const from = proxy.records.length;
      let wall;
      try {
        wall = await runTurn(client, threadId, 'mcp');
      } finally {
        off();
      }
      if (!started || !completed) throw new Error(`${ctx.kind}: no mcpToolCall item in the turn`);
      if (failure) throw new Error(`${ctx.kind}: MCP call failed: ${failure}`);
      for (let j = 0; j < 100 && proxy.records.slice(from).some((r) => Number.isNaN(r.endMs)); j++) await sleep(1);
      if (i >= warmup) samples.push({ call: completed - started - serverMs, turn: wall - proxy.modelMsSince(from) - serverMs });
    }
    return { call: summarize(samples.map((s) => s.call)), turn: summarize(samples.map((s) => s.turn)) };
  });
}
