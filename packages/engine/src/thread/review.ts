/**
 * Code review turns (the Codex TUI's `/review`; reference: codex-rs/core/src/tasks/review.rs and
 * review_prompts.rs). A review target becomes a reviewer prompt: the working tree's changes, the
 * changes since the merge base with a branch, one commit's changes (each with its git diff read
 * in the thread's cwd, so the model sees the code at once) or free-form instructions. That git
 * runs only inside a read-only sandbox (review-git.ts): the cwd's `.git` may have been planted by
 * a sandboxed command.
 *
 * The review runs as a turn of its own kind, in a conversation apart from the thread's history:
 * reviewer instructions replace the base instructions, the environment context is sent without
 * project docs or developer instructions, and the model has the thread's tools (and policies) to
 * look further, with the read-only intent the instructions state. Its tool items and reasoning
 * are shown; its own messages are not (they are the structured answer). The turn shows
 * `enteredReviewMode` (what is reviewed) first and `exitedReviewMode` (the rendered review) last,
 * followed by an agent message carrying the same text; the thread's history records the review
 * request and result, so later turns can act on the findings. Review turns take no steer input.
 */
import { v4 as uuidv4 } from 'uuid';
import { z } from 'zod';
import type { ThreadItem } from '@deputy/protocol';
import { InvalidInputError } from '../errors.js';
import type { ResponseItem } from '../model/types.js';
import { initialContextItems } from './context.js';
import { buildRequest, messageText, showReasoning, streamStep, type StepView } from './model-step.js';
import { REVIEW_DIFF_OPTIONS, REVIEW_GIT_GLOBALS, runSandboxedGit, type ReviewGitOptions } from './review-git.js';
import { closeOpenItems, runTool, toolOutputItem } from './tool-step.js';
import type { ReviewRequest, ToolCall, TurnScope } from './turn-scope.js';

export type { ReviewRequest } from './turn-scope.js';
export type { ReviewGitOptions } from './review-git.js';

/** What to review. */
export type ReviewTarget =
  | { type: 'uncommittedChanges' }
  | { type: 'baseBranch'; branch: string }
  | { type: 'commit'; sha: string; title?: string | null }
  | { type: 'custom'; instructions: string };

/** Longest diff (in characters) put into a review prompt; longer ones are cut with a note. */
export const MAX_REVIEW_DIFF_CHARS = 200_000;

/** The exitedReviewMode text of a review that was interrupted before it answered. */
export const REVIEW_INTERRUPTED_TEXT = 'The review was interrupted before it finished. Start it again and let it complete to see its findings.';

/** The exitedReviewMode text when the reviewer gave neither findings nor an explanation. */
export const REVIEW_EMPTY_TEXT = 'The reviewer gave no findings and no explanation.';

/** The reviewer's instructions (they replace the thread's base instructions for the review). */
export const REVIEW_INSTRUCTIONS = `You are reviewing a code change written by someone else, as a careful senior engineer would.

Your job is to find real problems that the author would want to fix before merging: bugs, incorrect logic, broken edge cases, security issues, data loss, race conditions, performance traps, missing error handling, and changes that contradict the surrounding code or its documentation. Only report problems introduced by the change under review, not pre-existing ones. Do not report style preferences, formatting, or speculative issues you cannot tie to a concrete failure.

You may read files and run read-only commands (git log, git show, git diff, grep, reading files, running the existing tests) to understand the change. Do not modify any file, do not commit, and do not change the repository's state.

For each finding give a short imperative title, an explanation of the concrete failure and when it happens, the file and the narrowest line range that shows it, a priority from 0 (must fix, blocks the change) to 3 (minor), and your confidence between 0 and 1.

Answer with a single JSON object and nothing else, in this shape:
{
  "findings": [
    {
      "title": "<= 80 characters, imperative",
      "body": "why this is a problem, when it fails, and how to fix it",
      "confidence_score": 0.0,
      "priority": 0,
      "code_location": { "absolute_file_path": "/absolute/path", "line_range": { "start": 1, "end": 1 } }
    }
  ],
  "overall_correctness": "patch is correct" | "patch is incorrect",
  "overall_explanation": "one to three sentences on the change as a whole",
  "overall_confidence_score": 0.0
}
An empty "findings" array is a valid answer when the change has no problems worth reporting.`;

/** One finding of the reviewer's structured answer (fields it leaves out are tolerated). */
const FindingSchema = z.object({
  title: z.string().catch(''),
  body: z.string().catch(''),
  confidence_score: z.number().optional().catch(undefined),
  priority: z.number().int().optional().catch(undefined),
  code_location: z
    .object({
      absolute_file_path: z.string(),
      line_range: z.object({ start: z.number().int(), end: z.number().int() }),
    })
    .optional()
    .catch(undefined),
});

/** The reviewer's structured answer. */
export const ReviewOutputSchema = z.object({
  findings: z.array(FindingSchema).catch([]),
  overall_correctness: z.string().catch(''),
  overall_explanation: z.string().catch(''),
  overall_confidence_score: z.number().optional().catch(undefined),
});
export type ReviewOutput = z.infer<typeof ReviewOutputSchema>;

/** Most bytes of git output read for one prompt (a UTF-8 character takes at most 4). */
const MAX_GIT_OUTPUT_BYTES = MAX_REVIEW_DIFF_CHARS * 4 + 1;

/** Most untracked files (and bytes of their names) shown as diffs; the rest is left to the reviewer's own commands. */
const MAX_UNTRACKED_FILES = 500;
const MAX_UNTRACKED_NAME_BYTES = 256 * 1024;

/**
 * Runs `git <hardening> args` in `cwd` inside the read-only sandbox (review-git.ts); resolves
 * with stdout when the exit code is in `ok`, rejects with stderr otherwise.
 */
async function git(cwd: string, args: string[], options: ReviewGitOptions, ok: readonly number[] = [0]): Promise<string> {
  const run = await runSandboxedGit(cwd, ['git', ...REVIEW_GIT_GLOBALS, ...args], MAX_GIT_OUTPUT_BYTES, options);
  if (run.isTruncated || (run.exitCode !== null && ok.includes(run.exitCode))) return run.stdout;
  throw new Error((run.stderr || `git exited with ${run.exitCode ?? 'a signal'}`).trim());
}

/** Throws InvalidInputError unless `cwd` is inside a git work tree. */
async function requireGitRepo(cwd: string, what: string, options: ReviewGitOptions): Promise<void> {
  const inside = await git(cwd, ['rev-parse', '--is-inside-work-tree'], options).catch((error: unknown) => {
    // A sandbox that cannot run fails the review as it is; anything else means "not a repository".
    if (error instanceof InvalidInputError || options.signal?.aborted) throw error;
    return '';
  });
  if (inside.trim() !== 'true') throw new InvalidInputError(`cannot review ${what}: ${cwd} is not inside a git repository`);
}

/** Cuts a diff that is too long for the prompt, saying so. */
function boundDiff(diff: string): string {
  if (diff.length <= MAX_REVIEW_DIFF_CHARS) return diff;
  return `${diff.slice(0, MAX_REVIEW_DIFF_CHARS)}\n[diff truncated: ${diff.length - MAX_REVIEW_DIFF_CHARS} more characters; run git yourself to see the rest]\n`;
}

function withDiff(intro: string, command: string, diff: string): string {
  const body = diff.trim() === '' ? `\`${command}\` shows no changes.` : `The output of \`${command}\`:\n\n\`\`\`diff\n${boundDiff(diff).replace(/\n$/, '')}\n\`\`\``;
  return `${intro}\n\n${body}`;
}

/** The diff of the working tree against HEAD (staged and unstaged), plus untracked files. */
async function workingTreeDiff(cwd: string, options: ReviewGitOptions): Promise<string> {
  const diffArgs = [...REVIEW_DIFF_OPTIONS, '--ignore-submodules=dirty'];
  const hasHead = await git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD'], options).then(() => true, () => false);
  const diff = hasHead
    ? await git(cwd, ['diff', ...diffArgs, 'HEAD'], options)
    : (await git(cwd, ['diff', ...diffArgs, '--cached'], options)) + (await git(cwd, ['diff', ...diffArgs], options));
  const untracked = (await git(cwd, ['ls-files', '--others', '--exclude-standard', '-z'], options)).split('\0').filter((f) => f !== '');
  if (untracked.length === 0 || diff.length > MAX_REVIEW_DIFF_CHARS) return diff;
  // One sandbox for every untracked file; `--no-index` exits 1 when the files differ, which they always do here.
  const loop = `for f in "$@"; do git ${REVIEW_GIT_GLOBALS.map(shellQuote).join(' ')} diff ${REVIEW_DIFF_OPTIONS.join(' ')} --no-index -- /dev/null "$f"; done; exit 0`;
  const run = await runSandboxedGit(cwd, ['sh', '-c', loop, 'sh', ...firstNames(untracked)], MAX_GIT_OUTPUT_BYTES, options);
  return diff + run.stdout;
}

/** The first untracked names, within {@link MAX_UNTRACKED_FILES} and {@link MAX_UNTRACKED_NAME_BYTES} (argv stays small). */
function firstNames(names: readonly string[]): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (const name of names.slice(0, MAX_UNTRACKED_FILES)) {
    bytes += Buffer.byteLength(name) + 1;
    if (bytes > MAX_UNTRACKED_NAME_BYTES) break;
    kept.push(name);
  }
  return kept;
}

/** `value` as one single-quoted shell word. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * Turns a target into the reviewer's prompt and the hint shown to users, reading the diff it
 * names in `cwd`. Throws InvalidInputError for an empty branch, sha or instructions, for a git
 * target outside a git repository, and for a branch or commit git does not know.
 */
export async function resolveReviewRequest(target: ReviewTarget, cwd: string, options: ReviewGitOptions = {}): Promise<ReviewRequest> {
  switch (target.type) {
    case 'custom': {
      const prompt = target.instructions.trim();
      if (prompt === '') throw new InvalidInputError('instructions must not be empty');
      return { prompt, hint: prompt };
    }
    case 'uncommittedChanges': {
      await requireGitRepo(cwd, 'uncommitted changes', options);
      const intro = 'Review the uncommitted changes in this repository (staged, unstaged and untracked files) and report prioritized, actionable findings.';
      return { prompt: withDiff(intro, 'git diff HEAD (plus untracked files)', await workingTreeDiff(cwd, options)), hint: 'current changes' };
    }
    case 'baseBranch': {
      const branch = target.branch.trim();
      if (branch === '') throw new InvalidInputError('branch must not be empty');
      await requireGitRepo(cwd, `changes against '${branch}'`, options);
      // Compare with the branch's upstream when it has one (what would be merged), else the branch.
      const base = await git(cwd, ['merge-base', '--end-of-options', 'HEAD', `${branch}@{upstream}`], options)
        .catch(() => git(cwd, ['merge-base', '--end-of-options', 'HEAD', branch], options))
        .catch((error: Error) => {
          throw new InvalidInputError(`cannot find the merge base of HEAD and '${branch}': ${error.message}`);
        });
      const sha = base.trim();
      const intro = `Review the changes on the current branch against the base branch '${branch}': everything that merging it into '${branch}' would bring in. The merge base is ${sha}. Report prioritized, actionable findings.`;
      return { prompt: withDiff(intro, `git diff ${sha}`, await git(cwd, ['diff', ...REVIEW_DIFF_OPTIONS, '--ignore-submodules=dirty', sha], options)), hint: `changes against '${branch}'` };
    }
    case 'commit': {
      const sha = target.sha.trim();
      if (sha === '') throw new InvalidInputError('sha must not be empty');
      await requireGitRepo(cwd, `commit ${sha}`, options);
      const full = await git(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${sha}^{commit}`], options).catch(() => {
        throw new InvalidInputError(`commit ${sha} not found in the repository at ${cwd}`);
      });
      const title = target.title?.trim() || null;
      const shortSha = sha.slice(0, 7);
      const intro = `Review the changes introduced by commit ${sha}${title ? ` ("${title}")` : ''}. Report prioritized, actionable findings.`;
      const shown = await git(cwd, ['show', ...REVIEW_DIFF_OPTIONS, '--no-color', '--format=fuller', full.trim()], options);
      return { prompt: withDiff(intro, `git show ${sha}`, shown), hint: title ? `commit ${shortSha}: ${title}` : `commit ${shortSha}` };
    }
  }
}

/**
 * Reads the reviewer's answer: the whole text as JSON, else the outermost `{…}` in it, else the
 * text itself as the explanation.
 */
export function parseReviewOutput(text: string): ReviewOutput {
  const tryParse = (candidate: string): ReviewOutput | null => {
    try {
      const parsed = ReviewOutputSchema.safeParse(JSON.parse(candidate));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  const whole = tryParse(text);
  if (whole) return whole;
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  const inner = start >= 0 && end > start ? tryParse(text.slice(start, end + 1)) : null;
  return inner ?? { findings: [], overall_correctness: '', overall_explanation: text };
}

/** The review as plain text: the explanation, then each finding with its location and body. */
export function renderReviewOutput(output: ReviewOutput): string {
  const parts: string[] = [];
  const explanation = output.overall_explanation.trim();
  if (explanation) parts.push(explanation);
  if (output.findings.length > 0) {
    const lines = [output.findings.length === 1 ? 'Review comment:' : 'Full review comments:'];
    for (const finding of output.findings) {
      const loc = finding.code_location;
      const where = loc ? ` — ${loc.absolute_file_path}:${loc.line_range.start}-${loc.line_range.end}` : '';
      const priority = finding.priority !== undefined ? `[P${finding.priority}] ` : '';
      lines.push('', `- ${priority}${finding.title}${where}`);
      for (const line of finding.body.split('\n')) lines.push(`  ${line}`);
    }
    parts.push(lines.join('\n'));
  }
  return parts.length > 0 ? parts.join('\n\n') : REVIEW_EMPTY_TEXT;
}

/**
 * Runs a review turn: enteredReviewMode, the reviewer's conversation, exitedReviewMode and the
 * review as an agent message; returns the review text. On abort the exit item says so and the
 * abort is rethrown (the turn ends interrupted).
 */
export async function runReview(scope: TurnScope, request: ReviewRequest): Promise<string> {
  const entered: ThreadItem = { type: 'enteredReviewMode', id: uuidv4(), review: request.hint };
  scope.emit({ type: 'item.started', item: entered, atMs: Date.now() });
  scope.emit({ type: 'item.completed', item: entered, atMs: Date.now() });
  let answer: string;
  try {
    answer = await converse(scope, request.prompt);
  } catch (error) {
    if (scope.turn.controller.signal.aborted) exitReview(scope, request, null);
    throw error;
  }
  return exitReview(scope, request, parseReviewOutput(answer));
}

/** Emits exitedReviewMode and the review message, and records the review in the thread's history. */
function exitReview(scope: TurnScope, request: ReviewRequest, output: ReviewOutput | null): string {
  const text = output ? renderReviewOutput(output) : REVIEW_INTERRUPTED_TEXT;
  const exited: ThreadItem = { type: 'exitedReviewMode', id: uuidv4(), review: text };
  const now = Date.now();
  scope.emit({ type: 'item.started', item: exited, atMs: now });
  scope.emit({ type: 'item.completed', item: exited, atMs: now });
  const note = output
    ? `The user ran a code review of ${request.hint}. The reviewer's result follows; the user may ask to address some of its findings.\n\n<review_result>\n${text}\n</review_result>`
    : `The user started a code review of ${request.hint}, but it was interrupted before it finished.`;
  scope.record({ type: 'message', role: 'user', content: [{ type: 'input_text', text: note }] });
  const messageId = uuidv4();
  scope.emit({ type: 'item.started', item: { type: 'agentMessage', id: messageId, text: '', phase: null }, atMs: now });
  scope.record({ type: 'message', role: 'assistant', id: messageId, content: [{ type: 'output_text', text }] });
  scope.emit({ type: 'item.completed', item: { type: 'agentMessage', id: messageId, text, phase: null }, atMs: Date.now() });
  return text;
}

/**
 * The reviewer's conversation, apart from the thread's history: model steps with the reviewer
 * instructions and the review history (reasoning shown when complete, messages kept private),
 * tool calls run with the turn's policies, until the model answers without tools. Returns its
 * last message's text.
 */
async function converse(scope: TurnScope, prompt: string): Promise<string> {
  const s = scope.turn.settings;
  const history: ResponseItem[] = initialContextItems({
    cwd: s.cwd,
    sandbox: s.sandboxPolicy,
    approvalPolicy: s.approvalPolicy,
    developerInstructions: null,
    projectDocMaxBytes: 0,
  });
  history.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
  const open = new Map<string, ThreadItem>();
  let answer = '';
  let calls: ToolCall[] = [];
  const view: StepView = {
    isLive: false,
    countsUsage: true,
    complete: (items, started) => {
      for (const item of items) {
        history.push(item);
        if (item.type === 'message' && item.role === 'assistant') answer = messageText(item);
        else if (item.type === 'function_call' || item.type === 'custom_tool_call') calls.push(item);
        else if (item.type === 'reasoning') showReasoning(scope, item, started);
      }
    },
  };
  try {
    for (;;) {
      calls = [];
      const request = { ...buildRequest(scope), instructions: REVIEW_INSTRUCTIONS, input: [...history], outputSchema: null, promptCacheKey: scope.turn.id };
      await streamStep(scope, request, view);
      if (calls.length === 0) return answer;
      for (const call of calls) history.push(await runReviewCall(scope, call, open));
    }
  } finally {
    // Tool items an abort cut off complete before the turn does.
    closeOpenItems(scope, open);
  }
}

/** Runs one of the reviewer's tool calls; returns its output item for the review history. */
async function runReviewCall(scope: TurnScope, call: ToolCall, open: Map<string, ThreadItem>): Promise<ResponseItem> {
  let ended = false;
  try {
    const result = await runTool(scope, call, open, () => ended);
    return toolOutputItem(call, result.output);
  } finally {
    if (scope.turn.controller.signal.aborted) ended = true;
  }
}
