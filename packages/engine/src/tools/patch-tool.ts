/**
 * The `apply_patch` tool: a freeform (custom) tool on the Responses wire, a function taking
 * `{ input }` on the chat wire. It parses and verifies the whole patch before anything is
 * written, checks every path against the sandbox's writable roots, asks when the policy says so,
 * then writes, emits a fileChange item and the turn's aggregate diff. A patch inside the writable
 * roots is written from inside the sandbox (`sandboxed-commit.ts`), so what the kernel resolves at
 * write time is confined too, not only what the check saw; a patch the user approved outside the
 * writable roots, and any patch under danger-full-access, is written in-process.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { FileUpdate, ThreadItem } from '@deputy/protocol';
import { decidePatch } from '../approvals/policy.js';
import { isWritablePath, resolveForWrite } from '../exec/sandbox.js';
import type { ToolSpec } from '../model/types.js';
import { PatchApplyError, PatchParseError } from './apply-patch/errors.js';
import { APPLY_PATCH_LARK_GRAMMAR } from './apply-patch/grammar.js';
import { commitPatch, displayPathFor, planPatch, summarizeChanges, type PlannedChange } from './apply-patch/apply.js';
import { parsePatch } from './apply-patch/parser.js';
import { commitPatchSandboxed } from './apply-patch/sandboxed-commit.js';
import { TurnDiffTracker } from './apply-patch/turn-diff.js';
import { abortTurn, askApproval, refusalText } from './shell/approval-flow.js';
import type { ShellServices } from './shell/services.js';
import { type ToolContext, type ToolDefinition, type ToolOutput } from './types.js';

const DESCRIPTION = `Edits files with a patch. The input is the whole patch text:
*** Begin Patch
*** Add File: <path>        followed by the new file's lines, each starting with +
*** Delete File: <path>
*** Update File: <path>     optionally followed by *** Move to: <new path>, then hunks:
@@ <optional line naming the class or function>
 context line (starts with a space)
-removed line
+added line
*** End Patch
Give about three lines of context around each change; paths are relative to the working directory.`;

const TURN_DIFF_KEY = 'apply_patch.turnDiff';

/** Builds the apply_patch tool for a thread. */
export function applyPatchTool(services: ShellServices): ToolDefinition<string> {
  return {
    name: 'apply_patch',
    spec(wire): ToolSpec {
      if (wire === 'responses') {
        return { type: 'custom', name: 'apply_patch', description: DESCRIPTION, format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_LARK_GRAMMAR } };
      }
      return {
        type: 'function',
        name: 'apply_patch',
        description: DESCRIPTION,
        parameters: { type: 'object', properties: { input: { type: 'string', description: 'The entire patch text.' } }, required: ['input'], additionalProperties: false },
        strict: false,
      };
    },
    parse(raw: string): string {
      // Freeform calls carry the patch itself; chat-wire calls carry {"input": patch}.
      const trimmed = raw.trimStart();
      if (trimmed.startsWith('{')) {
        const parsed = z.object({ input: z.string() }).safeParse(safeJson(trimmed));
        if (parsed.success) return parsed.data.input;
      }
      return raw;
    },
    handle: (patch, ctx) => runPatch(patch, ctx, services),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Parses, checks, approves and applies a patch; returns the model-facing result. Relative paths
 * of the patch resolve against `baseDir` (default the turn's cwd; the `cd dir && apply_patch`
 * form and `exec_command`'s `workdir` give another), while the writable roots always come from
 * the turn's cwd, so a patch sent from another directory cannot move them.
 */
export async function runPatch(patchText: string, ctx: ToolContext, services: ShellServices, baseDir: string = ctx.cwd): Promise<ToolOutput> {
  const started = Date.now();
  let planned: PlannedChange[];
  try {
    planned = await planPatch(parsePatch(patchText), { cwd: baseDir });
  } catch (error) {
    if (error instanceof PatchParseError || error instanceof PatchApplyError) return patchResult(1, started, error.message);
    throw error;
  }
  const changes = toFileUpdates(planned);
  const paths = planned.flatMap((c) => (c.movePath ? [c.path, c.movePath] : [c.path]));
  // Where each path leads now. Session approvals are keyed by it: approving d/x while d was a
  // directory must not approve d/x once d has become a symlink to somewhere else.
  const targets = paths.map((p) => resolveForWrite(p));
  const allPathsWritable = paths.every((p) => isWritablePath(p, ctx.sandbox, ctx.cwd));
  const item: Extract<ThreadItem, { type: 'fileChange' }> = { type: 'fileChange', id: ctx.callId, changes, status: 'inProgress' };
  ctx.emit({ type: 'item.started', item, atMs: Date.now() });
  const finish = (status: 'completed' | 'failed' | 'declined') => ctx.emit({ type: 'item.completed', item: { ...item, status }, atMs: Date.now() });
  // The editor sees only paths inside the writable roots that it covers (its session's roots).
  const editor = services.editorFiles?.forThread(ctx.threadId) ?? null;
  const inEditor = (p: string): string | null => {
    const index = paths.indexOf(p);
    const target = targets[index];
    return editor && target !== undefined && isWritablePath(p, ctx.sandbox, ctx.cwd) && editor.covers(target) ? target : null;
  };
  const unsaved = editor?.read ? await unsavedInEditor(planned, inEditor, editor.read, ctx.signal) : null;
  if (unsaved !== null) {
    finish('failed');
    return patchResult(1, started, unsaved);
  }
  const decision = decidePatch({ approvalPolicy: ctx.approvalPolicy, allPathsWritable, isApprovedForSession: services.sessionApprovals.arePathsApproved(targets) });
  if (decision === 'reject') {
    finish('declined');
    return patchResult(1, started, `patch rejected: writing outside of the writable roots (${ctx.sandbox.type}) needs approval, and the approval policy is never`);
  }
  if (decision === 'ask') {
    const request = { kind: 'patch' as const, callId: ctx.callId, changes, reason: outsideReason(paths, targets, ctx), grantRoot: null };
    const outcome = await askApproval(ctx, services, request, { paths: targets });
    if (outcome !== 'proceed') {
      // Even an abort completes the item, so no fileChange is left in progress.
      finish('declined');
      if (outcome === 'aborted') abortTurn();
      return { output: refusalText(outcome, 'patch'), success: false };
    }
  }
  const tracker = turnDiff(ctx);
  // Additions and in-place updates the editor covers are written through it; the rest on disk.
  const write = editor?.write ?? null;
  const viaEditor = write ? planned.filter((c) => c.kind !== 'delete' && c.movePath === null && c.newContent !== null && inEditor(c.path) !== null) : [];
  const onDisk = planned.filter((c) => !viaEditor.includes(c));
  const notes: string[] = [];
  try {
    await tracker.trackBefore(planned);
    if (onDisk.length > 0) await writePatch(onDisk, ctx, services, { isSandboxed: ctx.sandbox.type !== 'danger-full-access' && allPathsWritable, paths, targets, baseDir });
    if (write) for (const change of viaEditor) notes.push(...(await writeInEditor(change, inEditor(change.path) ?? change.path, write, ctx.signal)));
  } catch (error) {
    finish('failed');
    if (ctx.signal.aborted) throw error;
    if (error instanceof PatchApplyError) return patchResult(1, started, error.message);
    return patchResult(1, started, `failed to write the patch: ${(error as Error).message}`);
  }
  finish('completed');
  ctx.emit({ type: 'diff.updated', diff: await tracker.unifiedDiff() });
  return patchResult(0, started, [summarizeChanges(planned, ctx.cwd), ...notes].join('\n'));
}

/**
 * The refusal when a file the patch changes is open in the editor with text that differs from the
 * disk (unsaved edits the patch would overwrite), or null. Each file is read once, as it was before
 * the patch (its first change).
 */
async function unsavedInEditor(
  planned: readonly PlannedChange[],
  inEditor: (path: string) => string | null,
  read: (absPath: string, signal: AbortSignal) => Promise<string>,
  signal: AbortSignal,
): Promise<string | null> {
  const seen = new Set<string>();
  for (const change of planned) {
    if (seen.has(change.path) || change.oldContent === null) continue;
    seen.add(change.path);
    const target = inEditor(change.path);
    if (target === null) continue;
    let buffer: string;
    try {
      buffer = await read(target, signal);
    } catch (error) {
      signal.throwIfAborted();
      return `the editor could not read ${change.displayPath}: ${(error as Error).message}; no files were modified`;
    }
    if (buffer !== change.oldContent) return `${change.path} has unsaved changes in the editor; save or discard them, then retry. No files were modified.`;
  }
  return null;
}

/**
 * Writes one file through the editor. A refusal fails the patch with the editor's message (files
 * written before it stay written, nothing is retried on disk); an editor that holds the new text
 * without saving it gives a note, since commands read the disk.
 */
async function writeInEditor(change: PlannedChange, target: string, write: (absPath: string, content: string, signal: AbortSignal) => Promise<void>, signal: AbortSignal): Promise<string[]> {
  const content = change.newContent ?? '';
  try {
    await write(target, content, signal);
  } catch (error) {
    signal.throwIfAborted();
    throw new PatchApplyError(`the editor refused to write ${change.displayPath}: ${(error as Error).message}`, { path: change.displayPath });
  }
  const onDisk = await readFile(target, 'utf8').catch(() => null);
  return onDisk === content ? [] : [`note: ${change.displayPath} was written in the editor, which has not saved it to disk yet; commands still see the old file`];
}

/** The approval request's reason: the first path outside the writable roots (and where it leads), or null. */
function outsideReason(paths: readonly string[], targets: readonly string[], ctx: ToolContext): string | null {
  const index = paths.findIndex((p) => !isWritablePath(p, ctx.sandbox, ctx.cwd));
  if (index < 0) return null;
  const leadsTo = targets[index] !== paths[index] ? ` (resolves to ${targets[index]})` : '';
  return `writes outside the writable roots: ${paths[index]}${leadsTo}`;
}

/**
 * Writes the patch: under the sandbox when every path was inside the writable roots (the kernel
 * then confines each path again at write time), else in-process, as the user approved. In-process
 * under a sandboxing policy, every path must still lead where it led when the user was asked;
 * that narrows, but cannot close, the window in which a swapped symlink redirects the write.
 */
async function writePatch(
  planned: PlannedChange[],
  ctx: ToolContext,
  services: ShellServices,
  how: { isSandboxed: boolean; paths: readonly string[]; targets: readonly string[]; baseDir: string },
): Promise<void> {
  if (how.isSandboxed) {
    await commitPatchSandboxed(planned, { policy: ctx.sandbox, workspace: ctx.cwd, hiddenPaths: services.sandboxHiddenPaths, signal: ctx.signal });
    return;
  }
  if (ctx.sandbox.type !== 'danger-full-access') {
    how.paths.forEach((p, i) => {
      const now = resolveForWrite(p);
      if (now === how.targets[i]) return;
      const shown = displayPathFor(p, how.baseDir);
      throw new PatchApplyError(`${shown} changed on disk after the patch was checked (it now leads to ${now}); no files were modified. Read it again and retry.`, { path: shown });
    });
  }
  await commitPatch(planned, { signal: ctx.signal });
}

function turnDiff(ctx: ToolContext): TurnDiffTracker {
  let tracker = ctx.toolState.get(TURN_DIFF_KEY) as TurnDiffTracker | undefined;
  if (!tracker) {
    tracker = new TurnDiffTracker(ctx.cwd);
    ctx.toolState.set(TURN_DIFF_KEY, tracker);
  }
  return tracker;
}

function toFileUpdates(planned: PlannedChange[]): FileUpdate[] {
  return planned.map((c) => ({
    path: c.path,
    kind: c.kind === 'update' ? { type: 'update', move_path: c.movePath } : { type: c.kind },
    diff: c.diff,
  }));
}

/** The reference's apply_patch output layout. */
function patchResult(exitCode: number, startedMs: number, text: string): ToolOutput {
  const seconds = ((Date.now() - startedMs) / 1000).toFixed(1);
  return { output: `Exit code: ${exitCode}\nWall time: ${seconds} seconds\nOutput:\n${text}`, success: exitCode === 0 };
}

