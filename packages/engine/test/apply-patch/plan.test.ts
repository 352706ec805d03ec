/**
 * Tests of planPatch beyond the corpus: the git-style diffs and contents it reports per file, path
 * display, the injectable reader, cancellation, and the success summary.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planPatch, summarizeChanges } from '../../src/tools/apply-patch/apply.js';
import { PatchApplyError } from '../../src/tools/apply-patch/errors.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';
import { patch } from './corpus-helpers.js';

let cwd: string;

beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'deputy-plan-'));
});

afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('planPatch', () => {
  it('reports an update with absolute path, both contents and a git-style diff', async () => {
    await writeFile(path.join(cwd, 'multi.txt'), 'foo\nbar\nbaz\nqux\n');
    const [change] = await planPatch(parsePatch(patch('*** Update File: multi.txt', '@@', ' foo', '-bar', '+BAR', '@@', ' baz', '-qux', '+QUX')), { cwd });
    expect(change).toEqual({
      path: path.join(cwd, 'multi.txt'),
      kind: 'update',
      movePath: null,
      oldContent: 'foo\nbar\nbaz\nqux\n',
      newContent: 'foo\nBAR\nbaz\nQUX\n',
      displayPath: 'multi.txt',
      diff: 'diff --git a/multi.txt b/multi.txt\n--- a/multi.txt\n+++ b/multi.txt\n@@ -1,4 +1,4 @@\n foo\n-bar\n+BAR\n baz\n-qux\n+QUX\n',
    });
  });

  it('diffs an added file against /dev/null and a deleted file to /dev/null', async () => {
    await writeFile(path.join(cwd, 'old.txt'), 'gone\n');
    const changes = await planPatch(parsePatch(patch('*** Add File: new.txt', '+hello', '*** Delete File: old.txt')), { cwd });
    expect(changes.map((c) => c.diff)).toEqual([
      'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n',
      'diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n',
    ]);
    expect(changes.map((c) => [c.kind, c.oldContent, c.newContent])).toEqual([
      ['add', null, 'hello\n'],
      ['delete', 'gone\n', null],
    ]);
  });

  it('diffs a move as a rename with the content change', async () => {
    await writeFile(path.join(cwd, 'src.txt'), 'line\n');
    const [change] = await planPatch(parsePatch(patch('*** Update File: src.txt', '*** Move to: dir/dst.txt', '@@', '-line', '+line2')), { cwd });
    expect(change?.movePath).toBe(path.join(cwd, 'dir/dst.txt'));
    expect(change?.displayPath).toBe('dir/dst.txt');
    expect(change?.diff).toBe(
      'diff --git a/src.txt b/dir/dst.txt\nrename from src.txt\nrename to dir/dst.txt\n--- a/src.txt\n+++ b/dir/dst.txt\n@@ -1 +1 @@\n-line\n+line2\n',
    );
  });

  it('shows the old content of a file that an add section overwrites', async () => {
    await writeFile(path.join(cwd, 'dup.txt'), 'old\n');
    const [change] = await planPatch(parsePatch(patch('*** Add File: dup.txt', '+new')), { cwd });
    expect(change?.kind).toBe('add');
    expect(change?.oldContent).toBe('old\n');
    expect(change?.diff).toContain('-old\n+new\n');
  });

  it('resolves a cwd-relative path that leaves the cwd and shows it absolute', async () => {
    const outside = `${path.basename(cwd)}-sibling.txt`;
    const [change] = await planPatch(parsePatch(patch(`*** Add File: ../${outside}`, '+x')), { cwd });
    const absolute = path.join(path.dirname(cwd), outside);
    expect(change?.path).toBe(absolute);
    expect(summarizeChanges(change ? [change] : [])).toBe(`Success. Updated the following files:\nA ${absolute}\n`);
  });

  it('shows a file whose name starts with two dots as inside the cwd', async () => {
    const changes = await planPatch(parsePatch(patch('*** Add File: ..hidden', '+x')), { cwd });
    expect(changes[0]?.displayPath).toBe('..hidden');
  });

  it('reads through an injected reader and never touches the disk for it', async () => {
    const reads: string[] = [];
    const readText = async (absPath: string): Promise<string> => {
      reads.push(absPath);
      if (absPath.endsWith('virtual.txt')) return 'a\r\nb\r\n';
      throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    };
    const [change] = await planPatch(parsePatch(patch('*** Update File: virtual.txt', '@@', '-b', '+B')), { cwd, readFile: readText });
    expect(reads).toEqual([path.join(cwd, 'virtual.txt')]);
    expect(change?.newContent).toBe('a\r\nB\r\n');
  });

  it('stops between files when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('turn interrupted'));
    await expect(planPatch(parsePatch(patch('*** Add File: a.txt', '+a')), { cwd, signal: controller.signal })).rejects.toThrow('turn interrupted');
  });

  it('throws PatchApplyError naming the file and chunk', async () => {
    await writeFile(path.join(cwd, 'a.ts'), 'one\ntwo\n');
    const error = await planPatch(parsePatch(patch('*** Update File: a.ts', '@@', '-one', '+1', '@@', '-three', '+3')), { cwd }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PatchApplyError);
    expect(error).toMatchObject({ path: 'a.ts', chunk: 2, message: 'Failed to find expected lines in a.ts (hunk 2):\nthree' });
    expect(await readFile(path.join(cwd, 'a.ts'), 'utf8')).toBe('one\ntwo\n');
  });
});

describe('summarizeChanges', () => {
  it('groups added, modified and deleted files in that order whatever the patch order', async () => {
    await writeFile(path.join(cwd, 'b.txt'), 'b\n');
    await writeFile(path.join(cwd, 'c.txt'), 'c\n');
    const changes = await planPatch(
      parsePatch(patch('*** Delete File: c.txt', '*** Update File: b.txt', '@@', '-b', '+B', '*** Add File: a.txt', '+a')),
      { cwd },
    );
    expect(summarizeChanges(changes)).toBe('Success. Updated the following files:\nA a.txt\nM b.txt\nD c.txt\n');
  });

  it('shows paths relative to another cwd when one is given', async () => {
    const changes = await planPatch(parsePatch(patch('*** Add File: sub/a.txt', '+a')), { cwd });
    expect(summarizeChanges(changes, path.join(cwd, 'sub'))).toBe('Success. Updated the following files:\nA a.txt\n');
  });
});
