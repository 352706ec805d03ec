/**
 * Synthetic thread stores for the list/resume benches. Ours is written with the engine's own
 * `RolloutWriter` and `rolloutLine` (built dist), so the files are exactly what Deputy writes; the
 * reference's is written in Codex's rollout format (`session_meta`, `event_msg` and `response_item`
 * JSONL lines under `sessions/YYYY/MM/DD/`). Both are deterministic: thread n of a store has the
 * same id, time, cwd and text in either format.
 */
import { closeSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { importDist } from './paths.mjs';

const WORDS = 'refactor parser fix flaky test login page add dark mode migrate database schema update readme benchmark profile memory leak websocket retry sandbox policy approval cache'.split(' ');
const START_MS = Date.UTC(2025, 0, 1);

/** A UUIDv7-shaped id for thread `n` created at `ms`. */
export function syntheticThreadId(n, ms) {
  const hex = ms.toString(16).padStart(12, '0') + '7' + n.toString(16).padStart(19, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The facts of synthetic thread `n`. */
function threadFacts(n) {
  const createdAtMs = START_MS + n * 60_000;
  const words = Array.from({ length: 10 }, (_, i) => WORDS[(n * 7 + i * 3) % WORDS.length]).join(' ');
  return { n, id: syntheticThreadId(n, createdAtMs), createdAtMs, cwd: `/home/dev/project-${n % 20}`, ask: `thread ${n}: ${words}`, answer: `ECHO: thread ${n}` };
}

/** Writes `count` one-turn threads with the engine's writer; returns their ids. */
export async function writeDeputyStore(home, count, { log = () => {} } = {}) {
  const { RolloutWriter } = await importDist('rolloutStore');
  const { rolloutLine } = await importDist('rolloutLine');
  const ids = [];
  for (let n = 0; n < count; n++) {
    const f = threadFacts(n);
    const writer = RolloutWriter.create(home, deputyMeta(f.id, f.createdAtMs, f.cwd));
    writeDeputyTurn(writer, rolloutLine, f, `turn-${n}`, f.createdAtMs + 1_000);
    writer.close();
    ids.push(f.id);
    if (n % 10_000 === 9_999) log(`deputy store: ${n + 1}/${count}`);
  }
  return ids;
}

function deputyMeta(id, createdAtMs, cwd) {
  return {
    id, createdAtMs, cwd, model: 'mock-model', modelProvider: 'mock', source: 'vscode', forkedFromId: null, cliVersion: '0.1.0',
    approvalPolicy: 'never', sandboxMode: 'danger-full-access', reasoningEffort: null, baseInstructions: null, developerInstructions: null,
  };
}

/** Appends one completed echo turn (what the engine records for it). */
function writeDeputyTurn(writer, rolloutLine, f, turnId, at, extraItems = []) {
  writer.append(rolloutLine('turn_started', { turnId, startedAtMs: at, model: 'mock-model', cwd: f.cwd }, at));
  writer.append(rolloutLine('response_item', { turnId, item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: f.ask }] } }, at));
  writer.append(rolloutLine('item', { turnId, item: { type: 'userMessage', id: `u-${turnId}`, content: [{ type: 'text', text: f.ask }] }, completedAtMs: at }, at));
  for (const line of extraItems) writer.append(rolloutLine(line.type, { turnId, ...line.payload }, at));
  writer.append(rolloutLine('response_item', { turnId, item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: f.answer }] } }, at));
  writer.append(rolloutLine('item', { turnId, item: { type: 'agentMessage', id: `a-${turnId}`, text: f.answer, phase: 'final_answer' }, completedAtMs: at }, at));
  writer.append(rolloutLine('turn_ended', { turn: { id: turnId, status: 'completed', error: null, startedAtMs: at, completedAtMs: at + 5, lastAgentMessage: f.answer } }, at));
}

function iso(ms) {
  return new Date(ms).toISOString();
}

/** `rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl` under `sessions/YYYY/MM/DD/` (UTC, as on this machine). */
function codexRolloutPath(home, id, ms) {
  const d = new Date(ms);
  const p2 = (v) => String(v).padStart(2, '0');
  const day = [String(d.getFullYear()), p2(d.getMonth() + 1), p2(d.getDate())];
  const stamp = `${day.join('-')}T${p2(d.getHours())}-${p2(d.getMinutes())}-${p2(d.getSeconds())}`;
  return path.join(home, 'sessions', ...day, `rollout-${stamp}-${id}.jsonl`);
}

/** The lines of one completed reference echo turn. */
function codexTurnLines(f, turnId, at, middle = []) {
  const sec = Math.floor(at / 1000);
  const ts = iso(at);
  const line = (type, payload) => JSON.stringify({ timestamp: ts, type, payload });
  return [
    line('event_msg', { type: 'task_started', turn_id: turnId, started_at: sec, model_context_window: 258400, collaboration_mode_kind: 'default' }),
    line('turn_context', { turn_id: turnId, cwd: f.cwd, approval_policy: 'never', sandbox_policy: { type: 'danger-full-access' }, model: 'mock-model', summary: 'auto' }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: f.ask }] }),
    line('event_msg', { type: 'user_message', message: f.ask, images: [], local_images: [], text_elements: [] }),
    ...middle.map((m) => line(m.type, m.payload)),
    line('event_msg', { type: 'agent_message', message: f.answer, phase: null, memory_citation: null }),
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: f.answer }] }),
    line('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: f.answer, completed_at: sec, duration_ms: 5 }),
  ];
}

function codexMetaLine(f) {
  const ts = iso(f.createdAtMs);
  return JSON.stringify({
    timestamp: ts,
    type: 'session_meta',
    payload: { id: f.id, timestamp: ts, cwd: f.cwd, originator: 'deputy-bench', cli_version: '0.130.0', source: 'vscode', model_provider: 'mock', base_instructions: { text: 'You are a bench thread.' } },
  });
}

/** Writes `count` one-turn threads in the reference's rollout format; returns their ids. */
export function writeCodexStore(home, count, { log = () => {} } = {}) {
  const ids = [];
  for (let n = 0; n < count; n++) {
    const f = threadFacts(n);
    const file = codexRolloutPath(home, f.id, f.createdAtMs);
    mkdirSync(path.dirname(file), { recursive: true });
    const fd = openSync(file, 'wx', 0o600);
    writeSync(fd, `${[codexMetaLine(f), ...codexTurnLines(f, `turn-${n}`, f.createdAtMs + 1_000)].join('\n')}\n`);
    closeSync(fd);
    ids.push(f.id);
    if (n % 10_000 === 9_999) log(`reference store: ${n + 1}/${count}`);
  }
  return ids;
}

/** Deterministic filler text of about `chars` characters. */
function filler(seed, chars) {
  let s = '';
  let x = seed >>> 0 || 1;
  while (s.length < chars) {
    x = (x * 16807) % 2147483647;
    s += `${WORDS[x % WORDS.length]}${x % 10 === 0 ? '\n' : ' '}`;
  }
  return s;
}

/** The tool calls of big-thread turn `t`: six commands, one in five with a large output. */
function bigTurnCalls(t) {
  return Array.from({ length: 6 }, (_, k) => ({
    callId: `call-${t}-${k}`,
    cmd: `grep -rn "pattern ${t} ${k}" src`,
    output: filler(t * 6 + k + 1, (t * 6 + k) % 5 === 0 ? 12_000 : 1_500),
  }));
}

/** Writes one thread of about `megabytes` MiB with the engine's writer; returns its id and path. */
export async function writeDeputyBigThread(home, megabytes) {
  const { RolloutWriter } = await importDist('rolloutStore');
  const { rolloutLine } = await importDist('rolloutLine');
  const f = { ...threadFacts(900_000), cwd: '/home/dev/big' };
  const writer = RolloutWriter.create(home, deputyMeta(f.id, f.createdAtMs, f.cwd));
  for (let t = 0; statSync(writer.path).size < megabytes * 1024 * 1024; t++) {
    const extra = bigTurnCalls(t).flatMap(({ callId, cmd, output }) => {
      return [
        { type: 'response_item', payload: { item: { type: 'function_call', call_id: callId, name: 'exec_command', arguments: JSON.stringify({ cmd }) } } },
        { type: 'response_item', payload: { item: { type: 'function_call_output', call_id: callId, output } } },
        {
          type: 'item',
          payload: {
            item: { type: 'commandExecution', id: callId, command: `bash -lc '${cmd}'`, argv: ['bash', '-lc', cmd], cwd: f.cwd, processId: null, status: 'completed', aggregatedOutput: output, exitCode: 0, durationMs: 12 },
            completedAtMs: f.createdAtMs,
          },
        },
      ];
    });
    writeDeputyTurn(writer, rolloutLine, f, `turn-${t}`, f.createdAtMs + t * 60_000, extra);
  }
  writer.close();
  return { id: f.id, path: writer.path };
}

/** Writes the same big thread in the reference's rollout format; returns its id and path. */
export function writeCodexBigThread(home, megabytes) {
  const f = { ...threadFacts(900_000), cwd: '/home/dev/big' };
  const file = codexRolloutPath(home, f.id, f.createdAtMs);
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'wx', 0o600);
  writeSync(fd, `${codexMetaLine(f)}\n`);
  let bytes = 0;
  for (let t = 0; bytes < megabytes * 1024 * 1024; t++) {
    const middle = bigTurnCalls(t).flatMap(({ callId, cmd, output }) => [
      { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: callId } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: callId, output } },
    ]);
    const chunk = `${codexTurnLines(f, `turn-${t}`, f.createdAtMs + t * 60_000, middle).join('\n')}\n`;
    writeSync(fd, chunk);
    bytes += Buffer.byteLength(chunk);
  }
  closeSync(fd);
  return { id: f.id, path: file };
}
