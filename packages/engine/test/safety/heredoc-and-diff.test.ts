/**
 * Two patch paths through real turns. A shell call `apply_patch <<'EOF' … EOF` sent to
 * `exec_command` is handled as a patch: the same approvals and refusals as the apply_patch tool,
 * a fileChange item and no command. And the turn's aggregate diff: after two patches in one turn
 * the last `diff.updated` holds every file the turn changed, each against its state at turn start.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalPolicy, ReviewDecision } from '@deputy/protocol';
import { addFilePatch, completedItems, execCall, patchCall, requireBwrap, SafetyHarness, unfinishedItems, WORKSPACE_WRITE } from './harness.js';

let h: SafetyHarness;
beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start();
});
afterAll(async () => {
  await h?.close();
});

/** The shell form of a patch, as models write it. */
function heredoc(patch: string, prefix = ''): string {
  return `${prefix}apply_patch <<'EOF'\n${patch}\nEOF\n`;
}

interface HeredocCase {
  name: string;
  policy: ApprovalPolicy;
  /** The file the patch adds: relative to the workspace, or 'outside' / 'link' for an escape. */
  where: 'inside' | 'subdir' | 'outside' | 'link';
  answer: ReviewDecision | null;
  asks: boolean;
  applied: boolean;
  told: RegExp;
}

const CASES: HeredocCase[] = [
  { name: 'asks under untrusted and applies when approved', policy: 'untrusted', where: 'inside', answer: 'approved', asks: true, applied: true, told: /^Exit code: 0\n/ },
  { name: 'asks under untrusted and tells the model when denied', policy: 'untrusted', where: 'inside', answer: 'denied', asks: true, applied: false, told: /^patch rejected by user$/ },
  { name: 'applies inside the workspace under on-request without asking', policy: 'on-request', where: 'inside', answer: null, asks: false, applied: true, told: /^Exit code: 0\n/ },
  { name: 'follows a leading cd into a subdirectory', policy: 'never', where: 'subdir', answer: null, asks: false, applied: true, told: /^Exit code: 0\n/ },
  { name: 'asks about a write outside the writable roots under on-request', policy: 'on-request', where: 'outside', answer: 'denied', asks: true, applied: false, told: /^patch rejected by user$/ },
  { name: 'asks about a write through a symlink that points outside', policy: 'on-failure', where: 'link', answer: 'approved', asks: true, applied: true, told: /^Exit code: 0\n/ },
  { name: 'refuses a write outside the writable roots under never', policy: 'never', where: 'outside', answer: null, asks: false, applied: false, told: /patch rejected: writing outside of the writable roots/ },
];

describe('a heredoc apply_patch sent to exec_command', () => {
  it.each(CASES)('$name', async (c) => {
    const cwd = await h.newWorkspace();
    await mkdir(join(cwd, 'sub'));
    await symlink(h.outside, join(cwd, 'link'));
    const id = h.nextId();
    const paths = {
      inside: { patchPath: `made-${id}.txt`, file: join(cwd, `made-${id}.txt`), prefix: '' },
      subdir: { patchPath: `made-${id}.txt`, file: join(cwd, 'sub', `made-${id}.txt`), prefix: 'cd sub && ' },
      outside: { patchPath: join(h.outside, `made-${id}.txt`), file: join(h.outside, `made-${id}.txt`), prefix: '' },
      link: { patchPath: `link/made-${id}.txt`, file: join(h.outside, `made-${id}.txt`), prefix: '' },
    }[c.where];
    const thread = await h.startThread({ approvalPolicy: c.policy, sandbox: WORKSPACE_WRITE, cwd });
    const cmd = heredoc(addFilePatch(paths.patchPath, `heredoc-${id}`), paths.prefix);
    const result = await h.runTurn(thread, [execCall(cmd, { login: undefined })], c.answer ? [c.answer] : [], 'denied');

    expect(result.asked.map((a) => a.kind)).toEqual(c.asks ? ['patch'] : []);
    if (c.asks) {
      const change = (result.asked[0]?.request.changes as { path: string; diff: string }[])[0];
      expect(change?.diff).toContain(`+heredoc-${id}`);
    }
    expect(existsSync(paths.file)).toBe(c.applied);
    if (c.applied) expect(await readFile(paths.file, 'utf8')).toBe(`heredoc-${id}\n`);
    expect(result.toldModel[0]).toMatch(c.told);
    expect(completedItems(result.events, 'commandExecution')).toEqual([]);
    expect(completedItems(result.events, 'fileChange').map((i) => i.status)).toEqual([c.applied ? 'completed' : 'declined']);
    expect(unfinishedItems(result.events)).toEqual([]);
  });
});

describe("the turn's aggregate diff", () => {
  it('after two patches in one turn holds every changed file against its state at turn start', async () => {
    const cwd = await h.newWorkspace();
    await writeFile(join(cwd, 'existing.txt'), 'alpha\nbeta\ngamma\n');
    const thread = await h.startThread({ approvalPolicy: 'never', sandbox: WORKSPACE_WRITE, cwd });
    const first = ['*** Begin Patch', '*** Update File: existing.txt', '@@', ' alpha', '-beta', '+BETA', ' gamma', '*** Add File: a-new.txt', '+first', '*** End Patch'].join('\n');
    const second = ['*** Begin Patch', '*** Update File: existing.txt', '@@', ' BETA', '-gamma', '+GAMMA', '*** Add File: b-new.txt', '+second', '*** End Patch'].join('\n');
    const result = await h.runTurn(thread, [patchCall(first), execCall(heredoc(second))]);

    expect(result.toldModel.map((t) => t.split('\n')[0])).toEqual(['Exit code: 0', 'Exit code: 0']);
    const diffs = result.events.flatMap((e) => (e.type === 'diff.updated' ? [e.diff] : []));
    expect(diffs).toHaveLength(2);
    expect(diffs[0]).toContain('+BETA');
    expect(diffs[0]).not.toContain('b-new.txt');
    const last = diffs[1] ?? '';
    // One file per header, in path order, each diffed from the turn's start.
    const headers = [...last.matchAll(/^diff --git a\/(\S+) b\/\S+$/gm)].map((m) => m[1]);
    expect(headers).toEqual(['a-new.txt', 'b-new.txt', 'existing.txt']);
    expect(last.slice(last.indexOf('diff --git a/existing.txt'))).toBe(
      ['diff --git a/existing.txt b/existing.txt', '--- a/existing.txt', '+++ b/existing.txt', '@@ -1,3 +1,3 @@', ' alpha', '-beta', '-gamma', '+BETA', '+GAMMA', ''].join('\n'),
    );
    expect(last).toContain('+++ b/a-new.txt\n@@ -0,0 +1 @@\n+first\n');
    expect(last).toContain('+++ b/b-new.txt\n@@ -0,0 +1 @@\n+second\n');

    // A new turn starts a new aggregate.
    const next = await h.runTurn(thread, [patchCall(addFilePatch('c-new.txt', 'third'))]);
    const nextDiffs = next.events.flatMap((e) => (e.type === 'diff.updated' ? [e.diff] : []));
    expect(nextDiffs).toHaveLength(1);
    expect([...(nextDiffs[0] ?? '').matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1])).toEqual(['c-new.txt']);
  });
});
