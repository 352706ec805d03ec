/**
 * The apply_patch library: parse Codex's patch language, plan a patch against the workspace in
 * memory, commit it to disk (in-process, or from inside the sandbox), summarise it for the model,
 * recognise heredoc invocations, and keep a turn-wide diff. The tool wrapper (approvals, sandbox
 * checks, events) lives elsewhere and uses only what is exported here.
 */
export { applyChunks } from './apply-chunks.js';
export { PatchApplyError, PatchParseError } from './errors.js';
export { formatGitDiff } from './git-diff.js';
export type { FileDiffInput } from './git-diff.js';
export { APPLY_PATCH_LARK_GRAMMAR } from './grammar.js';
export { extractHeredocPatch } from './heredoc.js';
export type { HeredocPatch } from './heredoc.js';
export { APPLY_PATCH_INSTRUCTIONS, APPLY_PATCH_TOOL_DESCRIPTION } from './instructions.js';
export { parsePatch } from './parser.js';
export type { Patch, PatchHunk, PatchLine, UpdateChunk } from './parser.js';
export { commitPatch, displayPathFor, planPatch, summarizeChanges } from './apply.js';
export type { CommitPatchOptions, PlannedChange, PlanPatchOptions, ReadTextFile } from './apply.js';
export { commitPatchSandboxed, SANDBOXED_COMMIT_TIMEOUT_MS } from './sandboxed-commit.js';
export type { SandboxedCommitOptions } from './sandboxed-commit.js';
export { foldPunctuation, seekSequence } from './seek-sequence.js';
export { TurnDiffTracker } from './turn-diff.js';
