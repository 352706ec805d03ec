/** The single-consumer queue behind every transport's `messages()` and listener's `connections()`. */
import { describe, expect, it } from 'vitest';
import { AsyncQueue } from '../../src/transport/async-queue.js';

describe('AsyncQueue', () => {
  it('delivers pushed items in order, including ones pushed while the consumer waits, then ends', async () => {
    const q = new AsyncQueue<number>();
    q.push(1);
    const seen: number[] = [];
    const done = (async () => {
      for await (const n of q) seen.push(n);
    })();
    await new Promise((r) => setImmediate(r));
    q.push(2);
    q.push(3);
    q.end();
    q.push(4);
    await done;
    expect(seen).toEqual([1, 2, 3]);
  });

  it('asks the source to pause above the high-water mark and to resume once drained', async () => {
    const events: string[] = [];
    const q = new AsyncQueue<number>({ highWaterMark: 2, onPause: () => events.push('pause'), onResume: () => events.push('resume') });
    for (let i = 0; i < 5; i++) q.push(i);
    expect(events).toEqual(['pause']);
    const it = q[Symbol.asyncIterator]();
    for (let i = 0; i < 5; i++) expect((await it.next()).value).toBe(i);
    expect(events).toEqual(['pause', 'resume']);
  });

  it('refuses a second consumer', () => {
    const q = new AsyncQueue<number>();
    q[Symbol.asyncIterator]();
    expect(() => q[Symbol.asyncIterator]()).toThrow(/single consumer/);
  });
});
