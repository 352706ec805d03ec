/** The exec and patch decision tables (every policy × sandbox × escalation × command class), sandbox-failure follow-ups and writable-path checks. */
import type { ApprovalPolicy, SandboxPolicy } from '@deputy/protocol';
import { describe, expect, it } from 'vitest';
import {
  decideAfterSandboxFailure,
  decideExec,
  decidePatch,
  type ExecDecision,
  SAFE_GIT_SANDBOX,
  type SandboxPermissions,
} from '../../src/approvals/policy.js';

const SANDBOXES: Record<string, SandboxPolicy> = {
  ww: { type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false },
  ro: { type: 'read-only', networkAccess: false },
  dfa: { type: 'danger-full-access' },
};
const COMMANDS: Record<string, string[]> = { safe: ['ls'], plain: ['touch', 'x'], danger: ['rm', '-rf', 'x'] };

/** Short form of a decision: `run:sb`, `run:nosb`, `ask:sb`, `ask:nosb`, `reject`. */
function short(d: ExecDecision): string {
  if (d.kind === 'run') return d.sandboxed ? 'run:sb' : 'run:nosb';
  if (d.kind === 'ask') return d.sandboxedAfterApproval ? 'ask:sb' : 'ask:nosb';
  return 'reject';
}

/** policy / sandbox / permissions → expected outcome for [safe, plain, danger]. */
const MATRIX: [ApprovalPolicy, 'ww' | 'ro' | 'dfa', SandboxPermissions, [string, string, string]][] = [
  ['untrusted', 'ww', 'use_default', ['run:sb', 'ask:sb', 'ask:sb']],
  ['untrusted', 'ro', 'use_default', ['run:sb', 'ask:sb', 'ask:sb']],
  ['untrusted', 'ww', 'require_escalated', ['reject', 'reject', 'reject']],
  ['untrusted', 'dfa', 'use_default', ['run:nosb', 'ask:nosb', 'ask:nosb']],
  ['untrusted', 'dfa', 'require_escalated', ['reject', 'reject', 'reject']],
  ['on-failure', 'ww', 'use_default', ['run:sb', 'run:sb', 'ask:sb']],
  ['on-failure', 'ro', 'use_default', ['run:sb', 'run:sb', 'ask:sb']],
  ['on-failure', 'ww', 'require_escalated', ['reject', 'reject', 'reject']],
  ['on-failure', 'dfa', 'use_default', ['run:nosb', 'run:nosb', 'ask:nosb']],
  ['on-failure', 'dfa', 'require_escalated', ['reject', 'reject', 'reject']],
  ['on-request', 'ww', 'use_default', ['run:sb', 'run:sb', 'ask:sb']],
  ['on-request', 'ro', 'use_default', ['run:sb', 'run:sb', 'ask:sb']],
  ['on-request', 'ww', 'require_escalated', ['ask:nosb', 'ask:nosb', 'ask:nosb']],
  ['on-request', 'ro', 'require_escalated', ['ask:nosb', 'ask:nosb', 'ask:nosb']],
  ['on-request', 'dfa', 'use_default', ['run:nosb', 'run:nosb', 'ask:nosb']],
  ['on-request', 'dfa', 'require_escalated', ['run:nosb', 'run:nosb', 'ask:nosb']],
  ['never', 'ww', 'use_default', ['run:sb', 'run:sb', 'reject']],
  ['never', 'ro', 'use_default', ['run:sb', 'run:sb', 'reject']],
  ['never', 'ww', 'require_escalated', ['reject', 'reject', 'reject']],
  ['never', 'dfa', 'use_default', ['run:nosb', 'run:nosb', 'reject']],
  ['never', 'dfa', 'require_escalated', ['reject', 'reject', 'reject']],
];

function decide(policy: ApprovalPolicy, sandbox: string, perms: SandboxPermissions, command: string, extra: Partial<Parameters<typeof decideExec>[0]> = {}): ExecDecision {
  return decideExec({
    argv: COMMANDS[command] as string[],
    approvalPolicy: policy,
    sandbox: SANDBOXES[sandbox] as SandboxPolicy,
    sandboxPermissions: perms,
    isApprovedForSession: false,
    matchesAllowRule: false,
    ...extra,
  });
}

describe('decideExec', () => {
  it.each(MATRIX)('under %s with %s and %s decides safe/plain/dangerous as %j', (policy, sandbox, perms, expected) => {
    expect(['safe', 'plain', 'danger'].map((c) => short(decide(policy, sandbox, perms, c)))).toEqual(expected);
  });

  it('tells the model why an escalation request is refused outside on-request', () => {
    const d = decide('never', 'ww', 'require_escalated', 'plain');
    expect(d).toMatchObject({ kind: 'reject' });
    expect((d as { reason: string }).reason).toContain('approval policy is never');
  });

  it('runs a session-approved command instead of asking, sandboxed as it would be after approval', () => {
    expect(short(decide('untrusted', 'ww', 'use_default', 'plain', { isApprovedForSession: true }))).toBe('run:sb');
    expect(short(decide('on-request', 'ww', 'require_escalated', 'plain', { isApprovedForSession: true }))).toBe('run:nosb');
    expect(short(decide('on-request', 'ww', 'use_default', 'danger', { isApprovedForSession: true }))).toBe('run:sb');
  });

  it('does not let a session approval override a refusal', () => {
    expect(short(decide('never', 'ww', 'use_default', 'danger', { isApprovedForSession: true }))).toBe('reject');
  });

  it('runs commands covered by an allow rule without asking and outside the sandbox', () => {
    for (const policy of ['untrusted', 'on-failure', 'on-request', 'never'] as const) {
      expect(short(decide(policy, 'ww', 'use_default', 'plain', { matchesAllowRule: true }))).toBe('run:nosb');
      expect(short(decide(policy, 'ww', 'use_default', 'danger', { matchesAllowRule: true }))).toBe('run:nosb');
    }
  });

  it('honours prompt and forbidden rules', () => {
    expect(short(decide('on-request', 'ww', 'use_default', 'safe', { ruleDecision: 'prompt' }))).toBe('ask:sb');
    expect(short(decide('never', 'ww', 'use_default', 'safe', { ruleDecision: 'prompt' }))).toBe('reject');
    expect(short(decide('on-request', 'dfa', 'use_default', 'safe', { ruleDecision: 'forbidden' }))).toBe('reject');
    expect(short(decide('untrusted', 'ww', 'use_default', 'plain', { ruleDecision: 'forbidden', isApprovedForSession: true }))).toBe('reject');
  });

  it('treats a shell script of read-only commands as safe under untrusted', () => {
    const d = decideExec({
      argv: ['bash', '-lc', 'ls && git status'],
      approvalPolicy: 'untrusted',
      sandbox: SANDBOXES.ww as SandboxPolicy,
      sandboxPermissions: 'use_default',
      isApprovedForSession: false,
      matchesAllowRule: false,
    });
    expect(d).toEqual({ kind: 'run', sandboxed: true, sandbox: SAFE_GIT_SANDBOX });
  });

  it.each([
    [['bash', '-lc', 'ls && cat f'], 'ww', { kind: 'run', sandboxed: true }],
    [['bash', '-lc', 'ls && cat f'], 'dfa', { kind: 'run', sandboxed: false }],
    [['git', 'status'], 'ww', { kind: 'run', sandboxed: true, sandbox: SAFE_GIT_SANDBOX }],
    [['git', 'status'], 'ro', { kind: 'run', sandboxed: true, sandbox: SAFE_GIT_SANDBOX }],
    [['bash', '-lc', 'cd D && git status'], 'dfa', { kind: 'ask', sandboxedAfterApproval: false }],
    [['git', '-C', 'D', 'status'], 'ww', { kind: 'ask', sandboxedAfterApproval: true }],
  ])('runs a safe git under untrusted only in a read-only sandbox: %j under %s', (argv, sandbox, expected) => {
    const d = decideExec({
      argv,
      approvalPolicy: 'untrusted',
      sandbox: SANDBOXES[sandbox] as SandboxPolicy,
      sandboxPermissions: 'use_default',
      isApprovedForSession: false,
      matchesAllowRule: false,
    });
    expect(d).toMatchObject(expected);
    if (d.kind === 'ask' && sandbox === 'dfa') expect(d.reason).toMatch(/git runs programs .* danger-full-access/);
  });
});

describe('decideAfterSandboxFailure', () => {
  it.each([
    ['untrusted', false, 'ask-unsandboxed'],
    ['on-failure', false, 'ask-unsandboxed'],
    ['untrusted', true, 'retry-unsandboxed'],
    ['on-failure', true, 'retry-unsandboxed'],
    ['on-request', false, 'report'],
    ['on-request', true, 'report'],
    ['never', false, 'report'],
    ['never', true, 'report'],
  ] as const)('under %s (unsandboxed runs approved for the session: %s) answers %s', (approvalPolicy, isUnsandboxedApproved, expected) => {
    expect(decideAfterSandboxFailure({ approvalPolicy, isUnsandboxedApproved })).toBe(expected);
  });
});

describe('decidePatch', () => {
  it.each([
    ['untrusted', true, false, 'ask'],
    ['untrusted', false, false, 'ask'],
    ['untrusted', true, true, 'apply'],
    ['untrusted', false, true, 'apply'],
    ['on-failure', true, false, 'apply'],
    ['on-failure', false, false, 'ask'],
    ['on-failure', false, true, 'apply'],
    ['on-request', true, false, 'apply'],
    ['on-request', false, false, 'ask'],
    ['on-request', false, true, 'apply'],
    ['never', true, false, 'apply'],
    ['never', false, false, 'reject'],
    ['never', false, true, 'reject'],
  ] as const)('under %s (writable: %s, session-approved: %s) answers %s', (approvalPolicy, allPathsWritable, isApprovedForSession, expected) => {
    expect(decidePatch({ approvalPolicy, allPathsWritable, isApprovedForSession })).toBe(expected);
  });
});
