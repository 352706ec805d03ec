/**
 * Project trust (`[projects."<path>"] trust_level = "trusted" | "untrusted"`), looked up the way
 * the reference does: the cwd itself, else the root of the git repository around it (a worktree
 * inherits the trust of its main repository). Reads only `.git` markers on disk, synchronously,
 * and never writes; front doors record trust decisions.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A trust decision for a directory. */
export type ProjectTrust = 'trusted' | 'untrusted';

/** The trust decision that applies to `cwd`, or `null` when none was recorded. */
export function findProjectTrust(projects: Record<string, { trust_level?: ProjectTrust | undefined }>, cwd: string): ProjectTrust | null {
  const byPath = new Map<string, ProjectTrust>();
  for (const [key, value] of Object.entries(projects)) {
    if (value.trust_level !== undefined) byPath.set(path.resolve(key), value.trust_level);
  }
  if (byPath.size === 0) return null;
  const exact = byPath.get(path.resolve(cwd));
  if (exact !== undefined) return exact;
  const root = gitRootForTrust(cwd);
  return root === null ? null : (byPath.get(root) ?? null);
}

/**
 * The directory whose trust covers `cwd` inside a git checkout: the nearest ancestor with a
 * `.git`, or, for a worktree (`.git` file pointing into `<main>/.git/worktrees/…`), the main
 * repository's directory. `null` outside any repository.
 */
export function gitRootForTrust(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const marker = path.join(dir, '.git');
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(marker);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) return dir;
    if (stat?.isFile()) return mainRepoOfWorktree(marker) ?? dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function mainRepoOfWorktree(gitFile: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(gitFile, 'utf8');
  } catch {
    return null;
  }
  const match = /^gitdir:\s*(.+)$/m.exec(text);
  if (!match) return null;
  const gitdir = path.resolve(path.dirname(gitFile), (match[1] as string).trim());
  const marker = `${path.sep}.git${path.sep}worktrees${path.sep}`;
  const at = gitdir.lastIndexOf(marker);
  return at > 0 ? gitdir.slice(0, at) : null;
}
