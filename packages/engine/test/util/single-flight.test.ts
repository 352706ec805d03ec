/**
 * SingleFlight: concurrent calls for one key share one run, other keys run on their own, a call
 * after the run settled runs again, and a rejection is shared by its callers but not kept.
 */
import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../../src/util/single-flight.js';

/** A run that settles when the test says so, counting how often it was started. */
function gate<V>() {
  const runs: Array<{ resolve: (value: V) => void; reject: (error: Error) => void }> = [];
  const start = () =>
    new Promise<V>((resolve, reject) => {
      runs.push({ resolve, reject });
    });
  return { runs, start };
}

describe('SingleFlight', () => {
  it('gives concurrent callers of one key the same run', async () => {
    const flights = new SingleFlight<string, number>();
    const { runs, start } = gate<number>();
    const first = flights.run('a', start);
    const second = flights.run('a', start);
    expect(second).toBe(first);
    expect(runs).toHaveLength(1);
    runs[0]?.resolve(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
  });

  it('runs different keys separately', async () => {
    const flights = new SingleFlight<string, string>();
    const { runs, start } = gate<string>();
    const a = flights.run('a', start);
    const b = flights.run('b', start);
    expect(runs).toHaveLength(2);
    runs[0]?.resolve('A');
    runs[1]?.resolve('B');
    expect(await Promise.all([a, b])).toEqual(['A', 'B']);
  });

  it('runs again for a call made after the run settled', async () => {
    const flights = new SingleFlight<string, number>();
    const { runs, start } = gate<number>();
    const first = flights.run('a', start);
    runs[0]?.resolve(1);
    expect(await first).toBe(1);
    const later = flights.run('a', start);
    expect(later).not.toBe(first);
    expect(runs).toHaveLength(2);
    runs[1]?.resolve(2);
    expect(await later).toBe(2);
  });

  it('shares a rejection with its callers but does not keep it', async () => {
    const flights = new SingleFlight<string, number>();
    const { runs, start } = gate<number>();
    const first = flights.run('a', start);
    const second = flights.run('a', start);
    runs[0]?.reject(new Error('scan failed'));
    await expect(first).rejects.toThrow('scan failed');
    await expect(second).rejects.toThrow('scan failed');
    const retry = flights.run('a', start);
    expect(runs).toHaveLength(2);
    runs[1]?.resolve(3);
    expect(await retry).toBe(3);
  });
});
