/**
 * Project trust (`[projects."<path>"] trust_level = "trusted" | "untrusted"`), looked up the way
 * the reference does: the cwd itself, else the root of the git repository around it (a worktree
 * inherits the trust of its main repository). Reads only `.git` markers on disk, synchronously,
 * and never writes; front doors record trust decisions. A `.git` file is workspace content (a
 * sandboxed command may write one in any folder it can write), so a worktree inherits trust only
 * when the main repository links back to it, as git itself checks: a planted `gitdir:` line
 * naming a trusted repository's `.git/worktrees/<name>` gains nothing, and a planted `.git`
 * below an untrusted folder leaves it untrusted.
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
  const decided = root === null ? undefined : byPath.get(root);
  if (decided !== undefined) return decided;
  // An untrusted folder stays untrusted below: a `.git` a command plants in a subfolder makes that
  // subfolder a repository root of its own, which must not lift the decision.
  return nearestDecisionAbove(byPath, cwd) === 'untrusted' ? 'untrusted' : null;
}

/** The decision recorded for the nearest ancestor of `cwd` (not `cwd` itself) that has one. */
function nearestDecisionAbove(byPath: ReadonlyMap<string, ProjectTrust>, cwd: string): ProjectTrust | undefined {
  for (let dir = path.resolve(cwd); path.dirname(dir) !== dir; ) {
    dir = path.dirname(dir);
    const decision = byPath.get(dir);
    if (decision !== undefined) return decision;
  }
  return undefined;
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
  return at > 0 && linksBackTo(gitdir, gitFile) ? gitdir.slice(0, at) : null;
}

/** Most bytes read of a worktree's back link. */
const MAX_LINK_BYTES = 4096;

/**
 * True when `<gitdir>/gitdir` (written by `git worktree add` in the main repository) names
 * `gitFile`. Opened without following a symlink and without blocking (a FIFO planted there
 * cannot hang the lookup), and read only when it is a regular file.
 */
function linksBackTo(gitdir: string, gitFile: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path.join(gitdir, 'gitdir'), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) return false;
    const buffer = Buffer.alloc(MAX_LINK_BYTES);
    const length = fs.readSync(fd, buffer, 0, MAX_LINK_BYTES, 0);
    const target = buffer.subarray(0, length).toString('utf8').trim();
    // git writes the real path; the cwd may have been reached through a symlink.
    return target !== '' && fs.realpathSync(path.resolve(gitdir, target)) === fs.realpathSync(gitFile);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
