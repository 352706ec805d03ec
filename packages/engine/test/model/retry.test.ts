import { describe, expect, it } from 'vitest';
import { ModelAbortedError, ServerError } from '../../src/model/errors.js';
import { abortableSleep, retryDelayMs, streamWithRetry, type RetryPolicy } from '../../src/model/retry.js';
import type { ModelStreamEvent } from '../../src/model/types.js';

const policy = (overrides: Partial<RetryPolicy> = {}): RetryPolicy => ({
  requestMaxRetries: 2,
  streamMaxRetries: 2,
  streamIdleTimeoutMs: 1_000,
  retryBaseDelayMs: 100,
  ...overrides,
});

describe('retryDelayMs', () => {
  it('doubles the ceiling per retry and draws the delay below it (full jitter)', () => {
    expect(retryDelayMs(1, null, policy({ random: () => 0.999 }))).toBe(99);
    expect(retryDelayMs(3, null, policy({ random: () => 0.5 }))).toBe(200);
    expect(retryDelayMs(3, null, policy({ random: () => 0 }))).toBe(0);
    expect(retryDelayMs(30, null, policy({ random: () => 0.999 }))).toBeLessThanOrEqual(30_000);
  });

  it("uses the provider's wait when it gave one, capped at two minutes", () => {
    expect(retryDelayMs(1, 1_234, policy())).toBe(1_234);
    expect(retryDelayMs(1, 3_600_000, policy())).toBe(120_000);
  });
});

describe('abortableSleep', () => {
  it('rejects with ModelAbortedError as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toBeInstanceOf(ModelAbortedError);
  });
});

describe('streamWithRetry', () => {
  it('counts request and stream retries separately', async () => {
    const completed: ModelStreamEvent = { type: 'completed', responseId: 'r', usage: null };
    const script = ['request-fail', 'stream-fail', 'request-fail', 'stream-fail', 'ok'];
    let call = 0;
    const open = async (): Promise<AsyncIterable<ModelStreamEvent[]>> => {
      const step = script[call++];
      if (step === 'request-fail') throw new ServerError(500, null);
      return (async function* () {
        if (step === 'stream-fail') throw new ServerError(null, 'stream broke');
        yield [completed];
      })();
    };
    const events: ModelStreamEvent[] = [];
    for await (const e of streamWithRetry(open, policy({ retryBaseDelayMs: 1 }), new AbortController().signal)) events.push(e);
    expect(events.filter((e) => e.type === 'retrying').map((e) => (e.type === 'retrying' ? e.attempt : 0))).toEqual([2, 3, 4, 5]);
    expect(events.at(-1)).toEqual(completed);
  });
});
