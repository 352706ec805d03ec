/**
 * The file-search walk: lists every file and directory under the search roots the way the
 * reference's walker does (ripgrep's `ignore` crate with hidden entries shown, symlinks followed
 * and git's ignore rules only inside a repository). `.ignore` files apply everywhere; `.gitignore`
 * files and `.git/info/exclude` apply only under a directory holding `.git`, and not above it;
 * the ignore files of the roots' parent directories count too; nearer files win, `.ignore` over
 * `.gitignore` over `exclude`. Unlike the reference, the `.git` directory itself is never listed
 * (its objects and hooks drowned real matches). Symlink loops and unreadable directories are
 * skipped. The walk stops when its signal aborts or after `limit` entries. It only reads.
 */
import { constants } from 'node:fs';
import { open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { compileIgnore, matchIgnore, type IgnoreRules } from './gitignore.js';

/** A search root: as the client wrote it, and resolved. */
export interface SearchRoot {
  /** The client's string, echoed in results. */
  readonly label: string;
  /** Absolute, normalized path of the directory. */
  readonly path: string;
}

/** One listed file or directory. */
export interface WalkEntry {
  /** Index of its root in the walked roots (the deepest root holding it). */
  readonly root: number;
  /** Path relative to that root, `/`-separated. */
  readonly path: string;
  /** A directory (or a symlink to one). */
  readonly isDir: boolean;
}

/** The ignore state of one directory of the walk (or a parent of a root). */
interface DirNode {
  readonly dir: string;
  readonly parent: DirNode | null;
  /** The directory's real path, to spot symlink loops. */
  readonly real: string;
  readonly hasGit: boolean;
  readonly ignore: IgnoreRules | null;
  readonly gitignore: IgnoreRules | null;
  readonly exclude: IgnoreRules | null;
}

const GIT_DIR = '.git';

/** Most bytes of one ignore file read; a longer one is skipped. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * The compiled rules of an ignore file; null when it cannot be read. The workspace decides what
 * sits at these names (a command may leave a FIFO as `.gitignore` or `.git/info/exclude`), so
 * the file is opened without blocking and read only when it is a regular file of bounded size:
 * a FIFO must not hold one of the process's file-system threads forever.
 */
async function readRules(path: string): Promise<IgnoreRules | null> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await file.stat();
    if (!info.isFile() || info.size > MAX_IGNORE_FILE_BYTES) return null;
    return compileIgnore(await file.readFile('utf8'));
  } catch {
    return null;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/** Builds a node from what the directory holds (`names`: its entry names, or null to probe). */
async function loadNode(dir: string, real: string, parent: DirNode | null, names: ReadonlySet<string> | null): Promise<DirNode> {
  const has = async (name: string): Promise<boolean> => (names ? names.has(name) : (await stat(join(dir, name)).catch(() => null)) !== null);
  const hasGit = await has(GIT_DIR);
  const hasIgnore = await has('.ignore');
  const hasGitignore = await has('.gitignore');
  if (!hasGit && !hasIgnore && !hasGitignore) return { dir, parent, real, hasGit, ignore: null, gitignore: null, exclude: null };
  const [ignore, gitignore, exclude] = await Promise.all([
    hasIgnore ? readRules(join(dir, '.ignore')) : null,
    hasGitignore ? readRules(join(dir, '.gitignore')) : null,
    hasGit ? readRules(join(dir, GIT_DIR, 'info', 'exclude')) : null,
  ]);
  return { dir, parent, real, hasGit, ignore, gitignore, exclude };
}

/** The nodes of a root's parent directories, outermost first, chained. */
async function loadParents(rootPath: string): Promise<DirNode | null> {
  const dirs: string[] = [];
  for (let dir = dirname(rootPath); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  if (rootPath === dirname(rootPath)) return null;
  let node: DirNode | null = null;
  for (const dir of dirs) node = await loadNode(dir, dir, node, null);
  return node;
}

/** `path` relative to its ancestor `dir`, `/`-separated (both are absolute and normalized). */
function relativeTo(dir: string, path: string): string {
  const rel = path.slice(dir.endsWith(sep) ? dir.length : dir.length + 1);
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/**
 * The nearest verdict on `path` among the rules `pick` gives for `node` and its parents;
 * `gitOnly` stops at the repository root.
 */
function decide(node: DirNode | null, path: string, isDir: boolean, pick: (n: DirNode) => IgnoreRules | null, gitOnly: boolean): boolean | undefined {
  for (let n = node; n !== null; n = n.parent) {
    const rules = pick(n);
    if (rules !== null) {
      const verdict = matchIgnore(rules, relativeTo(n.dir, path), isDir);
      if (verdict !== undefined) return verdict;
    }
    // Git reads no ignore file above the repository root.
    if (gitOnly && n.hasGit) return undefined;
  }
  return undefined;
}

/** True when the rules in force at `node` ignore `path` (see the module comment for the order). */
function isIgnored(node: DirNode | null, path: string, isDir: boolean): boolean {
  const ignore = decide(node, path, isDir, (n) => n.ignore, false);
  if (ignore !== undefined) return ignore;
  let inRepo = false;
  for (let n = node; n !== null && !inRepo; n = n.parent) inRepo = n.hasGit;
  if (!inRepo) return false;
  return decide(node, path, isDir, (n) => n.gitignore, true) ?? decide(node, path, isDir, (n) => (n.hasGit ? n.exclude : null), true) ?? false;
}

/** Resolves the client's roots against `cwd`, keeping the existing directories. */
export async function resolveRoots(roots: readonly string[], cwd: string): Promise<SearchRoot[]> {
  const resolved: SearchRoot[] = [];
  for (const label of roots) {
    const path = resolve(cwd, label);
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory()) resolved.push({ label, path });
  }
  return resolved;
}

/** Options of {@link walkRoots}. */
export interface WalkOptions {
  /** Receives each directory's listed entries. */
  onEntries(entries: WalkEntry[]): void;
  /** Stops the walk. */
  signal: AbortSignal;
  /** The walk stops after this many entries. */
  limit: number;
}

/** The deepest root holding `path`. */
function ownerOf(roots: readonly SearchRoot[], path: string): number {
  let owner = -1;
  roots.forEach((root, i) => {
    const prefix = root.path.endsWith('/') ? root.path : `${root.path}/`;
    if ((path === root.path || path.startsWith(prefix)) && (owner < 0 || root.path.length > (roots[owner] as SearchRoot).path.length)) owner = i;
  });
  return owner;
}

/** What a directory entry is once symlinks are followed; null for a dangling link. */
async function linkKind(path: string): Promise<'dir' | 'file' | null> {
  const target = await stat(path).catch(() => null);
  if (target === null) return null;
  return target.isDirectory() ? 'dir' : 'file';
}

/** True when descending into `real` from `parent` would loop. */
function isLoop(parent: DirNode, real: string): boolean {
  return parent.real === real || parent.real.startsWith(real.endsWith('/') ? real : `${real}/`);
}

/** A directory waiting to be read. */
interface Pending {
  readonly dir: string;
  readonly real: string;
  readonly parent: DirNode | null;
}

/** Directories read at once: the file system answers through a thread pool, so a few overlap. */
const CONCURRENT_READS = 8;

/** One walk over several roots (see the module comment). */
class Walk {
  readonly #seen: Set<string> | null;
  #count = 0;
  /** The first unexpected failure of a visit; the walk stops and rethrows it. */
  #failure: { error: unknown } | null = null;

  constructor(
    private readonly roots: readonly SearchRoot[],
    private readonly options: WalkOptions,
  ) {
    this.#seen = roots.length > 1 ? new Set() : null;
  }

  get isOver(): boolean {
    return this.options.signal.aborted || this.#count >= this.options.limit || this.#failure !== null;
  }

  /** Walks one root, reading up to `CONCURRENT_READS` directories at a time. */
  async walk(root: SearchRoot): Promise<void> {
    const real = await realpath(root.path).catch(() => null);
    if (real === null || this.isOver) return;
    const pending: Pending[] = [{ dir: root.path, real, parent: await loadParents(root.path) }];
    let active = 0;
    await new Promise<void>((resolve) => {
      const next = (): void => {
        while (active < CONCURRENT_READS && pending.length > 0 && !this.isOver) {
          active += 1;
          void this.#visit(pending.pop() as Pending, pending)
            .catch((error: unknown) => {
              this.#failure ??= { error };
            })
            .finally(() => {
              active -= 1;
              next();
            });
        }
        if (active === 0) resolve();
      };
      next();
    });
    if (this.#failure !== null) throw this.#failure.error;
  }

  /** Reads one directory, lists its entries and queues its subdirectories. */
  async #visit({ dir, real, parent }: Pending, pending: Pending[]): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
    if (entries === null || this.isOver) return;
    const node = await loadNode(dir, real, parent, new Set(entries.map((e) => e.name)));
    const batch: WalkEntry[] = [];
    for (const entry of entries) {
      if (entry.name === GIT_DIR) continue;
      const path = join(dir, entry.name);
      const isLink = entry.isSymbolicLink();
      const kind = isLink ? await linkKind(path) : entry.isDirectory() ? 'dir' : 'file';
      if (kind === null || isIgnored(node, path, kind === 'dir')) continue;
      // With nested roots a path is reached twice; the first visit lists and descends it.
      if (this.#seen?.has(path) === true) continue;
      this.#seen?.add(path);
      if (kind === 'dir') {
        const childReal = isLink ? await realpath(path).catch(() => null) : join(real, entry.name);
        if (childReal === null || isLoop(node, childReal)) continue;
        pending.push({ dir: path, real: childReal, parent: node });
      }
      const owner = ownerOf(this.roots, path);
      const relativePath = owner < 0 ? '' : relativeTo((this.roots[owner] as SearchRoot).path, path);
      // A nested root is not a match of the root holding it; its content is.
      if (relativePath === '') continue;
      batch.push({ root: owner, path: relativePath, isDir: kind === 'dir' });
      if (++this.#count >= this.options.limit) break;
    }
    if (batch.length > 0 && !this.options.signal.aborted) this.options.onEntries(batch);
  }
}

/** Walks every root (see the module comment); entries come in no particular order. */
export async function walkRoots(roots: readonly SearchRoot[], options: WalkOptions): Promise<void> {
  const walk = new Walk(roots, options);
  for (const root of roots) {
    if (walk.isOver) return;
    await walk.walk(root);
  }
}
