/** The rollout line format: every line type survives a write/read round trip, and bad lines are named. */
import { describe, expect, it } from 'vitest';
import { parseRolloutLine, rolloutLine, RolloutLineSchema, type RolloutLine } from '../../src/persistence/rollout-line.js';
import { makeMeta } from './fixtures.js';

const usage = { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, reasoningOutputTokens: 1, totalTokens: 15 };
const AT = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

function everyLineType(): RolloutLine[] {
  return [
    rolloutLine('session_meta', makeMeta({ baseInstructions: 'be brief', developerInstructions: 'dev' }), AT),
    rolloutLine('turn_started', { turnId: 't1', startedAtMs: AT, model: 'gpt-5', cwd: '/w' }, AT),
    rolloutLine('response_item', { turnId: null, item: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'ctx' }] } }, AT),
    rolloutLine('item', { turnId: 't1', item: { type: 'userMessage', id: 'u1', content: [{ type: 'text', text: 'héllo ✓' }] }, completedAtMs: AT }, AT),
    rolloutLine(
      'item',
      {
        turnId: 't1',
        item: { type: 'commandExecution', id: 'c1', command: "bash -lc 'ls'", argv: ['bash', '-lc', 'ls'], cwd: '/w', processId: null, status: 'completed', aggregatedOutput: 'a\nb', exitCode: 0, durationMs: 3 },
        completedAtMs: AT,
      },
      AT,
    ),
    rolloutLine('token_usage', { turnId: 't1', usage: { total: usage, last: usage, modelContextWindow: 272000 } }, AT),
    rolloutLine('turn_ended', { turn: { id: 't1', status: 'failed', error: { message: 'boom', code: 'other', httpStatus: 500 }, startedAtMs: AT, completedAtMs: AT + 1, lastAgentMessage: null } }, AT),
    rolloutLine('compacted', { turnId: 't2', summary: 'we listed files' }, AT),
    rolloutLine('thread_name', { name: 'Listing' }, AT),
    rolloutLine('thread_name', { name: null }, AT),
    rolloutLine('rollback', { numTurns: 2 }, AT),
  ];
}

describe('rollout lines', () => {
  it('round-trips every line type through JSON and the check', () => {
    for (const line of everyLineType()) {
      const text = JSON.stringify(line);
      const parsed = parseRolloutLine(text);
      expect(parsed).toEqual({ ok: true, line });
      expect(RolloutLineSchema.parse(JSON.parse(text))).toEqual(line);
    }
  });

  it('stamps lines with version 1 and an ISO timestamp, keys in v, type, ts, payload order', () => {
    const line = rolloutLine('rollback', { numTurns: 1 }, AT);
    expect(JSON.stringify(line)).toBe('{"v":1,"type":"rollback","ts":"2025-01-02T03:04:05.678Z","payload":{"numTurns":1}}');
  });

  it('applies schema defaults when reading a line back', () => {
    const text = '{"v":1,"type":"turn_ended","ts":"x","payload":{"turn":{"id":"t","status":"failed","error":{"message":"m","code":"other"},"startedAtMs":1,"completedAtMs":2,"lastAgentMessage":null}}}';
    const parsed = parseRolloutLine(text);
    expect(parsed.ok && parsed.line.type === 'turn_ended' && parsed.line.payload.turn.error?.httpStatus).toBeNull();
  });

  it('names what is wrong with a bad line', () => {
    expect(parseRolloutLine('{"v":1,"type":"rollback"')).toMatchObject({ ok: false, error: expect.stringContaining('invalid JSON') });
    expect(parseRolloutLine('[1]')).toMatchObject({ ok: false, error: 'line is not a JSON object' });
    expect(parseRolloutLine('{"v":2,"type":"rollback","ts":"x","payload":{"numTurns":1}}')).toMatchObject({ ok: false, error: 'unsupported line version 2' });
    expect(parseRolloutLine('{"v":1,"type":"nope","ts":"x","payload":{}}')).toMatchObject({ ok: false, error: 'unknown line type "nope"' });
    expect(parseRolloutLine('{"v":1,"type":"rollback","payload":{"numTurns":1}}')).toMatchObject({ ok: false, error: 'line has no ts string' });
    expect(parseRolloutLine('{"v":1,"type":"rollback","ts":"x","payload":{"numTurns":-1}}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('invalid rollback payload at payload.numTurns'),
    });
    expect(parseRolloutLine('{"v":1,"type":"item","ts":"x","payload":{"turnId":"t","item":{"type":"userMessage","id":"u"},"completedAtMs":1}}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('payload.item.content'),
    });
    expect(parseRolloutLine('{"v":1,"type":"response_item","ts":"x","payload":{"turnId":3,"item":{}}}')).toMatchObject({
      ok: false,
      error: 'response_item turnId must be a string or null',
    });
    expect(parseRolloutLine('{"v":1,"type":"response_item","ts":"x","payload":{"turnId":null,"item":[]}}')).toMatchObject({ ok: false });
  });
});
