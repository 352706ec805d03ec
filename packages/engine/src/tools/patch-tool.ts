/**
 * The `apply_patch` tool: a freeform (custom) tool on the Responses wire, a function taking
 * `{ input }` on the chat wire. It parses and verifies the whole patch before anything is
 * written, checks every path against the sandbox's writable roots, asks when the policy says so,
 * then writes, emits a fileChange item and the turn's aggregate diff.
 */
import { z } from 'zod';
import type { FileUpdate, ThreadItem } from '@deputy/protocol';
import { decidePatch } from '../approvals/policy.js';
import { isWritablePath } from '../exec/sandbox.js';
import type { ToolSpec } from '../model/types.js';
import { PatchApplyError, PatchParseError } from './apply-patch/errors.js';
import { APPLY_PATCH_LARK_GRAMMAR } from './apply-patch/grammar.js';
import { commitPatch, planPatch, summarizeChanges, type PlannedChange } from './apply-patch/apply.js';
import { parsePatch } from './apply-patch/parser.js';
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

/** Parses, checks, approves and applies a patch; returns the model-facing result. */
export async function runPatch(patchText: string, ctx: ToolContext, services: ShellServices): Promise<ToolOutput> {
  const started = Date.now();
  let planned: PlannedChange[];
  try {
    planned = await planPatch(parsePatch(patchText), { cwd: ctx.cwd });
  } catch (error) {
    if (error instanceof PatchParseError || error instanceof PatchApplyError) return patchResult(1, started, error.message);
    throw error;
  }
  const changes = toFileUpdates(planned);
  const paths = planned.flatMap((c) => (c.movePath ? [c.path, c.movePath] : [c.path]));
  const allPathsWritable = paths.every((p) => isWritablePath(p, ctx.sandbox, ctx.cwd));
  const item: Extract<ThreadItem, { type: 'fileChange' }> = { type: 'fileChange', id: ctx.callId, changes, status: 'inProgress' };
  ctx.emit({ type: 'item.started', item, atMs: Date.now() });
  const decision = decidePatch({ approvalPolicy: ctx.approvalPolicy, allPathsWritable, isApprovedForSession: services.sessionApprovals.arePathsApproved(paths) });
  const finish = (status: 'completed' | 'failed' | 'declined') => ctx.emit({ type: 'item.completed', item: { ...item, status }, atMs: Date.now() });
  if (decision === 'reject') {
    finish('declined');
    return patchResult(1, started, `patch rejected: writing outside of the writable roots (${ctx.sandbox.type}) needs approval, and the approval policy is never`);
  }
  if (decision === 'ask') {
    const outside = paths.find((p) => !isWritablePath(p, ctx.sandbox, ctx.cwd));
    const request = { kind: 'patch' as const, callId: ctx.callId, changes, reason: outside ? `writes outside the writable roots: ${outside}` : null, grantRoot: null };
    const outcome = await askApproval(ctx, services, request, { paths });
    if (outcome !== 'proceed') {
      // Even an abort completes the item, so no fileChange is left in progress.
      finish('declined');
      if (outcome === 'aborted') abortTurn();
      return { output: refusalText(outcome, 'patch'), success: false };
    }
  }
  const tracker = turnDiff(ctx);
  try {
    await tracker.trackBefore(planned);
    await commitPatch(planned);
  } catch (error) {
    finish('failed');
    if (error instanceof PatchApplyError) return patchResult(1, started, error.message);
    return patchResult(1, started, `failed to write the patch: ${(error as Error).message}`);
  }
  finish('completed');
  ctx.emit({ type: 'diff.updated', diff: await tracker.unifiedDiff() });
  return patchResult(0, started, summarizeChanges(planned, ctx.cwd));
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

