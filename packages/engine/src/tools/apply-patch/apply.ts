/**
 * Turns a parsed patch into the exact set of file changes it would make, without writing anything.
 * It resolves paths against the cwd, reads current contents (through an overlay, so a later section
 * sees what an earlier section of the same patch did), applies every chunk in memory and computes
 * each file's new content and git-style diff. Any failure throws `PatchApplyError` before a single
 * byte is written. This is the entry point of the apply step: it also re-exports the writer
 * (`commit.ts`) and the success text (`summary.ts`), so plan → commit → summarise come from one place.
 */
import { readFile as fsReadFile } from 'node:fs/promises';
import path from 'node:path';
import { applyChunks } from './apply-chunks.js';
import { displayPathFor } from './display-path.js';
import { PatchApplyError } from './errors.js';
import { formatGitDiff } from './git-diff.js';
import type { Patch, PatchHunk } from './parser.js';

export { commitPatch } from './commit.js';
export type { CommitPatchOptions } from './commit.js';
export { displayPathFor } from './display-path.js';
export { summarizeChanges } from './summary.js';

/** One file operation the patch performs, fully computed. */
export interface PlannedChange {
  /** Absolute path of the file the section names. */
  path: string;
  kind: 'add' | 'delete' | 'update';
  /** Absolute destination of an `*** Move to:`, or null. */
  movePath: string | null;
  /** Content before the change; null when the file does not exist yet (an add). */
  oldContent: string | null;
  /** Content after the change; null for a delete. */
  newContent: string | null;
  /** Git-style unified diff of this change, headers relative to the cwd. */
  diff: string;
  /** The resulting file (`movePath ?? path`) as the summary shows it: relative to the cwd when inside it. */
  displayPath: string;
}

/** Reads a file as text; must reject with an error whose `code` is 'ENOENT' when the file is missing. */
export type ReadTextFile = (absPath: string) => Promise<string>;

/** Options for `planPatch`. */
export interface PlanPatchOptions {
  /** Absolute directory relative paths in the patch are resolved against. */
  cwd: string;
  /** Replaces the default reader (strict UTF-8 from the local disk), e.g. for a remote workspace. */
  readFile?: ReadTextFile;
  /** Aborts planning between files. */
  signal?: AbortSignal;
}

/**
 * Computes every change `patch` makes, in patch order.
 * @throws PatchApplyError naming the file (and chunk) that does not fit; nothing is written
 */
export async function planPatch(patch: Patch, options: PlanPatchOptions): Promise<PlannedChange[]> {
  if (patch.hunks.length === 0) throw new PatchApplyError('No files were modified.');
  const files = new Overlay(options.readFile ?? readUtf8File);
  const changes: PlannedChange[] = [];
  for (const hunk of patch.hunks) {
    options.signal?.throwIfAborted();
    changes.push(await planHunk(hunk, options.cwd, files));
  }
  return changes;
}


async function planHunk(hunk: PatchHunk, cwd: string, files: Overlay): Promise<PlannedChange> {
  const absPath = path.resolve(cwd, hunk.path);
  const shown = displayPathFor(absPath, cwd);
  if (hunk.type === 'add') {
    const oldContent = await files.readOptional(absPath, shown, 'Failed to write file');
    files.set(absPath, hunk.contents);
    return change(absPath, 'add', null, oldContent, hunk.contents, cwd);
  }
  if (hunk.type === 'delete') {
    const oldContent = await files.readRequired(absPath, shown, 'Failed to delete file');
    files.set(absPath, null);
    return change(absPath, 'delete', null, oldContent, null, cwd);
  }
  const oldContent = await files.readRequired(absPath, shown, 'Failed to read file to update');
  const newContent = applyChunks(oldContent, hunk.chunks, shown);
  let movePath = hunk.movePath === null ? null : path.resolve(cwd, hunk.movePath);
  if (movePath === absPath) movePath = null;
  if (movePath !== null) {
    // Moving onto an existing file overwrites it (reference behaviour); onto a directory cannot work.
    await files.readOptional(movePath, displayPathFor(movePath, cwd), 'Failed to write file');
    files.set(absPath, null);
  }
  files.set(movePath ?? absPath, newContent);
  return change(absPath, 'update', movePath, oldContent, newContent, cwd);
}

function change(
  absPath: string,
  kind: PlannedChange['kind'],
  movePath: string | null,
  oldContent: string | null,
  newContent: string | null,
  cwd: string,
): PlannedChange {
  const oldPath = displayPathFor(absPath, cwd);
  const newPath = displayPathFor(movePath ?? absPath, cwd);
  const diff = formatGitDiff({
    oldPath: oldContent === null ? null : oldPath,
    newPath: newContent === null ? null : newPath,
    oldContent,
    newContent,
  });
  return { path: absPath, kind, movePath, oldContent, newContent, diff, displayPath: newPath };
}

/** The files as the patch has left them so far: writes of earlier sections over the real reader. */
class Overlay {
  private readonly pending = new Map<string, string | null>();

  constructor(private readonly read: ReadTextFile) {}

  set(absPath: string, content: string | null): void {
    this.pending.set(absPath, content);
  }

  /** Current content, or null when the file does not exist. */
  async readOptional(absPath: string, shown: string, action: string): Promise<string | null> {
    if (this.pending.has(absPath)) return this.pending.get(absPath) ?? null;
    try {
      return await this.read(absPath);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw readFailure(error, shown, action);
    }
  }

  /** Current content; a missing file is an error. */
  async readRequired(absPath: string, shown: string, action: string): Promise<string> {
    const content = await this.readOptional(absPath, shown, action);
    if (content === null) {
      throw new PatchApplyError(`${action} ${shown}: No such file or directory`, { path: shown });
    }
    return content;
  }
}

function readFailure(error: unknown, shown: string, action: string): PatchApplyError {
  const code = errorCode(error);
  const reason =
    code === 'EISDIR'
      ? 'Is a directory'
      : code === 'EACCES'
        ? 'Permission denied'
        : error instanceof Error
          ? error.message
          : String(error);
  return new PatchApplyError(`${action} ${shown}: ${reason}`, { path: shown, cause: error });
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The default reader: the local disk, strict UTF-8 (a byte-order mark is kept as part of the text). */
async function readUtf8File(absPath: string): Promise<string> {
  const bytes = await fsReadFile(absPath);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw Object.assign(new Error('File is not valid UTF-8 text', { cause: error }), { code: 'EILSEQ' });
  }
}
