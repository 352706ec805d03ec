/**
 * Escape rows 4 and 5: a command's working directory never becomes a writable root. With
 * `exec_command`'s `workdir` set to a folder outside the workspace (a stand-in for `$HOME`) or to
 * the workspace's `.git`, and with `cd DIR && apply_patch <<'EOF'`, nothing may land there under
 * `never`, `on-request` or `on-failure` (whose unsandboxed retry the harness declines); under
 * `untrusted` the patch prompt says that it writes outside the writable roots. Every verdict is
 * read from the disk.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalPolicy } from '@deputy/protocol';
import { CONFINED_TMP_TOML, execCall, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from '../safety/harness.js';

let h: SafetyHarness;

beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start({ sandbox: 'workspace-write', extraToml: CONFINED_TMP_TOML });
});
afterAll(async () => {
  await h?.close();
});

/** `cd DIR && apply_patch` adding `file` with one line, as the model sends it to exec_command. */
function cdApplyPatch(dir: string, file: string): string {
  return [`cd ${dir} && apply_patch <<'EOF'`, '*** Begin Patch', `*** Add File: ${file}`, '+pwned', '*** End Patch', 'EOF'].join('\n');
}

const POLICIES: ApprovalPolicy[] = ['never', 'on-request', 'on-failure'];

describe.each(POLICIES)('approval policy %s, workspace-write', (approvalPolicy) => {
  it('a workdir outside the workspace is not writable', async () => {
    const target = join(h.outside, `workdir-${h.nextId()}`);
    await mkdir(target);
    const thread = await h.startThread({ approvalPolicy, sandbox: WORKSPACE_WRITE });
    await h.runTurn(thread, [execCall('echo pwned > .bashrc', { workdir: target })]);
    expect(existsSync(join(target, '.bashrc'))).toBe(false);
  });

  it('a workdir of .git does not make .git writable', async () => {
    const thread = await h.startThread({ approvalPolicy, sandbox: WORKSPACE_WRITE });
    const git = join(thread.settings.cwd, '.git');
    await mkdir(join(git, 'hooks'), { recursive: true });
    await h.runTurn(thread, [execCall('echo pwned > hooks/pre-commit', { workdir: git })]);
    expect(existsSync(join(git, 'hooks', 'pre-commit'))).toBe(false);
  });

  it('cd DIR && apply_patch does not move the writable root to DIR', async () => {
    const target = join(h.outside, `cd-${h.nextId()}`);
    await mkdir(target);
    const thread = await h.startThread({ approvalPolicy, sandbox: WORKSPACE_WRITE });
    const git = join(thread.settings.cwd, '.git');
    await mkdir(join(git, 'hooks'), { recursive: true });
    await h.runTurn(thread, [execCall(cdApplyPatch(target, '.bashrc')), execCall(cdApplyPatch('.git', 'hooks/pre-commit'))]);
    expect(existsSync(join(target, '.bashrc'))).toBe(false);
    expect(existsSync(join(git, 'hooks', 'pre-commit'))).toBe(false);
  });
});

describe('approval policy untrusted', () => {
  it('asks about cd DIR && apply_patch as a write outside the writable roots, and writes nothing when declined', async () => {
    const target = join(h.outside, `untrusted-${h.nextId()}`);
    await mkdir(target);
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE });
    const result = await h.runTurn(thread, [execCall(cdApplyPatch(target, '.bashrc'))], ['denied']);
    expect(existsSync(join(target, '.bashrc'))).toBe(false);
    expect(result.asked).toHaveLength(1);
    expect(String(result.asked[0]?.request.reason)).toContain(`writes outside the writable roots: ${join(target, '.bashrc')}`);
  });
});
