/** The wire sniffer itself: it must catch what our schemas or the reference schema reject. */
import { describe, expect, it } from 'vitest';
import { WireValidator } from './support/wire-validator.js';

describe('wire validator', () => {
  it('reports a notification that misses a field the reference requires', () => {
    const v = new WireValidator();
    v.serverSent({ method: 'turn/started', params: { threadId: 't' } });
    expect(v.problems.join('\n')).toMatch(/notification turn\/started: ours: turn/);
    expect(v.problems.join('\n')).toMatch(/notification turn\/started: reference/);
  });

  it('checks a result against the method the client asked for, and accepts a valid one', () => {
    const v = new WireValidator();
    v.clientSent({ method: 'thread/loaded/list', id: 'x', params: {} });
    v.serverSent({ id: 'x', result: { data: [], nextCursor: null } });
    expect(v.problems).toEqual([]);
    v.clientSent({ method: 'account/read', id: 2, params: {} });
    v.serverSent({ id: 2, result: { account: { type: 'nope' } } });
    expect(v.problems.length).toBe(2);
    expect(v.counts.responses).toBe(2);
  });
});
