#!/usr/bin/env node
// Engine-level turn overhead: the time a turn spends in Deputy itself, i.e. the wall time of
// `thread.startTurn(...).done` minus the time spent in the model (each model request, from its
// arrival at a timing proxy to the last response byte written, measured in this process) and,
// for the tool turn, minus the command's own run time (item.started → item.completed of the
// commandExecution). Echo turns and one-tool-call turns against the scripted model server, in
// process, with approval policy `never` and no sandbox. Median and p95; target < 20 ms.
//   pnpm build && node scripts/bench/turn-overhead.mjs [--turns N] [--warmup N]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startBenchModel, startTimingProxy } from './lib/model-script.mjs';
import { importDist, requireDist } from './lib/paths.mjs';
import { num, numberFlag, summarize, table } from './lib/stats.mjs';

const TARGET_MS = 20;
const turns = numberFlag(process.argv, 'turns', 100);
const warmup = numberFlag(process.argv, 'warmup', 10);

requireDist(['engine', 'testSupport'], 'turn-overhead');
const engine = await importDist('engine');

/** Waits for the end time of every proxied request (set in a write callback, possibly a tick late). */
async function settledModelMs(proxy, from) {
  for (let i = 0; i < 100 && proxy.records.slice(from).some((r) => Number.isNaN(r.endMs)); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  return proxy.modelMsSince(from);
}

/** Runs one turn and splits its wall time into model, command and Deputy time. */
async function measureTurn(thread, proxy, text) {
  let commandStart = null;
  let commandEnd = null;
  let commandMs = 0;
  const unsubscribe = thread.events.subscribe((event) => {
    if (event.type === 'item.started' && event.item.type === 'commandExecution') commandStart = performance.now();
    if (event.type === 'item.completed' && event.item.type === 'commandExecution' && commandStart !== null) {
      commandEnd = performance.now();
      commandMs += commandEnd - commandStart;
    }
  });
  try {
    const from = proxy.records.length;
    const t0 = performance.now();
    const info = await thread.startTurn([{ type: 'text', text }]).done;
    const wallMs = performance.now() - t0;
    if (info.status !== 'completed') throw new Error(`turn ended ${info.status}: ${JSON.stringify(info.error)}`);
    const doneAt = t0 + wallMs;
    const modelMs = await settledModelMs(proxy, from);
    const reqs = proxy.records.slice(from);
    const first = reqs[0];
    const last = reqs[reqs.length - 1];
    // Where Deputy's own time goes: before the first request, around the command, after the last response.
    const phases = {
      beforeModel: first ? first.startMs - t0 : Number.NaN,
      aroundTool: commandStart !== null && reqs.length >= 2 ? commandStart - reqs[0].endMs + (reqs[1].startMs - commandEnd) : 0,
      afterModel: last ? doneAt - last.endMs : Number.NaN,
    };
    return { wallMs, modelMs, commandMs, phases, requests: reqs.length, overheadMs: wallMs - modelMs - commandMs };
  } finally {
    unsubscribe();
  }
}

async function measureKind(manager, proxy, cwd, text) {
  const thread = await manager.start({ cwd });
  for (let i = 0; i < warmup; i++) await measureTurn(thread, proxy, text);
  const samples = [];
  for (let i = 0; i < turns; i++) samples.push(await measureTurn(thread, proxy, text));
  return samples;
}

const model = await startBenchModel();
const proxy = await startTimingProxy(model.url);
const home = await mkdtemp(path.join(os.tmpdir(), 'deputy-turn-overhead-home-'));
const cwd = await mkdtemp(path.join(os.tmpdir(), 'deputy-turn-overhead-cwd-'));
let manager = null;
try {
  await writeFile(
    path.join(home, 'config.toml'),
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
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
  manager = await engine.ThreadManager.open(runtime);

  const kinds = [
    { name: 'echo turn (1 model request)', text: 'hello overhead' },
    { name: 'one-tool-call turn (2 requests, echo hi)', text: 'run: echo hi' },
  ];
  const rows = [];
  const phaseRows = [];
  let pass = true;
  for (const kind of kinds) {
    const samples = await measureKind(manager, proxy, cwd, kind.text);
    const wall = summarize(samples.map((s) => s.wallMs));
    const modelMs = summarize(samples.map((s) => s.modelMs));
    const command = summarize(samples.map((s) => s.commandMs));
    const overhead = summarize(samples.map((s) => s.overheadMs));
    const ok = overhead.p95 < TARGET_MS;
    pass &&= ok;
    rows.push([kind.name, num(wall.median, 2), num(modelMs.median, 2), num(command.median, 2), num(overhead.median, 2), num(overhead.p95, 2), ok ? 'ok' : 'SLOW']);
    const phase = (key) => summarize(samples.map((s) => s.phases[key]));
    phaseRows.push([kind.name, ...['beforeModel', 'aroundTool', 'afterModel'].flatMap((key) => [num(phase(key).median, 2), num(phase(key).p95, 2)])]);
  }
  console.log(`engine turn overhead: ${turns} turns per kind after ${warmup} warm-up turns, in process, scripted model behind a timing proxy`);
  console.log('');
  console.log(table(['turn', 'wall', 'model', 'command', 'overhead', 'overhead p95', `p95 < ${TARGET_MS} ms`], rows));
  console.log('');
  console.log('medians in milliseconds; overhead = wall − model − command, per turn');
  console.log('');
  console.log('where the overhead goes (median / p95, ms):');
  console.log(table(['turn', 'before 1st request', 'p95', 'around the tool', 'p95', 'after last response', 'p95'], phaseRows));
  process.exitCode = pass ? 0 : 1;
} finally {
  await manager?.close();
  await proxy.close();
  await model.close();
  await rm(home, { recursive: true, force: true });
  await rm(cwd, { recursive: true, force: true });
}
