/** A part loaded once on first need: one attempt at a time, callers resumed in order, failures retried. */
import { describe, expect, it } from 'vitest';
import { OnFirstNeed } from '../src/on-first-need.js';

describe('OnFirstNeed', () => {
  it('loads once, however many callers ask while it loads, and resumes them in the order they asked', async () => {
    let loads = 0;
    let finish!: (value: string) => void;
    const part = new OnFirstNeed(() => {
      loads += 1;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    const resumed: number[] = [];
    const waits = [1, 2, 3].map((n) =>
      part.start().then((error) => {
        resumed.push(n);
        return error;
      }),
    );
    expect(part.value).toBeNull();
    finish('loaded');
    expect(await Promise.all(waits)).toEqual([null, null, null]);
    expect(resumed).toEqual([1, 2, 3]);
    expect(part.value).toBe('loaded');
    expect(await part.start()).toBeNull();
    expect(loads).toBe(1);
  });

  it('settles with the error instead of rejecting, reports it, and tries again on the next start', async () => {
    const reported: unknown[] = [];
    let attempts = 0;
    const part = new OnFirstNeed(
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('not yet');
        return attempts;
      },
      (error) => reported.push(error),
    );
    const error = await part.start();
    expect(String(error)).toBe('Error: not yet');
    expect(reported).toEqual([error]);
    expect(part.attempt).toBeNull();
    expect(await part.start()).toBeNull();
    expect(part.value).toBe(2);
  });
});
