/**
 * Writes a planned patch to disk in this process, with the writer every commit uses
 * (`writer.ts`: unchanged-check, temporary file + rename, permissions kept, symlinks written
 * through, moves, deletes, rollback of a failed commit), and turns its result into the errors the
 * tool reports. Used when no sandbox confines the write (danger-full-access, or a patch the user
 * approved outside the writable roots); `sandboxed-commit.ts` runs the same writer under bwrap.
 * It decides nothing about what to write; `apply.ts` did that.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { PatchApplyError } from './errors.js';
import type { PlannedChange } from './apply.js';
import { writeChanges, type WriterChange, type WriterDeps, type WriterResult } from './writer.js';

/** Options for `commitPatch`. */
export interface CommitPatchOptions {
  /** Stops between files; the files already written are restored. */
  signal?: AbortSignal;
}

const NODE_DEPS: WriterDeps = { fs, path, randomUUID };

/**
 * Applies `changes` (from a successful `planPatch`) to the disk.
 * @throws PatchApplyError when a file changed since planning (nothing written) or a write fails
 *   (what was written is restored); the signal's reason when it aborted (what was written is restored)
 */
export async function commitPatch(changes: readonly PlannedChange[], options: CommitPatchOptions = {}): Promise<void> {
  const result = await writeChanges(NODE_DEPS, toWriterChanges(changes), () => options.signal?.aborted === true);
  throwIfFailed(result, options.signal);
}

/** The part of each planned change the writer needs (no diff), in patch order. */
export function toWriterChanges(changes: readonly PlannedChange[]): WriterChange[] {
  return changes.map(({ path: p, kind, movePath, oldContent, newContent, displayPath }) => ({ path: p, kind, movePath, oldContent, newContent, displayPath }));
}

/**
 * Throws what a failed writer result means for the caller: the signal's reason for an abort,
 * else a `PatchApplyError` with the writer's message.
 */
export function throwIfFailed(result: WriterResult, signal: AbortSignal | undefined): void {
  if (result.ok) return;
  if (result.aborted) {
    signal?.throwIfAborted();
    throw new PatchApplyError('Failed to apply patch: interrupted; the files already written were restored');
  }
  throw new PatchApplyError(result.message, { path: result.path, ...(result.cause != null ? { cause: result.cause } : {}) });
}
