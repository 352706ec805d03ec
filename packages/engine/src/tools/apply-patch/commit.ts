/**
 * Writes a planned patch to disk. Before touching anything it checks that every file the plan read
 * still holds the content the plan was computed from (an approval may have taken minutes). It then
 * performs the changes in patch order: adds and updates through a temporary file and a rename (the
 * old file's permissions kept, a symlink's target written through), moves as write-new plus
 * remove-old, deletes as unlink. If a write fails midway, the files it already touched are put back.
 * It decides nothing about what to write; `apply.ts` did that.
 */
import { randomUUID } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, readlink, realpath, rename, rm, rmdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PatchApplyError } from './errors.js';
import type { PlannedChange } from './apply.js';

/** Options for `commitPatch`. */
export interface CommitPatchOptions {
  /** Stops between files; the files already written are restored. */
  signal?: AbortSignal;
}

/** What a path held before the commit touched it. */
type Snapshot =
  | { kind: 'absent' }
  | { kind: 'unreadable' }
  | { kind: 'file'; bytes: Buffer; mode: number }
  | { kind: 'symlink'; target: string };

/**
 * Applies `changes` (from a successful `planPatch`) to the disk.
 * @throws PatchApplyError when a file changed since planning (nothing written) or a write fails
 *   (what was written is restored)
 */
export async function commitPatch(changes: readonly PlannedChange[], options: CommitPatchOptions = {}): Promise<void> {
  await verifyUnchanged(changes);
  const journal = new Journal();
  try {
    for (const change of changes) {
      options.signal?.throwIfAborted();
      await applyChange(change, journal);
    }
  } catch (error) {
    await journal.rollback();
    if (error instanceof PatchApplyError) throw error;
    if (options.signal?.aborted && error === options.signal.reason) throw error;
    throw new PatchApplyError(`Failed to apply patch: ${describe(error)}`, { cause: error });
  }
}

/** Fails when a file the plan read has changed on disk since. Adds overwrite by design and are not checked. */
async function verifyUnchanged(changes: readonly PlannedChange[]): Promise<void> {
  const seen = new Set<string>();
  for (const change of changes) {
    const first = !seen.has(change.path);
    seen.add(change.path);
    if (change.movePath !== null) seen.add(change.movePath);
    if (!first || change.kind === 'add' || change.oldContent === null) continue;
    const current = await readFile(change.path, 'utf8').catch(() => null);
    if (current !== change.oldContent) {
      // displayPath names a move's destination; the file that changed is its source.
      const shown = change.movePath === null ? change.displayPath : change.path;
      throw new PatchApplyError(
        `${shown} changed on disk after the patch was checked; no files were modified. Read it again and retry.`,
        { path: shown },
      );
    }
  }
}

async function applyChange(change: PlannedChange, journal: Journal): Promise<void> {
  if (change.kind === 'delete') {
    await journal.remember(change.path);
    await step(`Failed to delete file ${change.path}`, () => rm(change.path));
    return;
  }
  const content = change.newContent ?? '';
  const destination = change.movePath ?? change.path;
  const mode = await fileMode(change.movePath !== null ? change.path : destination);
  await step(`Failed to create parent directories for ${destination}`, () =>
    journal.makeParents(path.dirname(destination)),
  );
  const target = await writeTarget(destination);
  await journal.remember(target);
  await step(`Failed to write file ${destination}`, () => writeAtomically(target, content, mode));
  if (change.movePath !== null) {
    await journal.remember(change.path);
    await step(`Failed to remove original ${change.path}`, () => rm(change.path));
  }
}

async function step(what: string, action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    throw new PatchApplyError(`${what}: ${describe(error)}`, { cause: error });
  }
}

/** Where to write `p`: through an existing symlink to its target, else `p` itself. */
async function writeTarget(p: string): Promise<string> {
  try {
    return (await lstat(p)).isSymbolicLink() ? await realpath(p) : p;
  } catch {
    return p;
  }
}

async function fileMode(p: string): Promise<number | null> {
  try {
    const stats = await stat(p);
    return stats.isFile() ? stats.mode & 0o7777 : null;
  } catch {
    return null;
  }
}

async function writeAtomically(target: string, content: string, mode: number | null): Promise<void> {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    await writeFile(temp, content, 'utf8');
    if (mode !== null) await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Remembers what each touched path held, and which directories were created, to undo a failed commit. */
class Journal {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly createdDirs: Array<{ deepest: string; first: string }> = [];

  async remember(p: string): Promise<void> {
    if (this.snapshots.has(p)) return;
    this.snapshots.set(p, await snapshot(p));
  }

  async makeParents(dir: string): Promise<void> {
    const first = await mkdir(dir, { recursive: true });
    if (first !== undefined) this.createdDirs.push({ deepest: dir, first });
  }

  /** Best effort: a failure while restoring one path does not stop the others. */
  async rollback(): Promise<void> {
    for (const [p, before] of [...this.snapshots].reverse()) {
      await restore(p, before).catch(() => undefined);
    }
    for (const { deepest, first } of this.createdDirs.reverse()) {
      for (let dir = deepest; dir.length >= first.length; dir = path.dirname(dir)) {
        const removed = await rmdir(dir).then(
          () => true,
          () => false,
        );
        if (!removed || dir === first) break;
      }
    }
  }
}

async function snapshot(p: string): Promise<Snapshot> {
  try {
    const stats = await lstat(p);
    if (stats.isSymbolicLink()) return { kind: 'symlink', target: await readlink(p) };
    return { kind: 'file', bytes: await readFile(p), mode: stats.mode & 0o7777 };
  } catch (error) {
    // Only a path known to be missing may be removed on rollback; anything else is left alone.
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable' };
  }
}

async function restore(p: string, before: Snapshot): Promise<void> {
  if (before.kind === 'unreadable') return;
  if (before.kind === 'absent') {
    await rm(p, { force: true });
  } else if (before.kind === 'symlink') {
    await rm(p, { force: true });
    await symlink(before.target, p);
  } else {
    await writeFile(p, before.bytes);
    await chmod(p, before.mode);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
