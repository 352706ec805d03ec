/**
 * Compaction against a fake scope: when it triggers, what the summary request holds, and what
 * the history is replaced with. The end-to-end behaviour (rollout, resume) is compaction.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACT_PROMPT } from '../../src/thread/base-instructions.js';
import { compactHistory, shouldCompact, SUMMARY_PREFIX } from '../../src/thread/compaction.js';
import { contextKeyOf } from '../../src/thread/settings.js';
import { assistant, completed, FakeScope, textOf, usageOf } from './fake-scope.js';

function withUsage(scope: FakeScope, total: number): FakeScope {
  scope.usage = { total: usageOf(total), last: usageOf(total), modelContextWindow: null };
  return scope;
}

describe('shouldCompact', () => {
  it.each([
    ['no usage reported yet', () => new FakeScope({ autoCompactTokenLimit: 100 }), false],
    ['usage below the configured limit', () => withUsage(new FakeScope({ autoCompactTokenLimit: 100 }), 99), false],
    ['usage at the configured limit', () => withUsage(new FakeScope({ autoCompactTokenLimit: 100 }), 100), true],
    ['usage past 90% of the context window, no limit configured', () => withUsage(new FakeScope({ contextWindow: 1000 }), 900), true],
    ['usage under 90% of the context window', () => withUsage(new FakeScope({ contextWindow: 1000 }), 899), false],
    ['no limit and no known window', () => withUsage(new FakeScope({ contextWindow: null }), 1_000_000), false],
    [
      'usage made stale by a compaction',
      () => {
        const scope = withUsage(new FakeScope({ autoCompactTokenLimit: 100 }), 500);
        scope.usageIsStale = true;
        return scope;
      },
      false,
    ],
  ])('is %s → %s', (_name, make, expected) => {
    expect(shouldCompact(make())).toBe(expected);
  });
});

describe('compactHistory', () => {
  it('asks for a summary without tools and replaces the history with context, summary and the turn input', async () => {
    const scope = new FakeScope();
    scope.history = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old question' }] },
      assistant('old answer'),
    ];
    scope.inputs = [[{ type: 'text', text: 'current question' }]];
    scope.model.enqueue(completed([assistant('SUMMARY part 1. '), assistant('part 2', 'msg_2')], usageOf(50)));

    await compactHistory(scope);

    const [request] = scope.model.requests;
    expect(request?.tools).toEqual([]);
    expect(textOf(request?.input.at(-1))).toBe(DEFAULT_COMPACT_PROMPT);
    expect(request?.input.map(textOf).slice(0, 2)).toEqual(['old question', 'old answer']);
    expect(scope.replacements).toEqual([{ summary: 'SUMMARY part 1. part 2', contextKey: contextKeyOf(scope.turn.settings) }]);
    const texts = scope.history.map(textOf);
    expect(texts[0]).toContain('<permissions instructions>');
    expect(texts).toContain('be brief');
    expect(texts.at(-2)).toBe(SUMMARY_PREFIX + 'SUMMARY part 1. part 2');
    expect(texts.at(-1)).toBe('current question');
    expect(texts).not.toContain('old answer');
    // The summary request's usage is not counted; the item frames the whole compaction.
    expect(scope.eventTrail()).toEqual(['item.started:contextCompaction', 'item.completed:contextCompaction']);
    expect(scope.usageIsStale).toBe(true);
  });

  it('uses the configured compact prompt', async () => {
    const scope = new FakeScope({ settings: { compactPrompt: 'Summarise in one line.' } });
    scope.model.enqueue(completed([assistant('one line')]));
    await compactHistory(scope);
    expect(textOf(scope.model.requests[0]?.input.at(-1))).toBe('Summarise in one line.');
  });

  it('keeps only the completed attempt of a retried summary and says it retries', async () => {
    const scope = new FakeScope();
    const error = { message: 'stream dropped', code: 'connectionFailed' as const, httpStatus: null };
    scope.model.enqueue([
      { type: 'item.done', item: assistant('PARTIAL ') },
      { type: 'retrying', error, attempt: 2, delayMs: 0 },
      ...completed([assistant('WHOLE')]),
    ]);
    await compactHistory(scope);
    expect(scope.replacements[0]?.summary).toBe('WHOLE');
    expect(scope.eventTrail()).toEqual(['item.started:contextCompaction', 'error', 'item.completed:contextCompaction']);
  });

  it('leaves the history alone when the summary request fails', async () => {
    const scope = new FakeScope();
    scope.history = [assistant('kept')];
    scope.model.enqueue(new Error('model down'));
    await expect(compactHistory(scope)).rejects.toThrow('model down');
    expect(scope.replacements).toEqual([]);
    expect(scope.history.map(textOf)).toEqual(['kept']);
  });
});
