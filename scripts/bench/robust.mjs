#!/usr/bin/env node
// Robustness bench: the built app-server on stdio, ws and unix at once. Per transport, a fuzz
// client sends seeded hostile frames (test-support `hostileFrame`) while a second client (ws)
// samples `thread/list`; printed: that client's latency p50/p99 idle and under fuzz, and the
// server's RSS before, right after, and after idling (twice as long, too). Then a slow consumer: a ws client that
// stops reading while owed 120 replies of ~2 MB; printed: the second client's p99 before and
// during, the RSS peak, and how the slow client was answered (-32001s, close code).
// Targets: p99 under fuzz < 50 ms on every transport, RSS after idle < 1.5x the start, and the
// slow consumer adds < 20 ms to the other client's p99.
//   pnpm build && node scripts/bench/robust.mjs [--frames N] [--seed N] [--idle-ms N]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { benchNodeFlags, makeHome } from './lib/homes.mjs';
import { startBenchModel } from './lib/model-script.mjs';
import { distPath, importDist, REPO_ROOT, requireDist } from './lib/paths.mjs';
import { num, numberFlag, summarize, table } from './lib/stats.mjs';

requireDist(['appServer', 'testSupport'], 'robust');
const WebSocket = createRequire(path.join(REPO_ROOT, 'apps/app-server/package.json'))('ws');
const { hostileFrame } = await importDist('testSupport');

const FRAMES = numberFlag(process.argv, 'frames', 3000);
const SEED = numberFlag(process.argv, 'seed', 20_261_201);
const IDLE_MS = numberFlag(process.argv, 'idle-ms', 5000);
const BATCH = 40;
let LIST_CWD = '';
let sampleCount = 0;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw peer: `send(text|Buffer)`, frames as text, `waitFor(pred)`, pause/resume, close code. */
function peer(kind, write, { pause = () => {}, resume = () => {}, close = () => {} } = {}) {
  const frames = [];
  const waiters = new Set();
  return {
    kind,
    frames,
    push(text) {
      frames.push(text);
      for (const w of waiters) w();
    },
    send: write,
    pause,
    resume,
    close,
    closeCode: null,
    waitFor(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        let from = 0;
        const check = () => {
          for (; from < frames.length; from++) {
            if (pred(frames[from])) {
              clearTimeout(timer);
              waiters.delete(check);
              return resolve(frames[from]);
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${kind}: no matching frame within ${timeoutMs} ms (last: ${String(frames[frames.length - 1]).slice(0, 200)}; ${frames.length} frames)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

async function wsPeer(url, kind = 'ws') {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const p = peer(kind, (text) => ws.readyState === ws.OPEN && ws.send(text), {
    pause: () => ws._socket.pause(),
    resume: () => ws._socket.resume(),
    close: () => ws.terminate(),
  });
  ws.on('message', (data) => p.push(data.toString()));
  ws.on('error', () => undefined);
  p.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  return p;
}

async function initialize(p) {
  p.send('{"method":"initialize","id":"init","params":{"clientInfo":{"name":"bench","version":"1"}}}');
  await p.waitFor((t) => t.includes('"id":"init"'), 30_000);
  p.send('{"method":"initialized"}');
  p.send('{"method":"thread/list","id":"warm","params":{}}');
  await p.waitFor((t) => t.includes('"id":"warm"'), 30_000);
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** Samples `thread/list` on `p` every `everyMs` until `stop()`; resolves with the latencies. */
function sample(p, everyMs = 10) {
  const latencies = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const id = `live-${p.kind}-${sampleCount++}`;
      const started = performance.now();
      // Only threads of the server's own cwd: the slow consumer's 2 MB-named thread lives elsewhere.
      p.send(`{"method":"thread/list","id":"${id}","params":{"limit":5,"cwd":${JSON.stringify(LIST_CWD)}}}`);
      await p.waitFor((t) => t.includes(`"id":"${id}"`), 30_000);
      latencies.push(performance.now() - started);
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

const model = await startBenchModel();
const home = await makeHome('deputy', model.url);
const socket = path.join(home.dir, 'robust.sock');
LIST_CWD = home.dir;
const child = spawn(process.execPath, [...benchNodeFlags(), distPath('appServer'), '--listen', 'stdio://', '--listen', 'ws://127.0.0.1:0', '--listen', `unix://${socket}`], {
  env: { ...process.env, DEPUTY_HOME: home.dir, DEPUTY_LOG: process.env.DEPUTY_LOG ?? 'error' },
  cwd: home.dir,
  stdio: ['pipe', 'pipe', 'pipe'],
});
let stderr = '';
child.stderr.on('data', (c) => (stderr += c.toString()));
const rows = [];
let missed = false;
try {
  const deadline = Date.now() + 30_000;
  while ([...stderr.matchAll(/listening on (\S+)/g)].length < 3) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the app-server did not start: ${stderr}`);
    await sleep(20);
  }
  const wsUrl = [...stderr.matchAll(/listening on (\S+)/g)][1][1];
  let buffer = '';
  const stdio = peer('stdio', (data) => child.stdin.write(typeof data === 'string' ? `${data}\n` : Buffer.concat([data, Buffer.from('\n')])));
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      stdio.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
  const watcher = await wsPeer(wsUrl, 'watcher');
  await initialize(watcher);
  const startRss = rssMiB(child.pid);
  const idle = sample(watcher);
  await sleep(1500);
  const idleStats = summarize(await idle.stop());

  for (const transport of ['stdio', 'ws', 'unix']) {
    const target = transport === 'stdio' ? stdio : transport === 'ws' ? await wsPeer(wsUrl) : await wsPeer(`ws+unix://${socket}:/`, 'unix');
    await initialize(target);
    const before = rssMiB(child.pid);
    const live = sample(watcher);
    let unanswered = 0;
    for (let start = 0; start < FRAMES; start += BATCH) {
      const frames = Array.from({ length: Math.min(BATCH, FRAMES - start) }, (_, i) => hostileFrame(SEED, start + i, transport === 'stdio' ? 'bytes' : 'text'));
      for (const f of frames) if (typeof f.data === 'string' || transport === 'stdio') target.send(f.data);
      for (const f of frames.filter((x) => x.expectsAnswer)) {
        const prefix = `"id":${f.idText}`;
        await target.waitFor((t) => t.startsWith(`{${prefix},`) || (t.startsWith('{"error"') && t.endsWith(`${prefix}}`)), 15_000).catch(() => unanswered++);
      }
    }
    const stats = summarize(await live.stop());
    const after = rssMiB(child.pid);
    if (transport !== 'stdio') target.close();
    rows.push([`fuzz ${transport} (${FRAMES} frames)`, num(stats.median), num(stats.p99), num(stats.max), `${num(before, 0)} → ${num(after, 0)}`, String(unanswered)]);
    if (stats.p99 >= 50 || unanswered > 0) missed = true;
  }
  await sleep(IDLE_MS);
  const idleRss = rssMiB(child.pid);
  await sleep(IDLE_MS);
  const laterRss = rssMiB(child.pid);

  // The slow consumer: a thread with a 2 MB name, read 120 times by a client that does not read.
  watcher.send(JSON.stringify({ method: 'thread/start', id: 'slow-thread', params: { cwd: os.tmpdir() } }));
  const threadId = JSON.parse(await watcher.waitFor((t) => t.includes('"id":"slow-thread"'))).result.thread.id;
  watcher.send(JSON.stringify({ method: 'thread/name/set', id: 'slow-name', params: { threadId, name: 'n'.repeat(2 * 1024 * 1024) } }));
  await watcher.waitFor((t) => t.includes('"id":"slow-name"'));
  const calm = sample(watcher);
  await sleep(1500);
  const calmStats = summarize(await calm.stop());
  const slow = await wsPeer(wsUrl, 'slow');
  await initialize(slow);
  const slowBefore = rssMiB(child.pid);
  slow.pause();
  const busy = sample(watcher);
  for (let id = 1; id <= 120; id++) slow.send(JSON.stringify({ method: 'thread/read', id, params: { threadId } }));
  let peak = slowBefore;
  for (let i = 0; i < 30; i++) {
    await sleep(100);
    peak = Math.max(peak, rssMiB(child.pid));
  }
  const busyStats = summarize(await busy.stop());
  slow.resume();
  const closeCode = await Promise.race([slow.closed, sleep(15_000).then(() => 'open')]);
  const overloaded = slow.frames.filter((t) => t.includes('"code":-32001')).length;
  const results = slow.frames.filter((t) => t.startsWith('{"id":') && t.includes('"result"')).length;
  const effect = busyStats.p99 - calmStats.p99;
  if (effect >= 20 || idleRss >= 1.5 * startRss) missed = true;

  console.log(`seed ${SEED}; second client's thread/list every 10 ms over ws; idle p50 ${num(idleStats.median)} ms, p99 ${num(idleStats.p99)} ms\n`);
  console.log(table(['fuzz', 'p50 ms', 'p99 ms', 'max ms', 'RSS MiB before → after', 'unanswered'], rows));
  console.log(
    `\nRSS: start ${num(startRss, 0)} MiB, after ${IDLE_MS / 1000} s idle ${num(idleRss, 0)} MiB (${num(idleRss / startRss, 2)}x; target < 1.5x), after ${(2 * IDLE_MS) / 1000} s ${num(laterRss, 0)} MiB (${num(laterRss / startRss, 2)}x)`,
  );
  console.log(
    table(
      ['slow consumer (120 x 2 MB owed)', 'value'],
      [
        ['other client p99 before, ms', num(calmStats.p99)],
        ['other client p99 during, ms', num(busyStats.p99)],
        ['effect on p99, ms (target < 20)', num(effect)],
        ['RSS before → peak, MiB', `${num(slowBefore, 0)} → ${num(peak, 0)}`],
        ['slow client: full replies / -32001 / close code', `${results} / ${overloaded} / ${closeCode}`],
      ],
    ),
  );
  slow.close();
  watcher.close();
} finally {
  if (child.exitCode === null) {
    // SIGTERM first, so a profiling server writes its profile.
    process.kill(child.pid, 'SIGTERM');
    await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(5_000)]);
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  }
  await model.close();
  await home.cleanup();
}
process.exitCode = missed ? 1 : 0;
