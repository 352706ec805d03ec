/**
 * The rollout-read benchmark: writes one synthetic rollout of a given size (a realistic mix of
 * turns, tool calls with outputs, reasoning, items and usage lines) with `RolloutWriter`, then
 * times `readRollout` lazily (the default), the cost of then touching every payload, and a fully
 * eager read, and the quick scan a resume does. A measuring tool for `scripts/bench/read.mjs`; nothing in the engine calls it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rolloutLine } from './rollout-line.js';
import { RESUME_LINES } from '../thread/replay.js';
import { readRollout, scanRollout } from './rollout-reader.js';
import { RolloutWriter } from './rollout-store.js';

/** Options of `runReadBench`. */
export interface ReadBenchOptions {
  /** Size of the synthetic rollout in MiB (default 100). */
  megabytes?: number;
  /** Timed runs per mode (default 5). */
  iterations?: number;
}

/** Timing of one read mode, in milliseconds. */
export interface ReadBenchRow {
  name: string;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

/** Everything `runReadBench` measured. */
export interface ReadBenchResult {
  bytes: number;
  lines: number;
  /** Mean cost of one `append` while writing the file, in microseconds. */
  appendUs: number;
  /** Mean cost of one small `append` followed by `flush()` (fdatasync), in microseconds. */
  appendFsyncUs: number;
  rows: ReadBenchRow[];
}

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore'.split(' ');

function textOf(rand: () => number, chars: number): string {
  let s = '';
  while (s.length < chars) s += `${WORDS[Math.floor(rand() * WORDS.length)]}${rand() < 0.1 ? '\n' : ' '}`;
  return s;
}

function writeTurns(writer: RolloutWriter, targetBytes: number): { lines: number; appendUs: number } {
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const usage = { inputTokens: 1200, cachedInputTokens: 800, outputTokens: 300, reasoningOutputTokens: 100, totalTokens: 1500 };
  let lines = 0;
  let bytes = 0;
  let spent = 0;
  const put = (line: Parameters<RolloutWriter['append']>[0]) => {
    const t0 = performance.now();
    writer.append(line);
    spent += performance.now() - t0;
    lines += 1;
    bytes += JSON.stringify(line).length + 1;
  };
  for (let t = 0; bytes < targetBytes; t++) {
    const turnId = `turn-${t}`;
    const at = Date.UTC(2025, 0, 1) + t * 60_000;
    put(rolloutLine('turn_started', { turnId, startedAtMs: at, model: 'gpt-5-codex', cwd: '/work' }, at));
    const ask = textOf(rand, 300);
    put(rolloutLine('response_item', { turnId, item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: ask }] } }, at));
    put(rolloutLine('item', { turnId, item: { type: 'userMessage', id: `u${t}`, content: [{ type: 'text', text: ask }] }, completedAtMs: at }, at));
    for (let k = 0; k < 6; k++) {
      put(rolloutLine('response_item', { turnId, item: { type: 'reasoning', id: `rs${t}-${k}`, summary: [{ type: 'summary_text', text: textOf(rand, 300) }], encrypted_content: 'Q'.repeat(1500) } }, at));
      const callId = `call-${t}-${k}`;
      put(rolloutLine('response_item', { turnId, item: { type: 'function_call', call_id: callId, name: 'exec_command', arguments: JSON.stringify({ cmd: textOf(rand, 80) }) } }, at));
      const output = textOf(rand, rand() < 0.2 ? 12_000 : 1_500);
      put(rolloutLine('response_item', { turnId, item: { type: 'function_call_output', call_id: callId, output } }, at));
      put(rolloutLine('item', {
        turnId,
        item: { type: 'commandExecution', id: callId, command: 'bash -lc ls', argv: ['bash', '-lc', 'ls'], cwd: '/work', processId: null, status: 'completed', aggregatedOutput: output, exitCode: 0, durationMs: 12 },
        completedAtMs: at,
      }, at));
      put(rolloutLine('token_usage', { turnId, usage: { total: usage, last: usage, modelContextWindow: 272_000 } }, at));
    }
    const answer = textOf(rand, 800);
    put(rolloutLine('response_item', { turnId, item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] } }, at));
    put(rolloutLine('item', { turnId, item: { type: 'agentMessage', id: `a${t}`, text: answer, phase: 'final_answer' }, completedAtMs: at }, at));
    put(rolloutLine('turn_ended', { turn: { id: turnId, status: 'completed', error: null, startedAtMs: at, completedAtMs: at + 1, lastAgentMessage: 'done' } }, at));
  }
  return { lines, appendUs: (spent / lines) * 1000 };
}

/** Appends 300 small lines with an fdatasync after each, to show what per-line fsync would cost. */
function measureFsync(home: string): number {
  const writer = RolloutWriter.create(home, {
    id: '01900000-0000-7000-8000-000000000002', createdAtMs: Date.UTC(2025, 0, 1), cwd: '/work', model: 'm', modelProvider: 'p', source: 'cli',
    forkedFromId: null, cliVersion: '0.1.0', approvalPolicy: 'never', sandboxMode: 'read-only', reasoningEffort: null, baseInstructions: null, developerInstructions: null,
  });
  const runs = 300;
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    writer.append(rolloutLine('thread_name', { name: `n${i}` }));
    writer.flush();
  }
  const us = ((performance.now() - t0) / runs) * 1000;
  writer.close();
  return us;
}

async function time(runs: number, fn: () => Promise<void>): Promise<Omit<ReadBenchRow, 'name'>> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN, minMs: times[0] ?? Number.NaN, maxMs: times[times.length - 1] ?? Number.NaN };
}

/** Writes the synthetic rollout and times the read modes. */
export async function runReadBench(options: ReadBenchOptions = {}): Promise<ReadBenchResult> {
  const megabytes = options.megabytes ?? 100;
  const iterations = options.iterations ?? 5;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'deputy-read-bench-'));
  try {
    const writer = RolloutWriter.create(home, {
      id: '01900000-0000-7000-8000-000000000001', createdAtMs: Date.UTC(2025, 0, 1), cwd: '/work', model: 'gpt-5-codex', modelProvider: 'openai',
      source: 'cli', forkedFromId: null, cliVersion: '0.1.0', approvalPolicy: 'on-request', sandboxMode: 'workspace-write',
      reasoningEffort: 'medium', baseInstructions: 'x'.repeat(8_000), developerInstructions: null,
    });
    const { lines, appendUs } = writeTurns(writer, megabytes * 1024 * 1024);
    writer.close();
    const file = writer.path;
    const appendFsyncUs = measureFsync(home);
    const rows: ReadBenchRow[] = [
      { name: 'read (default, lazy payloads)', ...(await time(iterations, async () => void (await readRollout(file)))) },
      {
        name: 'read + touch every payload',
        ...(await time(iterations, async () => {
          let touched = 0;
          for (const line of (await readRollout(file)).lines) if (line.payload) touched += 1;
          if (touched !== lines) throw new Error(`read ${touched} payloads, wrote ${lines}`);
        })),
      },
      { name: 'read eager (lazyLineBytes: Infinity)', ...(await time(iterations, async () => void (await readRollout(file, { lazyLineBytes: Infinity })))) },
      { name: 'resume scan (scanRollout, RESUME_LINES)', ...(await time(iterations, async () => void (await scanRollout(file, RESUME_LINES)))) },
    ];
    return { bytes: fs.statSync(file).size, lines, appendUs, appendFsyncUs, rows };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Formats a result as a plain-text table. */
export function formatReadBench(result: ReadBenchResult): string {
  const width = Math.max(...result.rows.map((r) => r.name.length));
  const num = (ms: number) => ms.toFixed(0).padStart(7);
  return [
    `rollout read benchmark: ${(result.bytes / 1048576).toFixed(1)} MiB, ${result.lines} lines, append ${result.appendUs.toFixed(1)} us/line without fsync, ${result.appendFsyncUs.toFixed(0)} us/line with fdatasync`,
    '',
    `${'mode'.padEnd(width)}  ${'median'.padStart(7)}  ${'min'.padStart(7)}  ${'max'.padStart(7)}`,
    `${'-'.repeat(width)}  -------  -------  -------`,
    ...result.rows.map((r) => `${r.name.padEnd(width)}  ${num(r.medianMs)}  ${num(r.minMs)}  ${num(r.maxMs)}`),
    '',
    'times in milliseconds',
  ].join('\n');
}
