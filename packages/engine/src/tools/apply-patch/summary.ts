/**
 * Builds the text the model reads after a patch succeeds, in the reference's layout:
 * `Success. Updated the following files:` then one `A`/`M`/`D` line per file (added files first,
 * then modified, then deleted). Paths are relative to the cwd when inside it. Pure formatting.
 */
import { displayPathFor } from './display-path.js';
import type { PlannedChange } from './apply.js';

const LETTER: Record<PlannedChange['kind'], 'A' | 'M' | 'D'> = { add: 'A', update: 'M', delete: 'D' };

/**
 * Returns the success text for a committed patch; each line ends with `\n`.
 * @param changes the changes `planPatch` returned and `commitPatch` wrote
 * @param cwd when given, paths are shown relative to it instead of the cwd `planPatch` used
 */
export function summarizeChanges(changes: readonly PlannedChange[], cwd?: string): string {
  const lines: string[] = [];
  for (const kind of ['add', 'update', 'delete'] as const) {
    for (const change of changes) {
      if (change.kind !== kind) continue;
      const shown = cwd === undefined ? change.displayPath : displayPathFor(change.movePath ?? change.path, cwd);
      const line = `${LETTER[kind]} ${shown}`;
      // A file touched by two sections of one patch is listed once.
      if (!lines.includes(line)) lines.push(line);
    }
  }
  return `Success. Updated the following files:\n${lines.map((line) => `${line}\n`).join('')}`;
}
