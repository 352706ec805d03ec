/** Permission options and the decisions they stand for (docs/acp.md, "Permissions"). */
import { describe, expect, it } from 'vitest';
import { decisionOf, permissionOptions } from '../../src/permissions.js';

const exec = (proposedPrefixRule: string[] | null) => ({ kind: 'exec' as const, callId: 'c1', command: ['bash', '-lc', 'npm test'], cwd: '/w', reason: null, proposedPrefixRule, isSandboxRetry: false });

describe('permission options', () => {
  it('offers once, for the session, the prefix rule, deny and abort for a command, in that order', () => {
    expect(permissionOptions(exec(['npm', 'test'])).map((o) => [o.optionId, o.kind])).toEqual([
      ['approved', 'allow_once'],
      ['approved_for_session', 'allow_always'],
      ['approved_and_remember', 'allow_always'],
      ['denied', 'reject_once'],
      ['abort', 'reject_once'],
    ]);
    expect(permissionOptions(exec(['npm', 'test']))[2]?.name).toContain('`npm test`');
    expect(permissionOptions(exec(null)).map((o) => o.optionId)).toEqual(['approved', 'approved_for_session', 'denied', 'abort']);
  });

  it('offers the session grant for a patch only with a grant root', () => {
    const patch = (grantRoot: string | null) => ({ kind: 'patch' as const, callId: 'p', changes: [], reason: null, grantRoot });
    expect(permissionOptions(patch(null)).map((o) => o.optionId)).toEqual(['approved', 'denied', 'abort']);
    expect(permissionOptions(patch('/elsewhere')).find((o) => o.optionId === 'approved_for_session')?.name).toContain('/elsewhere');
  });

  it('maps answers to decisions: the option id, cancelled → abort, unknown → denied', () => {
    for (const id of ['approved', 'approved_for_session', 'approved_and_remember', 'denied', 'abort']) {
      expect(decisionOf({ outcome: { outcome: 'selected', optionId: id } })).toBe(id);
    }
    expect(decisionOf({ outcome: { outcome: 'cancelled' } })).toBe('abort');
    expect(decisionOf({ outcome: { outcome: 'selected', optionId: 'yes-please' } })).toBe('denied');
    expect(decisionOf({ outcome: { outcome: 'selected', optionId: 'timed_out' } })).toBe('denied');
  });
});
