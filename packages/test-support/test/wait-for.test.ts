import { describe, expect, it } from 'vitest';
import { waitFor } from '../src/wait-for.js';

describe('waitFor', () => {
  it('resolves with the first truthy value the predicate returns', async () => {
    let calls = 0;
    const found = await waitFor(() => (++calls === 3 ? { calls } : undefined), 1000, 'the third call');
    expect(found).toEqual({ calls: 3 });
  });

  it('accepts an async predicate', async () => {
    let calls = 0;
    expect(await waitFor(async () => ++calls >= 2, 1000)).toBe(true);
  });

  it('rejects naming what it waited for once the time is up', async () => {
    await expect(waitFor(() => false, 30, 'the impossible')).rejects.toThrow('timed out after 30 ms waiting for the impossible');
  });

  it('builds a lazy description only when it times out', async () => {
    let built = 0;
    const what = () => `attempt ${++built}`;
    await waitFor(() => true, 30, what);
    expect(built).toBe(0);
    await expect(waitFor(() => 0, 30, what)).rejects.toThrow('waiting for attempt 1');
  });

  it('ends the wait with the error of a predicate that throws', async () => {
    await expect(
      waitFor(() => {
        throw new Error('broken probe');
      }, 1000),
    ).rejects.toThrow('broken probe');
  });
});
