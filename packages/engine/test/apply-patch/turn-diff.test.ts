/**
 * Tests of TurnDiffTracker: several patches in one turn against real files, diffed from each file's
 * state before its first change to what is on disk now, with moves shown as renames.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitPatch, planPatch } from '../../src/tools/apply-patch/apply.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';
import { TurnDiffTracker } from '../../src/tools/apply-patch/turn-diff.js';
import { patch } from './corpus-helpers.js';

let cwd: string;
let tracker: TurnDiffTracker;

beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'deputy-turn-diff-'));
  tracker = new TurnDiffTracker(cwd);
});

afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** Plans, tracks and commits one patch, as the tool does. */
async function apply(text: string): Promise<void> {
  const changes = await planPatch(parsePatch(text), { cwd });
  await tracker.trackBefore(changes);
  await commitPatch(changes);
}

describe('TurnDiffTracker', () => {
  it('diffs a file edited by two patches against its content before the first', async () => {
    await writeFile(path.join(cwd, 'a.txt'), 'one\ntwo\nthree\n');
    await apply(patch('*** Update File: a.txt', '@@', '-one', '+ONE'));
    await apply(patch('*** Update File: a.txt', '@@', '-three', '+THREE'));
    expect(await tracker.unifiedDiff()).toBe(
      'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n-three\n+THREE\n',
    );
  });

  it('shows created and deleted files, sorted by path', async () => {
    await writeFile(path.join(cwd, 'z-old.txt'), 'bye\n');
    await apply(patch('*** Add File: b-new.txt', '+hi', '*** Delete File: z-old.txt'));
    await apply(patch('*** Add File: a-new.txt', '+first'));
    expect(await tracker.unifiedDiff()).toBe(
      [
        'diff --git a/a-new.txt b/a-new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a-new.txt\n@@ -0,0 +1 @@\n+first\n',
        'diff --git a/b-new.txt b/b-new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b-new.txt\n@@ -0,0 +1 @@\n+hi\n',
        'diff --git a/z-old.txt b/z-old.txt\ndeleted file mode 100644\n--- a/z-old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n',
      ].join(''),
    );
  });

  it('shows nothing for a file created and deleted within the turn, or edited back to its start', async () => {
    await writeFile(path.join(cwd, 'same.txt'), 'x\n');
    await apply(patch('*** Add File: temp.txt', '+t', '*** Update File: same.txt', '@@', '-x', '+y'));
    await apply(patch('*** Delete File: temp.txt', '*** Update File: same.txt', '@@', '-y', '+x'));
    expect(await tracker.unifiedDiff()).toBe('');
  });

  it('follows a moved file and diffs it as a rename from its original path', async () => {
    await writeFile(path.join(cwd, 'old.txt'), 'a\nb\n');
    await apply(patch('*** Update File: old.txt', '*** Move to: new/place.txt', '@@', '-a', '+A'));
    await apply(patch('*** Update File: new/place.txt', '@@', '-b', '+B'));
    expect(await tracker.unifiedDiff()).toBe(
      'diff --git a/old.txt b/new/place.txt\nrename from old.txt\nrename to new/place.txt\n--- a/old.txt\n+++ b/new/place.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n+A\n+B\n',
    );
  });

  it('keeps both histories when a move overwrites a file that existed', async () => {
    await writeFile(path.join(cwd, 'src.txt'), 'src\n');
    await writeFile(path.join(cwd, 'dst.txt'), 'dst\n');
    await apply(patch('*** Update File: src.txt', '*** Move to: dst.txt', '@@', ' src'));
    const diff = await tracker.unifiedDiff();
    expect(diff).toContain('diff --git a/dst.txt b/dst.txt\n--- a/dst.txt\n+++ b/dst.txt\n@@ -1 +1 @@\n-dst\n+src\n');
    expect(diff).toContain('diff --git a/src.txt b/src.txt\ndeleted file mode 100644\n');
  });

  it('reports what is on disk now, including edits made outside the patches', async () => {
    await writeFile(path.join(cwd, 'a.txt'), 'one\n');
    await apply(patch('*** Update File: a.txt', '@@', '-one', '+two'));
    await writeFile(path.join(cwd, 'a.txt'), 'two\nthree\n');
    expect(await tracker.unifiedDiff()).toContain('-one\n+two\n+three\n');
  });

  it('produces an empty diff before anything was tracked', async () => {
    expect(await tracker.unifiedDiff()).toBe('');
  });
});
