/** How apply_patch shows a path to the model and in items: relative to the cwd when inside it. */
import path from 'node:path';

/**
 * Shows `absPath` relative to `cwd` when it lies inside it, else absolute.
 * @param absPath an absolute path
 * @param cwd the workspace directory
 */
export function displayPathFor(absPath: string, cwd: string): string {
  const relative = path.relative(cwd, absPath);
  const leaves = relative === '..' || relative.startsWith(`..${path.sep}`);
  if (relative === '' || leaves || path.isAbsolute(relative)) return absPath;
  return relative;
}
