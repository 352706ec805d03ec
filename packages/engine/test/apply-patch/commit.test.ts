/**
 * Tests of commitPatch on a real disk: permissions and symlinks survive, a file edited between
 * planning and committing stops the commit before any write, and a write failure midway restores
 * the files (and directories) already touched.
 */
import { chmod, lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitPatch, planPatch } from '../../src/tools/apply-patch/apply.js';
import { PatchApplyError } from '../../src/tools/apply-patch/errors.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';
import { patch, readTree } from './corpus-helpers.js';

let cwd: string;

beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'deputy-commit-'));
});

afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const at = (relative: string): string => path.join(cwd, relative);

async function plan(text: string) {
  return planPatch(parsePatch(text), { cwd });
}

describe('commitPatch', () => {
  it('keeps the permission bits of an updated file', async () => {
    await writeFile(at('run.sh'), '#!/bin/sh\necho hi\n');
    await chmod(at('run.sh'), 0o755);
    await commitPatch(await plan(patch('*** Update File: run.sh', '@@', '-echo hi', '+echo hello')));
    expect((await stat(at('run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(at('run.sh'), 'utf8')).toBe('#!/bin/sh\necho hello\n');
  });

  it('carries the permission bits of a moved file to its new path', async () => {
    await writeFile(at('tool.sh'), 'a\n');
    await chmod(at('tool.sh'), 0o750);
    await commitPatch(await plan(patch('*** Update File: tool.sh', '*** Move to: bin/tool.sh', '@@', '-a', '+b')));
    expect((await stat(at('bin/tool.sh'))).mode & 0o777).toBe(0o750);
  });

  it('writes through a symlink and leaves the link in place', async () => {
    await writeFile(at('real.txt'), 'one\n');
    await symlink('real.txt', at('link.txt'));
    await commitPatch(await plan(patch('*** Update File: link.txt', '@@', '-one', '+two')));
    expect((await lstat(at('link.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(at('link.txt'))).toBe('real.txt');
    expect(await readFile(at('real.txt'), 'utf8')).toBe('two\n');
  });

  it('refuses to write anything when a planned file changed on disk before the commit', async () => {
    await writeFile(at('a.txt'), 'a\n');
    await writeFile(at('b.txt'), 'b\n');
    const changes = await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B'));
    await writeFile(at('b.txt'), 'b\nedited by the user\n');
    await expect(commitPatch(changes)).rejects.toThrow('b.txt changed on disk after the patch was checked; no files were modified');
    expect(await readTree(cwd)).toEqual({ 'a.txt': 'a\n', 'b.txt': 'b\nedited by the user\n' });
  });

  it('restores updated, deleted and created files and removes new directories when a later write fails', async () => {
    await writeFile(at('a.txt'), 'a\n');
    await writeFile(at('gone.txt'), 'gone\n');
    await chmod(at('gone.txt'), 0o600);
    const changes = await plan(
      patch(
        '*** Update File: a.txt', '@@', '-a', '+A',
        '*** Delete File: gone.txt',
        '*** Add File: deep/er/new.txt', '+new',
        '*** Add File: blocked/file.txt', '+never',
      ),
    );
    // A regular file where the last section needs a directory makes its write fail.
    await writeFile(at('blocked'), 'in the way\n');
    const error = await commitPatch(changes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PatchApplyError);
    expect((error as Error).message).toContain(`Failed to create parent directories for ${at('blocked/file.txt')}`);
    expect(await readTree(cwd)).toEqual({ 'a.txt': 'a\n', 'gone.txt': 'gone\n', blocked: 'in the way\n' });
    expect((await stat(at('gone.txt'))).mode & 0o777).toBe(0o600);
    await expect(stat(at('deep'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps directories that existed before when rolling back', async () => {
    await mkdir(at('kept'));
    const changes = await plan(patch('*** Add File: kept/sub/x.txt', '+x', '*** Add File: wall/y.txt', '+y'));
    await writeFile(at('wall'), 'file\n');
    await expect(commitPatch(changes)).rejects.toThrow(PatchApplyError);
    expect((await stat(at('kept'))).isDirectory()).toBe(true);
    await expect(stat(at('kept/sub'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writes nothing when its signal is already aborted', async () => {
    await writeFile(at('a.txt'), 'a\n');
    const changes = await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: b.txt', '+b'));
    const controller = new AbortController();
    const reason = new Error('interrupted');
    controller.abort(reason);
    await expect(commitPatch(changes, { signal: controller.signal })).rejects.toBe(reason);
    expect(await readTree(cwd)).toEqual({ 'a.txt': 'a\n' });
  });

  it('leaves no temporary files next to the files it wrote', async () => {
    await writeFile(at('a.txt'), 'a\n');
    await commitPatch(await plan(patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: dir/b.txt', '+b')));
    expect(Object.keys(await readTree(cwd)).sort()).toEqual(['a.txt', path.join('dir', 'b.txt')]);
  });
});
