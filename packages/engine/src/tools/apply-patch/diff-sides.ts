/**
 * Reading back the git-style diffs the engine records for each changed file (`FileUpdate.diff`,
 * made by `git-diff.ts`): the hunks without the `diff --git`/`---`/`+++` header, and one side of
 * a whole-file diff (a created file's content, a deleted file's former content). The one
 * definition both front doors report changes with. Pure string functions; no I/O.
 */

/** Which side of a diff: `old` (the `-` lines) or `new` (the `+` lines). */
export type DiffSide = 'old' | 'new';

/** The lines of `diff` from its first hunk header (`@@`) on, or null when it has no hunk. */
function hunkLines(diff: string): string[] | null {
  const lines = diff.split('\n');
  const first = lines.findIndex((line) => line.startsWith('@@'));
  return first < 0 ? null : lines.slice(first);
}

/**
 * The hunks of a diff without its header, e.g. `@@ -1 +1 @@\n-old\n+new\n`. A diff with no hunk
 * (a pure rename, a mode change) is returned whole.
 */
export function diffHunks(diff: string): string {
  return hunkLines(diff)?.join('\n') ?? diff;
}

/**
 * One side of a whole-file diff: the body lines of that side, each ending in a newline except
 * one followed by `\ No newline at end of file`. For a created file's diff, side `new` is its
 * content; for a deleted file's, side `old`. A diff with no hunk gives ''.
 */
export function diffSideText(diff: string, side: DiffSide): string {
  const sign = side === 'new' ? '+' : '-';
  let text = '';
  let isAfterSideLine = false;
  for (const line of hunkLines(diff) ?? []) {
    // `\ No newline at end of file` follows the line it is about.
    if (line.startsWith('\\') && isAfterSideLine) text = text.slice(0, -1);
    else if (line.startsWith(sign)) text += `${line.slice(1)}\n`;
    isAfterSideLine = line.startsWith(sign);
  }
  return text;
}
