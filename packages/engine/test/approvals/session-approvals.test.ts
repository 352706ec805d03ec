/** Per-thread "approved for session" memory: exact commands, model prefix rules, patch paths. */
import { describe, expect, it } from 'vitest';
import { SessionApprovals } from '../../src/approvals/session-approvals.js';

describe('SessionApprovals', () => {
  it('remembers the exact command only', () => {
    const s = new SessionApprovals();
    s.approveCommand(['touch', 'a.txt']);
    expect(s.isCommandApproved(['touch', 'a.txt'])).toBe(true);
    expect(s.isCommandApproved(['touch', 'b.txt'])).toBe(false);
    expect(s.isCommandApproved(['touch a.txt'])).toBe(false);
  });

  it('also remembers an acceptable model prefix rule', () => {
    const s = new SessionApprovals();
    s.approveCommand(['npm', 'run', 'build'], { prefixRule: ['npm', 'run'] });
    expect(s.isCommandApproved(['npm', 'run', 'lint'])).toBe(true);
    expect(s.isCommandApproved(['bash', '-lc', 'cd web && npm run test'])).toBe(true);
    expect(s.isCommandApproved(['bash', '-lc', 'npm run test && touch x'])).toBe(false);
    expect(s.isCommandApproved(['npm', 'install'])).toBe(false);
  });

  it('does not let git ride along with an approved prefix (its repository config may run programs)', () => {
    const s = new SessionApprovals();
    s.approveCommand(['npm', 'run', 'build'], { prefixRule: ['npm', 'run'] });
    expect(s.isCommandApproved(['bash', '-lc', 'ls && npm run test'])).toBe(true);
    expect(s.isCommandApproved(['bash', '-lc', 'cd D && git status && npm run test'])).toBe(false);
  });

  it('ignores banned prefixes and prefixes that do not start the command', () => {
    const s = new SessionApprovals();
    s.approveCommand(['python3', '-c', 'print(1)'], { prefixRule: ['python3'] });
    s.approveCommand(['make'], { prefixRule: ['cargo'] });
    expect(s.isCommandApproved(['python3', '-c', 'import os'])).toBe(false);
    expect(s.isCommandApproved(['cargo', 'build'])).toBe(false);
    expect(s.isCommandApproved(['make'])).toBe(true);
  });

  it('approves patches per path, resolving relative paths against cwd', () => {
    const s = new SessionApprovals();
    s.approvePaths(['src/a.ts', '/abs/b.ts'], '/repo');
    expect(s.arePathsApproved(['/repo/src/a.ts'], '/elsewhere')).toBe(true);
    expect(s.arePathsApproved(['src/a.ts', '/abs/b.ts'], '/repo')).toBe(true);
    expect(s.arePathsApproved(['src/a.ts', 'src/c.ts'], '/repo')).toBe(false);
    expect(s.arePathsApproved([], '/repo')).toBe(false);
  });
});

describe('session prefixes and shell expansion', () => {
  it('does not treat a command whose words expand (braces, globs) as safe beside an approved prefix', () => {
    const approvals = new SessionApprovals();
    approvals.approveCommand(['bash', '-lc', 'npm test'], { prefixRule: ['npm', 'test'] });
    expect(approvals.isCommandApproved(['bash', '-lc', 'npm test && sort lines.txt'])).toBe(true);
    expect(approvals.isCommandApproved(['bash', '-lc', 'npm test && sort {--compress-program=sh,lines.txt}'])).toBe(false);
    expect(approvals.isCommandApproved(['bash', '-lc', 'npm test && sort *'])).toBe(false);
    expect(approvals.isCommandApproved(['bash', '-lc', 'npm test && cat *.txt'])).toBe(true);
  });
});

describe('SessionApprovals and runs without the sandbox', () => {
  it('never lets an approval of a sandboxed run cover a run without the sandbox', () => {
    const s = new SessionApprovals();
    s.approveCommand(['touch', '/x'], { prefixRule: ['touch'] });
    expect(s.isCommandApproved(['touch', '/x'])).toBe(true);
    expect(s.isCommandApproved(['touch', '/x'], { isUnsandboxed: true })).toBe(false);
    expect(s.isCommandApproved(['touch', '/y'], { isUnsandboxed: true })).toBe(false);
    s.approveCommand(['touch', '/x'], { prefixRule: ['touch'], isUnsandboxed: true });
    expect(s.isCommandApproved(['touch', '/x'], { isUnsandboxed: true })).toBe(true);
    expect(s.isCommandApproved(['touch', '/y'], { isUnsandboxed: true })).toBe(true);
    // A later sandboxed approval does not take the unsandboxed one back.
    s.approveCommand(['touch', '/x']);
    expect(s.isCommandApproved(['touch', '/x'], { isUnsandboxed: true })).toBe(true);
  });
});
