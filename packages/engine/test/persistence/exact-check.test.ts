/**
 * The exact check that lets the rollout reader keep a parsed payload instead of zod's copy: it
 * must say yes only when zod would return an equal value with the same key order, and the
 * reader must give the same lines as a plain zod check of every line, on a file with torn, bad,
 * reordered, large and compacted lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileExactCheck } from '../../src/persistence/exact-check.js';
import { ROLLOUT_PAYLOAD_SCHEMAS, RolloutLineSchema, rolloutLine, type RolloutLine, type RolloutLineType } from '../../src/persistence/rollout-line.js';
import { readRollout, scanRollout } from '../../src/persistence/rollout-reader.js';
import { messageTurns, RESUME_LINES } from '../../src/thread/replay.js';
import { makeHome, makeMeta, removeHome, turnLines } from './fixtures.js';

const AT = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
const usage = { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, reasoningOutputTokens: 1, totalTokens: 15 };

/** One payload of every line type, as the writer stores them. */
function samples(): RolloutLine[] {
  return [
    rolloutLine('session_meta', makeMeta({ baseInstructions: 'be brief', dynamicTools: [] }), AT),
    rolloutLine('turn_started', { turnId: 't1', startedAtMs: AT, model: 'gpt-5', cwd: '/w', contextKey: 'k', rootTurnId: 't1' }, AT),
    rolloutLine('turn_started', { turnId: 't1', startedAtMs: AT, model: 'gpt-5', cwd: '/w' }, AT),
    rolloutLine('item', { turnId: 't1', item: { type: 'userMessage', id: 'u1', content: [{ type: 'text', text: 'héllo ✓', text_elements: [{ byteRange: { start: 0, end: 2 }, placeholder: null }] }, { type: 'image', url: 'data:' }], clientId: 'c' }, completedAtMs: AT }, AT),
    rolloutLine('item', { turnId: 't1', item: { type: 'agentMessage', id: 'a1', text: 'hi', phase: 'final_answer' }, completedAtMs: AT, partial: true }, AT),
    rolloutLine('item', { turnId: 't1', item: { type: 'commandExecution', id: 'c1', command: 'ls', argv: ['ls'], cwd: '/w', processId: null, status: 'completed', aggregatedOutput: 'a', exitCode: 0, durationMs: 3 }, completedAtMs: AT }, AT),
    rolloutLine('token_usage', { turnId: 't1', usage: { total: usage, last: usage, modelContextWindow: null } }, AT),
    rolloutLine('turn_ended', { turn: { id: 't1', status: 'failed', error: { message: 'boom', code: 'other', httpStatus: 500 }, startedAtMs: AT, completedAtMs: AT + 1, lastAgentMessage: null, rootTurnId: null } }, AT),
    rolloutLine('turn_ended', { turn: { id: 't1', status: 'completed', error: null, startedAtMs: AT, completedAtMs: null, lastAgentMessage: 'x' } }, AT),
    rolloutLine('compacted', { turnId: 't2', summary: 'we listed files' }, AT),
    rolloutLine('thread_name', { name: null }, AT),
    rolloutLine('rollback', { numTurns: 2 }, AT),
  ];
}

const ODD_VALUES: unknown[] = [null, 1.5, -3, 2 ** 60, 'text', 'completed', true, [], {}, [1], { type: 'text' }];

/** Variants of `value` with one change somewhere: a key dropped, added or moved, or a value replaced. */
function* variants(value: unknown): Generator<unknown> {
  for (const odd of ODD_VALUES) yield odd;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) for (const v of variants(value[i])) yield value.map((x, j) => (j === i ? v : x));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const entries = Object.entries(value);
  yield Object.fromEntries([...entries].reverse());
  yield Object.fromEntries([...entries, ['extra', 1]]);
  for (let i = 0; i < entries.length; i++) {
    yield Object.fromEntries(entries.filter((_, j) => j !== i));
    for (const v of variants((entries[i] as [string, unknown])[1])) yield Object.fromEntries(entries.map(([k, x], j) => [k, j === i ? v : x]));
  }
}

describe('compileExactCheck', () => {
  it('accepts what the writer stores, which zod returns unchanged', () => {
    for (const line of samples()) {
      const payload: unknown = JSON.parse(JSON.stringify(line.payload));
      // The session_meta schema has refinements (a tool name's minimum length): always zod's.
      expect(compileExactCheck(ROLLOUT_PAYLOAD_SCHEMAS[line.type])(payload), line.type).toBe(line.type !== 'session_meta');
    }
  });

  it('says yes only when zod would return an equal value in the same key order', () => {
    let accepted = 0;
    let refused = 0;
    for (const line of samples()) {
      const schema = ROLLOUT_PAYLOAD_SCHEMAS[line.type];
      const check = compileExactCheck(schema);
      for (const variant of variants(JSON.parse(JSON.stringify(line.payload)))) {
        const parsed = schema.safeParse(variant);
        if (check(variant)) {
          accepted++;
          expect(parsed.success).toBe(true);
          expect(JSON.stringify(parsed.data)).toBe(JSON.stringify(variant));
        } else {
          refused++;
        }
      }
    }
    // Both answers occur: the generator reaches valid variants as well as invalid ones.
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(500);
  });

  it('says no for schema kinds it does not understand', () => {
    expect(compileExactCheck(z.string().min(1))('x')).toBe(false);
    expect(compileExactCheck(z.object({ a: z.string().transform((s) => s.length) }))({ a: 'x' })).toBe(false);
    expect(compileExactCheck(z.record(z.string(), z.number()))({ a: 1 })).toBe(false);
    expect(compileExactCheck(z.looseObject({ a: z.string() }))({ a: 'x' })).toBe(false);
    // A key with a default must be present, since zod would fill it in.
    const withDefault = compileExactCheck(z.object({ a: z.number().nullable().default(null) }));
    expect(withDefault({})).toBe(false);
    expect(withDefault({ a: null })).toBe(true);
  });
});

let home: string;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await removeHome(home);
});

/** What a plain zod check of every line gives: the valid lines after the first, in order. */
function zodLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const lineText of text.split('\n').slice(1)) {
    let value: unknown;
    try {
      value = JSON.parse(lineText);
    } catch {
      continue;
    }
    const parsed = RolloutLineSchema.safeParse(value);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

describe('the reader with the exact check', () => {
  it('gives the same lines and resume view as a plain zod check, on torn, bad, reordered, large and compacted lines', async () => {
    const big = 'y'.repeat(300_000);
    const texts = [
      JSON.stringify(rolloutLine('session_meta', makeMeta(), AT)),
      ...turnLines('t1', 'first', AT).map((l) => JSON.stringify(l)),
      // Keys out of the schema's order, an extra key, a missing default: zod's copy differs from the text.
      JSON.stringify({ v: 1, type: 'item', ts: 'x', payload: { item: { id: 'u2', type: 'userMessage', content: [{ text: 'moved', type: 'text' }] }, turnId: 't1', completedAtMs: AT } }),
      JSON.stringify({ v: 1, type: 'item', ts: 'x', payload: { turnId: 't1', item: { type: 'agentMessage', id: 'a9', text: 'extra', phase: null, note: 1 }, completedAtMs: AT } }),
      JSON.stringify({ v: 1, type: 'turn_ended', ts: 'x', payload: { turn: { id: 't1', status: 'failed', error: { message: 'm', code: 'other' }, startedAtMs: AT, completedAtMs: AT, lastAgentMessage: null } } }),
      // Bad lines: not JSON, a wrong type, a fractional time.
      '{"v":1,"type":"item","ts":"x","payload":{"turnId":"t1"',
      JSON.stringify({ v: 1, type: 'item', ts: 'x', payload: { turnId: 't1', item: { type: 'agentMessage', id: 'a8', text: 5, phase: null }, completedAtMs: AT } }),
      JSON.stringify({ v: 1, type: 'turn_started', ts: 'x', payload: { turnId: 't2', startedAtMs: 1.5, model: 'm', cwd: '/' } }),
      ...turnLines('t2', big, AT + 10).map((l) => JSON.stringify(l)),
      JSON.stringify(rolloutLine('item', { turnId: 't2', item: { type: 'agentMessage', id: 'big', text: big, phase: 'commentary' }, completedAtMs: AT }, AT)),
      JSON.stringify(rolloutLine('compacted', { turnId: 't2', summary: 'summary' }, AT)),
      ...turnLines('t3', 'after compaction', AT + 20).map((l) => JSON.stringify(l)),
      JSON.stringify(rolloutLine('rollback', { numTurns: 1 }, AT)),
    ];
    const file = path.join(home, 'rollout.jsonl');
    const torn = '{"v":1,"type":"thread_name","ts":"x","payload":{"na';
    fs.writeFileSync(file, `${texts.join('\n')}\n${torn}`);
    const expected = zodLines(texts.join('\n'));

    const eager = await readRollout(file, { lazyLineBytes: Infinity });
    expect(JSON.stringify(eager.lines)).toBe(JSON.stringify(expected));
    const lazy = await readRollout(file);
    expect(JSON.stringify(lazy.lines)).toBe(JSON.stringify(expected));

    const scan = await scanRollout(file, RESUME_LINES);
    const wanted = (expected as RolloutLine[]).filter((l) => RESUME_LINES(l.type as RolloutLineType, (n) => JSON.stringify(l.payload).slice(0, n)));
    expect(JSON.stringify(scan.lines)).toBe(JSON.stringify(wanted));
    expect(JSON.stringify(messageTurns(scan.lines, 0))).toBe(JSON.stringify(messageTurns(expected as RolloutLine[], 0)));
  });
});
