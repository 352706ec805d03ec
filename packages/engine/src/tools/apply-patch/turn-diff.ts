/**
 * Accumulates the diff of a whole turn. Before each patch is committed, `trackBefore` records the
 * content every touched file had before its first change in the turn (and follows moves, so a
 * renamed file diffs against its original path); `unifiedDiff` then compares those baselines with
 * what is on disk now and renders one git-style diff, files in path order. It never writes files.
 */
import { readFile } from 'node:fs/promises';
import { formatGitDiff } from './git-diff.js';
import { displayPathFor } from './apply.js';
import type { PlannedChange } from './apply.js';

interface TrackedFile {
  /** Absolute path the file had at its baseline. */
  originalPath: string;
  /** Content at the baseline; null when the file did not exist. */
  baseline: string | null;
  /** Absolute path the file has now (its move destination once moved). */
  currentPath: string;
}

/** Tracks every file the turn's patches touch and diffs them against their state at turn start. */
export class TurnDiffTracker {
  private readonly files: TrackedFile[] = [];
  /** Current absolute path → tracked file. */
  private readonly byPath = new Map<string, TrackedFile>();
  private readonly cwd: string;

  /** @param cwd the turn's cwd; diff headers are relative to it */
  constructor(cwd: string) {
    this.cwd = cwd;
  }

  /**
   * Records baselines for files `changes` will touch; call it after `planPatch` and before
   * `commitPatch`. Files already tracked in this turn keep their first baseline.
   * @param changes the planned changes of one patch, in order
   */
  async trackBefore(changes: readonly PlannedChange[]): Promise<void> {
    for (const change of changes) {
      const source = this.byPath.get(change.path) ?? this.track(change.path, change.oldContent);
      if (change.movePath === null) continue;
      const existing = this.byPath.get(change.movePath);
      const destinationBefore = existing ? null : await readText(change.movePath);
      if (existing || destinationBefore !== null) {
        // The move overwrites a file that has its own history: diff both paths separately.
        if (!existing) this.track(change.movePath, destinationBefore);
        continue;
      }
      this.byPath.delete(change.path);
      source.currentPath = change.movePath;
      this.byPath.set(change.movePath, source);
    }
  }

  /** The git-style diff from each tracked file's baseline to its current content on disk ('' if none). */
  async unifiedDiff(): Promise<string> {
    const parts: Array<{ key: string; diff: string }> = [];
    for (const file of this.files) {
      const current = this.byPath.get(file.currentPath) === file ? await readText(file.currentPath) : null;
      const diff = formatGitDiff({
        oldPath: file.baseline === null ? null : this.show(file.originalPath),
        newPath: current === null ? null : this.show(file.currentPath),
        oldContent: file.baseline,
        newContent: current,
      });
      if (diff !== '') parts.push({ key: this.show(current === null ? file.originalPath : file.currentPath), diff });
    }
    parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return parts.map((part) => part.diff).join('');
  }

  private track(absPath: string, baseline: string | null): TrackedFile {
    const file: TrackedFile = { originalPath: absPath, baseline, currentPath: absPath };
    this.files.push(file);
    this.byPath.set(absPath, file);
    return file;
  }

  private show(absPath: string): string {
    return displayPathFor(absPath, this.cwd);
  }
}

async function readText(absPath: string): Promise<string | null> {
  try {
    return await readFile(absPath, 'utf8');
  } catch {
    return null;
  }
}
