/**
 * Review turns end to end against the scripted model and a real temp git repository: each target
 * becomes a reviewer prompt carrying its diff, the turn shows enteredReviewMode → tool items →
 * exitedReviewMode (the rendered findings) → agent message, the reviewer's JSON never shows as a
 * message, the thread's history records the result for later turns, review turns take no steer,
 * an interrupt still exits review mode, and bad targets fail before anything starts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, makeTempHome, startScriptedModelServer, text, toolNames, type RecordedRequest } from '@deputy/test-support';
import { InvalidInputError, TurnInProgressError, TurnNotSteerableError } from '../../src/errors.js';
import { parseReviewOutput, renderReviewOutput, REVIEW_INSTRUCTIONS, REVIEW_INTERRUPTED_TEXT } from '../../src/thread/review.js';
import { collect, startTestEngine, waitFor } from '../helpers/engine.js';
import { ofType, requestText } from './support.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repo on `main` with one commit, a `feature` branch with one more, checked out. */
async function makeRepo(cwd: string): Promise<{ base: string; featureSha: string }> {
  git(cwd, 'init', '-q', '-b', 'main');
  await writeFile(join(cwd, 'app.ts'), 'export const answer = 42;\n');
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-q', '-m', 'initial');
  const base = git(cwd, 'rev-parse', 'HEAD').trim();
  git(cwd, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(cwd, 'app.ts'), 'export const answer = 41; // FEATURE-CHANGE\n');
  git(cwd, 'commit', '-q', '-am', 'Change the answer');
  return { base, featureSha: git(cwd, 'rev-parse', 'HEAD').trim() };
}

const FINDINGS = JSON.stringify({
  findings: [
    {
      title: 'Restore the answer',
      body: 'The answer must stay 42.\nCallers depend on it.',
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: '/repo/app.ts', line_range: { start: 1, end: 1 } },
    },
  ],
  overall_correctness: 'patch is incorrect',
  overall_explanation: 'One regression.',
  overall_confidence_score: 0.8,
});

async function setup() {
  const server = await startScriptedModelServer();
  const temp = await makeTempHome();
  cleanups.push(() => server.close(), () => temp.cleanup());
  const engine = await startTestEngine({ server, temp });
  cleanups.push(() => engine.close());
  return { server, temp, engine };
}

const isReviewRequest = (r: RecordedRequest) => r.body.instructions === REVIEW_INSTRUCTIONS;

describe('review targets', () => {
  it('uncommittedChanges sends the working-tree diff, untracked files included', async () => {
    const { server, temp, engine } = await setup();
    await makeRepo(temp.cwd);
    await writeFile(join(temp.cwd, 'app.ts'), 'export const answer = 43; // UNSTAGED-EDIT\n');
    await writeFile(join(temp.cwd, 'notes.txt'), 'UNTRACKED-NOTE\n');
    server.enqueue({ output: [text(FINDINGS)] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const turn = await (await thread.startReview({ type: 'uncommittedChanges' })).done;
    expect(turn.status).toBe('completed');
    const request = server.requests[0]!;
    expect(isReviewRequest(request)).toBe(true);
    const sent = requestText(request);
    expect(sent).toContain('UNSTAGED-EDIT');
    expect(sent).toContain('UNTRACKED-NOTE');
    expect(sent).toContain('uncommitted changes');
  });

  it('baseBranch sends the diff against the merge base', async () => {
    const { server, temp, engine } = await setup();
    const { base } = await makeRepo(temp.cwd);
    server.enqueue({ output: [text(FINDINGS)] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const events = collect(thread);
    await (await thread.startReview({ type: 'baseBranch', branch: 'main' })).done;
    const sent = requestText(server.requests[0]!);
    expect(sent).toContain('FEATURE-CHANGE');
    expect(sent).toContain(base);
    const entered = ofType(events, 'item.completed').find((e) => e.item.type === 'enteredReviewMode');
    expect(entered?.item).toMatchObject({ review: "changes against 'main'" });
  });

  it('commit sends the commit with its diff, and the hint names it', async () => {
    const { server, temp, engine } = await setup();
    const { featureSha } = await makeRepo(temp.cwd);
    git(temp.cwd, 'checkout', '-q', 'main');
    server.enqueue({ output: [text(FINDINGS)] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const events = collect(thread);
    await (await thread.startReview({ type: 'commit', sha: featureSha, title: 'Change the answer' })).done;
    const sent = requestText(server.requests[0]!);
    expect(sent).toContain('FEATURE-CHANGE');
    expect(sent).toContain(featureSha);
    const entered = ofType(events, 'item.completed').find((e) => e.item.type === 'enteredReviewMode');
    expect(entered?.item).toMatchObject({ review: `commit ${featureSha.slice(0, 7)}: Change the answer` });
  });

  it('custom sends the trimmed instructions as they are, outside any git repository', async () => {
    const { server, temp, engine } = await setup();
    server.enqueue({ output: [text('Looks fine.')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await (await thread.startReview({ type: 'custom', instructions: '  Check CUSTOM-FOCUS please \n' })).done;
    expect(requestText(server.requests[0]!)).toContain('Check CUSTOM-FOCUS please');
  });

  it('refuses empty targets, non-git directories and unknown refs before starting anything', async () => {
    const { server, temp, engine } = await setup();
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await expect(thread.startReview({ type: 'custom', instructions: '\n\n' })).rejects.toThrow(new InvalidInputError('instructions must not be empty'));
    await expect(thread.startReview({ type: 'baseBranch', branch: '  ' })).rejects.toThrow('branch must not be empty');
    await expect(thread.startReview({ type: 'commit', sha: '\t' })).rejects.toThrow('sha must not be empty');
    const outside = await mkdtemp(join(tmpdir(), 'deputy-nogit-'));
    cleanups.push(() => rm(outside, { recursive: true, force: true }));
    const elsewhere = await engine.manager.start({ cwd: outside });
    await expect(elsewhere.startReview({ type: 'uncommittedChanges' })).rejects.toThrow(/not inside a git repository/);
    await makeRepo(temp.cwd);
    await expect(thread.startReview({ type: 'commit', sha: 'feedface' })).rejects.toThrow(/commit feedface not found/);
    await expect(thread.startReview({ type: 'baseBranch', branch: 'no-such-branch' })).rejects.toThrow(/merge base/);
    expect(server.requests).toHaveLength(0);
    expect(thread.activeTurnId).toBeNull();
    expect(thread.turns).toHaveLength(0);
  });
});

describe('the review turn', () => {
  it('shows entered → tools → exited with the rendered findings, hides the JSON, and records the result', async () => {
    const { server, temp, engine } = await setup();
    await makeRepo(temp.cwd);
    server.enqueue(
      { output: [functionCall('exec_command', { cmd: 'echo REVIEWER-LOOKED', yield_time_ms: 5000 })] },
      { output: [text(FINDINGS)] },
      { output: [text('will fix')] },
    );
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const events = collect(thread);
    const turn = await (await thread.startReview({ type: 'baseBranch', branch: 'main' })).done;
    expect(turn.status).toBe('completed');
    const completed = ofType(events, 'item.completed').map((e) => e.item);
    expect(completed.map((i) => i.type)).toEqual(['enteredReviewMode', 'commandExecution', 'exitedReviewMode', 'agentMessage']);
    const exited = completed[2] as { review: string };
    expect(exited.review).toContain('One regression.');
    expect(exited.review).toContain('Restore the answer');
    expect(exited.review).toContain('/repo/app.ts:1-1');
    expect(exited.review).not.toContain('"findings"');
    expect(completed[3]).toMatchObject({ type: 'agentMessage', text: exited.review });
    expect(turn.lastAgentMessage).toBe(exited.review);
    // The second review request carries the tool output; both have the reviewer instructions and tools.
    expect(server.requests.slice(0, 2).every(isReviewRequest)).toBe(true);
    expect(toolNames(server.requests[0]!).length).toBeGreaterThan(0);
    expect(requestText(server.requests[1]!)).toContain('REVIEWER-LOOKED');
    const order = events.map((e) => e.type);
    expect(order.indexOf('turn.started')).toBeLessThan(order.indexOf('item.started'));
    expect(order.at(-1)).toBe('turn.completed');

    // The next regular turn sees the review's result, not the reviewer's conversation.
    await thread.startTurn([{ type: 'text', text: 'fix the first finding' }]).done;
    const next = server.requests[2]!;
    expect(isReviewRequest(next)).toBe(false);
    const nextText = requestText(next);
    expect(nextText).toContain('Restore the answer');
    expect(nextText).not.toContain('REVIEWER-LOOKED');
  });

  it('takes no steer and no second turn, and an interrupt still exits review mode', async () => {
    const { server, temp, engine } = await setup();
    server.enqueue({ output: [text(FINDINGS)], delayMs: 2_000 });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const events = collect(thread);
    const handle = await thread.startReview({ type: 'custom', instructions: 'look at it' });
    await waitFor(() => server.requests.length === 1, 5_000, 'the review request');
    expect(() => thread.steer([{ type: 'text', text: 'more' }])).toThrow(TurnNotSteerableError);
    expect(() => thread.startTurn([{ type: 'text', text: 'another' }])).toThrow(TurnInProgressError);
    await expect(thread.startReview({ type: 'custom', instructions: 'again' })).rejects.toThrow(TurnInProgressError);
    await thread.interrupt(handle.turnId);
    expect((await handle.done).status).toBe('interrupted');
    const exited = ofType(events, 'item.completed').find((e) => e.item.type === 'exitedReviewMode');
    expect(exited?.item).toMatchObject({ review: REVIEW_INTERRUPTED_TEXT });
  });
});

describe('review output', () => {
  it('parses JSON, JSON inside text, and falls back to plain text', () => {
    expect(parseReviewOutput(FINDINGS).findings).toHaveLength(1);
    expect(parseReviewOutput(`Here you go:\n${FINDINGS}\nthanks`).findings).toHaveLength(1);
    const plain = parseReviewOutput('No problems found.');
    expect(plain).toMatchObject({ findings: [], overall_explanation: 'No problems found.' });
    expect(renderReviewOutput(plain)).toBe('No problems found.');
    expect(renderReviewOutput(parseReviewOutput(FINDINGS))).toBe(
      'One regression.\n\nReview comment:\n\n- [P1] Restore the answer — /repo/app.ts:1-1\n  The answer must stay 42.\n  Callers depend on it.',
    );
  });
});
