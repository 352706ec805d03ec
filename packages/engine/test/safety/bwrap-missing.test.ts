/**
 * Without bubblewrap, nothing sandboxed runs: the engine's PATH is replaced by a directory that
 * holds the tools the commands need but no `bwrap`. Every sandboxed command, under every
 * approval policy, fails with the "install bubblewrap" message and never runs unsandboxed
 * (marker files), not even through the on-failure retry; a patch inside the workspace, which is
 * written from inside the sandbox, fails the same way and writes nothing; danger-full-access,
 * which needs no sandbox, still runs, proving the PATH itself works.
 */
import { existsSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApprovalPolicy, SandboxPolicy } from '@deputy/protocol';
import { findBwrap } from '../../src/exec/sandbox-probe.js';
import { addFilePatch, completedItems, execCall, FULL_ACCESS, patchCall, READ_ONLY, SafetyHarness, unfinishedItems, WORKSPACE_WRITE } from './harness.js';

const INSTALL_MESSAGE = /^failed to run command: Sandbox unavailable: bubblewrap \(bwrap\) was not found on PATH\. Install it with: apt-get install bubblewrap$/;

let h: SafetyHarness;
beforeAll(async () => {
  h = await SafetyHarness.start();
  const bin = join(h.base, 'bin-without-bwrap');
  await mkdir(bin);
  for (const tool of ['touch', 'ls']) {
    const real = ['/usr/bin', '/bin'].map((dir) => join(dir, tool)).find((p) => existsSync(p));
    if (!real) throw new Error(`${tool} not found in /usr/bin or /bin`);
    await symlink(real, join(bin, tool));
  }
  vi.stubEnv('PATH', bin);
  if (findBwrap() !== null) throw new Error('bwrap is still reachable; the test setup is wrong');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await h?.close();
});

const CASES: { policy: ApprovalPolicy; sandbox: SandboxPolicy; name: string }[] = [
  { policy: 'on-failure', sandbox: WORKSPACE_WRITE, name: 'on-failure under workspace-write' },
  { policy: 'on-request', sandbox: WORKSPACE_WRITE, name: 'on-request under workspace-write' },
  { policy: 'never', sandbox: WORKSPACE_WRITE, name: 'never under workspace-write' },
  { policy: 'untrusted', sandbox: WORKSPACE_WRITE, name: 'untrusted under workspace-write, after an approval' },
  { policy: 'on-failure', sandbox: READ_ONLY, name: 'on-failure under read-only' },
];

describe('when bwrap is missing', () => {
  it.each(CASES)('fails a sandboxed command with the install message and never runs it ($name)', async ({ policy, sandbox }) => {
    const cwd = await h.newWorkspace();
    const thread = await h.startThread({ approvalPolicy: policy, sandbox, cwd });
    const result = await h.runTurn(thread, [execCall('touch marker')], ['approved'], 'approved');
    expect(result.turn.status).toBe('completed');
    expect(result.toldModel[0]).toMatch(INSTALL_MESSAGE);
    expect(existsSync(join(cwd, 'marker'))).toBe(false);
    // No "retry without the sandbox?" question: an unavailable sandbox is not a denial.
    expect(result.asked.filter((a) => a.request.isSandboxRetry === true)).toEqual([]);
    expect(result.asked).toHaveLength(policy === 'untrusted' ? 1 : 0);
    const [item] = completedItems(result.events, 'commandExecution');
    expect(item).toMatchObject({ status: 'failed', exitCode: -1 });
    expect(item?.aggregatedOutput).toMatch(/install it with: apt-get install bubblewrap/i);
    expect(unfinishedItems(result.events)).toEqual([]);
  });

  it.each(['never', 'untrusted'] as const)('fails a patch inside the workspace with the install message and writes nothing (%s)', async (policy) => {
    const cwd = await h.newWorkspace();
    const thread = await h.startThread({ approvalPolicy: policy, sandbox: WORKSPACE_WRITE, cwd });
    const result = await h.runTurn(thread, [patchCall(addFilePatch('notes.txt', 'hello'))], ['approved'], 'approved');
    expect(result.toldModel[0]).toMatch(/^Exit code: 1\n[\s\S]*failed to write the patch: Sandbox unavailable: bubblewrap \(bwrap\) was not found on PATH\. Install it with: apt-get install bubblewrap$/);
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);
    expect(completedItems(result.events, 'fileChange').map((i) => i.status)).toEqual(['failed']);
    expect(unfinishedItems(result.events)).toEqual([]);
  });

  it('still runs commands under danger-full-access with the same PATH', async () => {
    const cwd = await h.newWorkspace();
    const thread = await h.startThread({ approvalPolicy: 'never', sandbox: FULL_ACCESS, cwd });
    const result = await h.runTurn(thread, [execCall('touch marker')]);
    expect(result.toldModel[0]).toMatch(/Process exited with code 0/);
    expect(existsSync(join(cwd, 'marker'))).toBe(true);
  });
});
