/**
 * A review turn's body against a fake scope: the reviewer's side conversation (its own
 * instructions and history, the turn's tools), what users see of it, what joins the thread's
 * history, and an interrupted review. The end-to-end behaviour (git targets, rollout) is
 * review.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseItem } from '../../src/model/types.js';
import { REVIEW_INSTRUCTIONS, REVIEW_INTERRUPTED_TEXT, runReview } from '../../src/thread/review.js';
import { assistant, completed, FakeScope, textOf, usageOf } from './fake-scope.js';

const REQUEST = { prompt: 'Review the change to parser.ts.', hint: 'the parser change' };
const ANSWER = JSON.stringify({
  findings: [{ title: 'Off by one', body: 'The loop skips the last line.', priority: 1, code_location: { absolute_file_path: '/w/parser.ts', line_range: { start: 3, end: 4 } } }],
  overall_correctness: 'patch is incorrect',
  overall_explanation: 'One bug.',
});
const call: ResponseItem = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"git diff"}' };
const thought: ResponseItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'look at the diff' }] };

describe('runReview', () => {
  it('runs the reviewer apart from the thread history and records only the request and the result', async () => {
    const scope = new FakeScope();
    scope.history = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'earlier thread talk' }] }];
    scope.tools.handle = async () => ({ output: 'diff --git a/parser.ts', success: true });
    scope.model.enqueue(completed([thought, call], usageOf(10)), completed([assistant(ANSWER)], usageOf(20)));

    const text = await runReview(scope, REQUEST);

    const [first, second] = scope.model.requests;
    expect(first?.instructions).toBe(REVIEW_INSTRUCTIONS);
    expect(first?.promptCacheKey).toBe(scope.turn.id);
    expect(first?.tools.map((t) => t.name)).toEqual(['exec_command']);
    const firstTexts = first?.input.map(textOf) ?? [];
    expect(firstTexts.at(-1)).toBe(REQUEST.prompt);
    expect(firstTexts.join('\n')).not.toContain('earlier thread talk');
    expect(firstTexts).not.toContain('be brief');
    // The tool's output goes back to the reviewer, after its call.
    expect(second?.input.slice(-2)).toEqual([call, { type: 'function_call_output', call_id: 'call_1', output: 'diff --git a/parser.ts' }]);
    expect(scope.tools.calls).toEqual([{ name: 'exec_command', raw: '{"cmd":"git diff"}' }]);

    expect(text).toContain('One bug.');
    expect(text).toContain('Off by one');
    expect(text).toContain('/w/parser.ts:3-4');
    // Reasoning shows once complete; the reviewer's own message does not; usage counts.
    expect(scope.eventTrail()).toEqual([
      'item.started:enteredReviewMode',
      'item.completed:enteredReviewMode',
      'item.started:reasoning',
      'item.completed:reasoning',
      'tokenUsage.updated',
      'tokenUsage.updated',
      'item.started:exitedReviewMode',
      'item.completed:exitedReviewMode',
      'item.started:agentMessage',
      'item.completed:agentMessage',
    ]);
    expect(scope.usage?.total.totalTokens).toBe(30);
    const recorded = scope.history.slice(1);
    expect(recorded).toHaveLength(2);
    expect(textOf(recorded[0])).toContain('<review_result>');
    expect(textOf(recorded[0])).toContain('the parser change');
    expect(recorded[1]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(textOf(recorded[1])).toBe(text);
  });

  it('takes a plain-text answer as the explanation', async () => {
    const scope = new FakeScope();
    scope.model.enqueue(completed([assistant('Looks fine to me.')]));
    expect(await runReview(scope, REQUEST)).toBe('Looks fine to me.');
  });

  it('says the review was interrupted, completes its open tool items and rethrows the abort', async () => {
    const scope = new FakeScope();
    scope.model.enqueue(completed([call]));
    scope.tools.handle = (_name, _raw, ctx) => {
      ctx.emit({ type: 'item.started', item: { type: 'commandExecution', id: 'cmd_1', command: 'git diff', argv: ['git', 'diff'], cwd: '/w', processId: null, status: 'inProgress', aggregatedOutput: null, exitCode: null, durationMs: null, source: 'agent' }, atMs: 1 });
      scope.turn.controller.abort(new Error('interrupted'));
      return new Promise(() => undefined);
    };

    await expect(runReview(scope, REQUEST)).rejects.toThrow('interrupted');

    const closed = scope.events.find((e) => e.type === 'item.completed' && e.item.type === 'commandExecution');
    expect(closed).toMatchObject({ item: { status: 'failed' } });
    const exited = scope.events.find((e) => e.type === 'item.completed' && e.item.type === 'exitedReviewMode');
    expect(exited).toMatchObject({ item: { review: REVIEW_INTERRUPTED_TEXT } });
    expect(textOf(scope.history[0])).toContain('interrupted before it finished');
    expect(textOf(scope.history[1])).toBe(REVIEW_INTERRUPTED_TEXT);
  });
});
