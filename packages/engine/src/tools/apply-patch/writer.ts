/**
 * The one implementation of writing a planned patch to disk. It runs in two places: in-process
 * (`commit.ts`), and as the program of a child process that `sandboxed-commit.ts` starts inside the
 * same bubblewrap sandbox as commands, where the kernel resolves every path at write time against a
 * filesystem that is read-only outside the writable roots. The child's program is the source text
 * of this module's functions (`WRITER_CHILD_PROGRAM`), so their bodies refer to nothing but their
 * parameters, globals and each other (every one listed in `WRITER_FUNCTIONS`): the Node built-ins
 * come in as `deps`, and there are no imports, classes or module-level constants in use. The
 * writer returns a result instead of throwing engine errors, which it cannot import; the callers
 * turn a failure into `PatchApplyError`. It decides nothing about what to write; `apply.ts` did.
 */
import type NodeCrypto from 'node:crypto';
import type * as NodeFs from 'node:fs/promises';
import type NodePath from 'node:path';

/** The Node built-ins the writer uses, passed in so that its source stands alone. */
export interface WriterDeps {
  fs: typeof NodeFs;
  path: typeof NodePath;
  randomUUID: typeof NodeCrypto.randomUUID;
}

/** One planned change as the writer needs it (the serializable part of a `PlannedChange`). */
export interface WriterChange {
  /** Absolute path of the file the section names. */
  path: string;
  kind: 'add' | 'delete' | 'update';
  /** Absolute destination of a move, or null. */
  movePath: string | null;
  /** Content the plan was computed from; checked again before anything is written. Null for an add. */
  oldContent: string | null;
  /** Content to write; null for a delete. */
  newContent: string | null;
  /** The resulting file as the model knows it (relative to the cwd when inside it). */
  displayPath: string;
}

/** What the writer did: everything, nothing (aborted, or failed and rolled back). */
export type WriterResult =
  | { ok: true }
  | { ok: false; aborted: true }
  | {
      ok: false;
      aborted: false;
      /** The model-facing message (the text of the `PatchApplyError`). */
      message: string;
      /** The file the failure concerns, when the message names one for the model. */
      path: string | null;
      /** The errno code of the underlying failure, when there is one (e.g. `EROFS`). */
      code: string | null;
      /** The underlying error; only in-process (it does not survive the child's JSON). */
      cause?: unknown;
    };

/** What the writer's steps throw: the model-facing failure (never an engine error class, see above). */
interface StepFailure {
  failure: { message: string; path: string | null; cause: unknown };
}

/** What a touched path held before, to put it back. */
type Snapshot = { kind: 'absent' } | { kind: 'unreadable' } | { kind: 'file'; bytes: Buffer; mode: number } | { kind: 'symlink'; target: string };

/** The undo log of one commit. */
interface Journal {
  remember(p: string): Promise<void>;
  makeParents(dir: string): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Applies `changes` in order. First every file the plan read must still hold the content the
 * plan was computed from (an approval may have taken minutes); then adds and updates go through
 * a temporary file and a rename (the old file's permission bits kept, an existing symlink's
 * target written through), moves are write-new plus remove-old, deletes are unlinks. If a step
 * fails, or `isAborted()` turns true between files, what was already touched is put back.
 */
export async function writeChanges(deps: WriterDeps, changes: readonly WriterChange[], isAborted: () => boolean): Promise<WriterResult> {
  const failed = (error: unknown): WriterResult => {
    if (typeof error === 'object' && error !== null && 'failure' in error) {
      const { failure } = error as StepFailure;
      return { ok: false, aborted: false, message: failure.message, path: failure.path, code: errnoCode(failure.cause), cause: failure.cause };
    }
    return { ok: false, aborted: false, message: `Failed to apply patch: ${errnoText(error)}`, path: null, code: errnoCode(error), cause: error };
  };
  try {
    await verifyUnchanged(deps, changes);
  } catch (error) {
    return failed(error);
  }
  const journal = createJournal(deps);
  const ABORTED = { aborted: true };
  try {
    for (const change of changes) {
      if (isAborted()) throw ABORTED;
      await applyChange(deps, journal, change);
    }
    return { ok: true };
  } catch (error) {
    await journal.rollback();
    return error === ABORTED ? { ok: false, aborted: true } : failed(error);
  }
}

/** Fails when a file the plan read has changed on disk since. Adds overwrite by design and are not checked. */
async function verifyUnchanged({ fs }: WriterDeps, changes: readonly WriterChange[]): Promise<void> {
  const seen = new Set<string>();
  for (const change of changes) {
    // Later sections of a file see the patch's own earlier writes, not the disk.
    const first = !seen.has(change.path);
    seen.add(change.path);
    if (change.movePath !== null) seen.add(change.movePath);
    if (!first || change.kind === 'add' || change.oldContent === null) continue;
    const current = await fs.readFile(change.path, 'utf8').catch(() => null);
    if (current !== change.oldContent) {
      // displayPath names a move's destination; the file that changed is its source.
      const shown = change.movePath === null ? change.displayPath : change.path;
      const failure: StepFailure = {
        failure: { message: `${shown} changed on disk after the patch was checked; no files were modified. Read it again and retry.`, path: shown, cause: null },
      };
      throw failure;
    }
  }
}

async function applyChange(deps: WriterDeps, journal: Journal, change: WriterChange): Promise<void> {
  const { fs, path } = deps;
  if (change.kind === 'delete') {
    await journal.remember(change.path);
    await step(`Failed to delete file ${change.path}`, () => fs.rm(change.path));
    return;
  }
  const destination = change.movePath ?? change.path;
  const mode = await fileMode(deps, change.movePath !== null ? change.path : destination);
  await step(`Failed to create parent directories for ${destination}`, () => journal.makeParents(path.dirname(destination)));
  const target = await writeTarget(deps, destination);
  await journal.remember(target);
  await step(`Failed to write file ${destination}`, () => writeAtomically(deps, target, change.newContent ?? '', mode));
  if (change.movePath !== null) {
    await journal.remember(change.path);
    await step(`Failed to remove original ${change.path}`, () => fs.rm(change.path));
  }
}

/** Runs one step; its failure becomes "<what>: <errno text>" for the model. */
async function step(what: string, action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    const failure: StepFailure = { failure: { message: `${what}: ${errnoText(error)}`, path: null, cause: error } };
    throw failure;
  }
}

async function fileMode({ fs }: WriterDeps, p: string): Promise<number | null> {
  try {
    const stats = await fs.stat(p);
    return stats.isFile() ? stats.mode & 0o7777 : null;
  } catch {
    return null;
  }
}

/**
 * Where to write `p`: through an existing symlink to its target, else `p` itself. Under the
 * sandbox a target outside the writable roots is refused by the kernel when the temporary file
 * is created there.
 */
async function writeTarget({ fs }: WriterDeps, p: string): Promise<string> {
  try {
    return (await fs.lstat(p)).isSymbolicLink() ? await fs.realpath(p) : p;
  } catch {
    return p;
  }
}

async function writeAtomically({ fs, path, randomUUID }: WriterDeps, target: string, content: string, mode: number | null): Promise<void> {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    await fs.writeFile(temp, content, 'utf8');
    if (mode !== null) await fs.chmod(temp, mode);
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Remembers what each touched path held, and which directories were created, to undo a failed commit. */
function createJournal({ fs, path }: WriterDeps): Journal {
  const snapshots = new Map<string, Snapshot>();
  const createdDirs: Array<{ deepest: string; first: string }> = [];
  const snapshot = async (p: string): Promise<Snapshot> => {
    try {
      const stats = await fs.lstat(p);
      if (stats.isSymbolicLink()) return { kind: 'symlink', target: await fs.readlink(p) };
      return { kind: 'file', bytes: await fs.readFile(p), mode: stats.mode & 0o7777 };
    } catch (error) {
      // Only a path known to be missing may be removed on rollback; anything else is left alone.
      return errnoCode(error) === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable' };
    }
  };
  const restore = async (p: string, before: Snapshot): Promise<void> => {
    if (before.kind === 'unreadable') return;
    if (before.kind === 'absent') {
      await fs.rm(p, { force: true });
    } else if (before.kind === 'symlink') {
      await fs.rm(p, { force: true });
      await fs.symlink(before.target, p);
    } else {
      await fs.writeFile(p, before.bytes);
      await fs.chmod(p, before.mode);
    }
  };
  return {
    async remember(p) {
      if (!snapshots.has(p)) snapshots.set(p, await snapshot(p));
    },
    async makeParents(dir) {
      const first = await fs.mkdir(dir, { recursive: true });
      if (first !== undefined) createdDirs.push({ deepest: dir, first });
    },
    // Best effort: a failure while restoring one path does not stop the others.
    async rollback() {
      for (const [p, before] of [...snapshots].reverse()) await restore(p, before).catch(() => undefined);
      for (const { deepest, first } of createdDirs.reverse()) {
        for (let dir = deepest; dir.length >= first.length; dir = path.dirname(dir)) {
          const removed = await fs.rmdir(dir).then(
            () => true,
            () => false,
          );
          if (!removed || dir === first) break;
        }
      }
    },
  };
}

function errnoCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** An errno as strerror writes it (as the reference's messages read), not Node's "EROFS: …, open '<temp file>'". */
function errnoText(error: unknown): string {
  const STRERROR: Record<string, string> = {
    EACCES: 'Permission denied',
    EDQUOT: 'Disk quota exceeded',
    EEXIST: 'File exists',
    EISDIR: 'Is a directory',
    ELOOP: 'Too many levels of symbolic links',
    ENAMETOOLONG: 'File name too long',
    ENOENT: 'No such file or directory',
    ENOSPC: 'No space left on device',
    ENOTDIR: 'Not a directory',
    ENOTEMPTY: 'Directory not empty',
    EPERM: 'Operation not permitted',
    EROFS: 'Read-only file system',
    EXDEV: 'Invalid cross-device link',
  };
  const code = errnoCode(error);
  if (code !== null && STRERROR[code] !== undefined) return STRERROR[code];
  return error instanceof Error ? error.message : String(error);
}

/**
 * The child's main: reads the changes (one JSON line `{"changes": [...]}`) from stdin, writes
 * them with `write`, and prints the result as one JSON line on stdout. Stdin reaching its end
 * before the result is the parent's abort: the writer stops between files and rolls back.
 */
export async function runWriterChild(write: typeof writeChanges, deps: WriterDeps, proc: NodeJS.Process): Promise<void> {
  let isAborted = false;
  let input = '';
  proc.stdin.setEncoding('utf8');
  const line = await new Promise<string | null>((resolve) => {
    proc.stdin.on('data', (chunk: string) => {
      input += chunk;
      const end = input.indexOf('\n');
      if (end >= 0) resolve(input.slice(0, end));
    });
    proc.stdin.on('end', () => {
      isAborted = true;
      resolve(null);
    });
  });
  let result: WriterResult;
  if (line === null) {
    result = { ok: false, aborted: true };
  } else {
    const { changes } = JSON.parse(line) as { changes: WriterChange[] };
    input = '';
    result = await write(deps, changes, () => isAborted);
  }
  const { cause: _cause, ...serializable } = result as WriterResult & { cause?: unknown };
  proc.stdout.write(`${JSON.stringify(serializable)}\n`);
  proc.stdin.destroy();
}

/** Every function of the writer, in the order the child's program declares them. */
const WRITER_FUNCTIONS: ReadonlyArray<(...args: never[]) => unknown> = [
  writeChanges,
  verifyUnchanged,
  applyChange,
  step,
  fileMode,
  writeTarget,
  writeAtomically,
  createJournal,
  errnoCode,
  errnoText,
  runWriterChild,
];

/**
 * The sandboxed writer's whole program for `node -e` (CommonJS, so `require` is at hand): the
 * functions above, declared by their source text, and the built-ins they are given.
 */
export const WRITER_CHILD_PROGRAM = [
  `'use strict';`,
  ...WRITER_FUNCTIONS.map(String),
  `const deps = { fs: require('node:fs/promises'), path: require('node:path'), randomUUID: require('node:crypto').randomUUID };`,
  `${runWriterChild.name}(${writeChanges.name}, deps, process).catch((error) => {`,
  `  process.stderr.write(String(error && error.stack || error) + '\\n');`,
  `  process.exitCode = 70;`,
  `});`,
].join('\n');
