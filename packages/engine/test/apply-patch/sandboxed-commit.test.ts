/**
 * Tests of commitPatchSandboxed on a real disk and a real bubblewrap: the shared writer runs in a
 * child inside the workspace-write sandbox, keeps permissions, checks that planned files are
 * unchanged, and when the kernel refuses a write outside the writable roots (a direct path, a
 * symlink, a directory swapped for a symlink after the checks) nothing is left behind on the host.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SandboxUnavailableError } from '../../src/exec/errors.js';
import { planPatch } from '../../src/tools/apply-patch/apply.js';
import { PatchApplyError } from '../../src/tools/apply-patch/errors.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';
import { commitPatchSandboxed, type SandboxedCommitOptions } from '../../src/tools/apply-patch/sandboxed-commit.js';
import { requireBwrap, WORKSPACE_WRITE } from '../safety/harness.js';
import { patch, readTree } from './corpus-helpers.js';

let base: string;
let ws: string;
let outside: string;

beforeAll(requireBwrap);

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'deputy-sandboxed-commit-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(ws);
  await mkdir(outside);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const at = (relative: string): string => path.join(ws, relative);

async function plan(text: string) {
  return planPatch(parsePatch(text), { cwd: ws });
}

function commit(changes: Awaited<ReturnType<typeof plan>>, extra: Partial<SandboxedCommitOptions> = {}): Promise<void> {
  return commitPatchSandboxed(changes, { policy: WORKSPACE_WRITE, workspace: ws, ...extra });
}

describe('commitPatchSandboxed', () => {
  it('adds, updates, moves and deletes files inside the workspace', async () => {
    await writeFile(at('a.txt'), 'a\n');
    await writeFile(at('old.txt'), 'old\n');
    await writeFile(at('gone.txt'), 'gone\n');
    await commit(
      await plan(
        patch(
          '*** Add File: dir/new.txt', '+new',
          '*** Update File: a.txt', '@@', '-a', '+A',
          '*** Update File: old.txt', '*** Move to: moved/old.txt', '@@', '-old', '+moved',
          '*** Delete File: gone.txt',
        ),
      ),
    );
    expect(await readTree(ws)).toEqual({ 'a.txt': 'A\n', [path.join('dir', 'new.txt')]: 'new\n', [path.join('moved', 'old.txt')]: 'moved\n' });
  });

  it('keeps the permission bits of an updated file', async () => {
    await writeFile(at('run.sh'), '#!/bin/sh\necho hi\n');
    await chmod(at('run.sh'), 0o750);
    await commit(await plan(patch('*** Update File: run.sh', '@@', '-echo hi', '+echo hello')));
    expect((await stat(at('run.sh'))).mode & 0o777).toBe(0o750);
    expect(await readFile(at('run.sh'), 'utf8')).toBe('#!/bin/sh\necho hello\n');
  });

  it('refuses a write outside the writable roots and restores what it had written', async () => {
    await writeFile(at('a.txt'), 'a\n');
    const target = path.join(outside, 'escape.txt');
    const changes = await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', `*** Add File: ${target}`, '+escaped'));
    const error = await commit(changes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PatchApplyError);
    expect((error as Error).message).toBe(`Failed to write file ${target}: Read-only file system`);
    expect(await readTree(ws)).toEqual({ 'a.txt': 'a\n' });
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses to write through a symlink that leads outside', async () => {
    await writeFile(path.join(outside, 'target.txt'), 'original\n');
    await symlink(path.join(outside, 'target.txt'), at('link.txt'));
    const error = await commit(await plan(patch('*** Update File: link.txt', '@@', '-original', '+changed'))).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^Failed to write file .*link\.txt: Read-only file system$/);
    expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('original\n');
    expect(await readdir(outside)).toEqual(['target.txt']);
  });

  it('writes nothing outside when a directory became a symlink after the checks', async () => {
    await mkdir(at('d'));
    await writeFile(at('keep.txt'), 'k\n');
    const changes = await plan(patch('*** Update File: keep.txt', '@@', '-k', '+K', '*** Add File: d/.bashrc', '+evil'));
    await rename(at('d'), at('d-was-here'));
    await symlink(outside, at('d'));
    await expect(commit(changes)).rejects.toThrow(`Failed to write file ${at('d/.bashrc')}: Read-only file system`);
    expect(await readdir(outside)).toEqual([]);
    expect(await readFile(at('keep.txt'), 'utf8')).toBe('k\n');
  });

  it('refuses to write anything when a planned file changed on disk before the commit', async () => {
    await writeFile(at('a.txt'), 'a\n');
    await writeFile(at('b.txt'), 'b\n');
    const changes = await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B'));
    await writeFile(at('b.txt'), 'b\nedited by the user\n');
    const error = await commit(changes).catch((e: unknown) => e);
    expect(error).toMatchObject({ path: 'b.txt', message: 'b.txt changed on disk after the patch was checked; no files were modified. Read it again and retry.' });
    expect(await readTree(ws)).toEqual({ 'a.txt': 'a\n', 'b.txt': 'b\nedited by the user\n' });
  });

  it('restores files and removes new directories when a later write fails', async () => {
    await writeFile(at('a.txt'), 'a\n');
    await writeFile(at('gone.txt'), 'gone\n');
    await chmod(at('gone.txt'), 0o640);
    const changes = await plan(
      patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Delete File: gone.txt', '*** Add File: deep/er/new.txt', '+new', '*** Add File: blocked/file.txt', '+never'),
    );
    await writeFile(at('blocked'), 'in the way\n');
    await expect(commit(changes)).rejects.toThrow(`Failed to create parent directories for ${at('blocked/file.txt')}: File exists`);
    expect(await readTree(ws)).toEqual({ 'a.txt': 'a\n', 'gone.txt': 'gone\n', blocked: 'in the way\n' });
    expect((await stat(at('gone.txt'))).mode & 0o777).toBe(0o640);
    await expect(stat(at('deep'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects with the abort reason and starts nothing when its signal is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    controller.abort(reason);
    await expect(commit(await plan(patch('*** Add File: a.txt', '+a')), { signal: controller.signal })).rejects.toBe(reason);
    expect(await readTree(ws)).toEqual({});
  });

  it('stops, restores and rejects with the abort reason when its signal aborts while it runs', async () => {
    await writeFile(at('a.txt'), 'a\n');
    const changes = await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: b.txt', '+b'));
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const running = commit(changes, { signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await expect(running).rejects.toBe(reason);
    expect(await readTree(ws)).toEqual({ 'a.txt': 'a\n' });
  });

  it('stops and restores when it runs out of time', async () => {
    await writeFile(at('a.txt'), 'a\n');
    const changes = await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: b.txt', '+b'));
    await expect(commit(changes, { timeoutMs: 1 })).rejects.toThrow(/^Failed to apply patch: (timed out after 1 ms; the files already written were restored|the sandboxed writer timed out)/);
    expect(await readTree(ws)).toEqual({ 'a.txt': 'a\n' });
  });

  it('fails with the install message when bwrap is missing, and writes nothing', async () => {
    const error = await commit(await plan(patch('*** Add File: a.txt', '+a')), { bwrap: { bwrapPath: path.join(base, 'no-bwrap') } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toMatch(/^Sandbox unavailable: bubblewrap \(bwrap\) was not found at .*\. Install it with: apt-get install bubblewrap$/);
    expect(await readTree(ws)).toEqual({});
  });
});
