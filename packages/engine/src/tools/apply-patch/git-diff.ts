/**
 * Formats one file's change as a git-style unified diff (`diff --git a/… b/…`, `new file mode`,
 * `deleted file mode`, `rename from/to`, then `---`/`+++` and hunks with three lines of context),
 * using the `diff` package. Paths are given already relative to the workspace; this module does
 * no I/O and knows nothing about patches.
 */
import path from 'node:path';
import { formatPatch, structuredPatch } from 'diff';

/** Both sides of one file's change; a null side means the file does not exist there. */
export interface FileDiffInput {
  /** Path before the change (relative to the cwd where possible), null when the file is created. */
  oldPath: string | null;
  /** Path after the change, null when the file is deleted. */
  newPath: string | null;
  oldContent: string | null;
  newContent: string | null;
}

/** Lines of context around each change, as `git diff` uses. */
const CONTEXT_LINES = 3;

/**
 * Returns the git-style diff of one file, or '' when nothing changed.
 * @param input both sides of the change
 */
export function formatGitDiff(input: FileDiffInput): string {
  const oldName = input.oldPath ?? input.newPath;
  const newName = input.newPath ?? input.oldPath;
  if (oldName === null || newName === null) return '';
  const isCreate = input.oldContent === null;
  const isDelete = input.newContent === null;
  if (isCreate && isDelete) return '';
  const isRename = !isCreate && !isDelete && oldName !== newName;
  if (!isRename && input.oldContent === input.newContent) return '';

  const patch = structuredPatch(
    isCreate ? '/dev/null' : `a/${toPosix(oldName)}`,
    isDelete ? '/dev/null' : `b/${toPosix(newName)}`,
    input.oldContent ?? '',
    input.newContent ?? '',
    undefined,
    undefined,
    { context: CONTEXT_LINES },
  );
  patch.isGit = true;
  patch.isCreate = isCreate;
  patch.isDelete = isDelete;
  patch.isRename = isRename;
  // Git leaves out a range's length when it is 1 (`@@ -3 +3,2 @@`); the diff package always writes it.
  return formatPatch(patch).replace(HUNK_HEADER, (_all, oldStart: string, oldLength: string, newStart: string, newLength: string) =>
    `@@ -${range(oldStart, oldLength)} +${range(newStart, newLength)} @@`,
  );
}

/** A hunk header; in a diff only these lines start with `@@`, every body line has a one-character prefix. */
const HUNK_HEADER = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm;

function range(start: string, length: string): string {
  return length === '1' ? start : `${start},${length}`;
}

/** Git writes `/` separators whatever the platform. */
function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
