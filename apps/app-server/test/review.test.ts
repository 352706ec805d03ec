/**
 * Contract tests of `review/start` (the Codex TUI's `/review`) over a real temp git repository:
 * each target's diff reaches the model, the response carries the in-progress turn and the
 * thread it runs on, the turn shows enteredReviewMode → tool items → exitedReviewMode (the
 * rendered review) → agentMessage → turn/completed, steer and turn/start are refused while it
 * runs, `detached` forks a new thread announced with thread/started, and bad requests get -32600
 * while the server goes on serving. Every message is checked against our schemas and the reference's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REVIEW_INTERRUPTED_TEXT } from '@deputy/engine';
import { functionCall, text, type RecordedRequest, type Step, type StepHandler } from '@deputy/test-support';
import { harnessPerTest, type Harness } from './support/harness.js';
import { referenceScript } from './support/mock-model.js';
import { startThread, turnCompleted } from './support/turns.js';
import type { Received, WireClient } from './support/wire-client.js';

const harness = harnessPerTest();

const FINDINGS = JSON.stringify({
  findings: [
    {
      title: 'Keep the answer at 42',
      body: 'Callers rely on the old value.',
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: '/repo/app.ts', line_range: { start: 1, end: 1 } },
    },
  ],
  overall_correctness: 'patch is incorrect',
  overall_explanation: 'The change breaks callers.',
  overall_confidence_score: 0.8,
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repo on `main` with one commit and a checked-out `feature` branch with one more. */
async function makeRepo(cwd: string): Promise<string> {
  git(cwd, 'init', '-q', '-b', 'main');
  await writeFile(join(cwd, 'app.ts'), 'export const answer = 42;\n');
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-q', '-m', 'initial');
  git(cwd, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(cwd, 'app.ts'), 'export const answer = 41; // FEATURE-CHANGE\n');
  git(cwd, 'commit', '-q', '-am', 'Change the answer');
  return git(cwd, 'rev-parse', 'HEAD').trim();
}

const isReviewRequest = (r: RecordedRequest) => typeof r.body.instructions === 'string' && r.body.instructions.startsWith('You are reviewing a code change');

/** The reference model, except that review requests get `review(request)`. */
function withReviewer(review: (request: RecordedRequest) => Step): StepHandler {
  return (request) => (isReviewRequest(request) ? review(request) : referenceScript(request));
}

/** Reviews answer with the findings at once. */
const reviewer = withReviewer(() => ({ output: [text(FINDINGS)] }));

async function open(handler: StepHandler = reviewer): Promise<{ h: Harness; client: WireClient; threadId: string }> {
  const h = await harness({ handler });
  const client = await h.connect();
  const threadId = (await startThread(client)).id;
  return { h, client, threadId };
}

interface ReviewResult {
  turn: { id: string; status: string; items: unknown[] };
  reviewThreadId: string;
}

/** The item types of one turn's item/completed notifications, in order. */
function completedItems(client: WireClient, turnId: string): Array<Record<string, unknown> & { type: string }> {
  return client
    .notifications('item/completed')
    .filter((n) => n.params.turnId === turnId)
    .map((n) => n.params.item as Record<string, unknown> & { type: string });
}

describe('review/start inline', () => {
  it('reviews the working tree: diff to the model, entered → exited → message, turn completes', async () => {
    const { h, client, threadId } = await open();
    await makeRepo(h.temp.cwd);
    await writeFile(join(h.temp.cwd, 'app.ts'), 'export const answer = 43; // WORKING-TREE-EDIT\n');
    await writeFile(join(h.temp.cwd, 'new-file.ts'), 'UNTRACKED-FILE\n');
    const response = await client.request('review/start', { threadId, target: { type: 'uncommittedChanges' } });
    const result = (response as { result: ReviewResult }).result;
    expect(result.reviewThreadId).toBe(threadId);
    expect(result.turn).toMatchObject({ status: 'inProgress', items: [] });
    const completed: Received = await turnCompleted(client, result.turn.id);
    expect(completed.params.turn).toMatchObject({ id: result.turn.id, status: 'completed' });

    const sent = JSON.stringify(h.model.requests.find(isReviewRequest)!.body.input);
    expect(sent).toContain('WORKING-TREE-EDIT');
    expect(sent).toContain('UNTRACKED-FILE');
    const items = completedItems(client, result.turn.id);
    expect(items.map((i) => i.type)).toEqual(['enteredReviewMode', 'exitedReviewMode', 'agentMessage']);
    expect(items[0]).toMatchObject({ review: 'current changes' });
    const review = items[1]!.review as string;
    expect(review).toContain('The change breaks callers.');
    expect(review).toContain('Keep the answer at 42 — /repo/app.ts:1-1');
    expect(items[2]).toMatchObject({ text: review });
    // Each item starts before it completes, and the response precedes the turn's notifications.
    const started = client.notifications('item/started').filter((n) => n.params.turnId === result.turn.id);
    expect(started.map((n) => (n.params.item as { type: string }).type)).toEqual(['enteredReviewMode', 'exitedReviewMode', 'agentMessage']);
    const responseAt = client.received.findIndex((m) => 'id' in m && m.id === response.id);
    const turnStartedAt = client.received.findIndex((m) => 'method' in m && m.method === 'turn/started');
    expect(turnStartedAt).toBeGreaterThan(responseAt);
  });

  it('reviews against a base branch and a commit, with their diffs and hints; tool items show in between', async () => {
    let calls = 0;
    const handler = withReviewer(() => (calls++ % 2 === 0 ? { output: [functionCall('exec_command', { cmd: 'echo REVIEWER-RAN', yield_time_ms: 5000 })] } : { output: [text(FINDINGS)] }));
    const { h, client, threadId } = await open(handler);
    const sha = await makeRepo(h.temp.cwd);

    const branch = await client.call<ReviewResult>('review/start', { threadId, target: { type: 'baseBranch', branch: 'main' }, delivery: 'inline' });
    await turnCompleted(client, branch.turn.id);
    const branchItems = completedItems(client, branch.turn.id);
    expect(branchItems.map((i) => i.type)).toEqual(['enteredReviewMode', 'commandExecution', 'exitedReviewMode', 'agentMessage']);
    expect(branchItems[0]).toMatchObject({ review: "changes against 'main'" });
    const reviews = h.model.requests.filter(isReviewRequest);
    expect(JSON.stringify(reviews[0]!.body.input)).toContain('FEATURE-CHANGE');
    expect(JSON.stringify(reviews[1]!.body.input)).toContain('REVIEWER-RAN');

    git(h.temp.cwd, 'checkout', '-q', 'main');
    const commit = await client.call<ReviewResult>('review/start', { threadId, target: { type: 'commit', sha, title: 'Change the answer' } });
    await turnCompleted(client, commit.turn.id);
    expect(completedItems(client, commit.turn.id)[0]).toMatchObject({ type: 'enteredReviewMode', review: `commit ${sha.slice(0, 7)}: Change the answer` });
    const commitRequest = h.model.requests.filter(isReviewRequest)[2]!;
    expect(JSON.stringify(commitRequest.body.input)).toContain('FEATURE-CHANGE');
    expect(JSON.stringify(commitRequest.body.input)).toContain(sha);

    // thread/read shows the turn's items, the review items included.
    const read = await client.call<{ thread: { turns: Array<{ id: string; items: Array<{ type: string }> }> } }>('thread/read', { threadId, includeTurns: true });
    const readTurn = read.thread.turns.find((t) => t.id === commit.turn.id)!;
    expect(readTurn.items.map((i) => i.type)).toEqual(['enteredReviewMode', 'commandExecution', 'exitedReviewMode', 'agentMessage']);
  });

  it('sends custom instructions as they are, outside any git repository', async () => {
    const { h, client, threadId } = await open();
    const result = await client.call<ReviewResult>('review/start', { threadId, target: { type: 'custom', instructions: ' Focus on CUSTOM-AREA ' } });
    await turnCompleted(client, result.turn.id);
    expect(JSON.stringify(h.model.requests.find(isReviewRequest)!.body.input)).toContain('Focus on CUSTOM-AREA');
    expect(completedItems(client, result.turn.id)[0]).toMatchObject({ type: 'enteredReviewMode', review: 'Focus on CUSTOM-AREA' });
  });

  it('refuses turn/steer and turn/start while the review runs', async () => {
    const { client, threadId } = await open(withReviewer(() => ({ output: [text('No problems.')], delayMs: 300 })));
    const result = await client.call<ReviewResult>('review/start', { threadId, target: { type: 'custom', instructions: 'slowly' } });
    await client.waitForNotification('turn/started');
    const steer = await client.request('turn/steer', { threadId, expectedTurnId: result.turn.id, input: [{ type: 'text', text: 'more', text_elements: [] }] });
    expect(steer.error).toMatchObject({ code: -32600, message: expect.stringContaining('cannot be steered') });
    const start = await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'another', text_elements: [] }] });
    expect(start.error).toMatchObject({ code: -32600, message: expect.stringContaining('already running') });
    const again = await client.request('review/start', { threadId, target: { type: 'custom', instructions: 'again' } });
    expect(again.error).toMatchObject({ code: -32600, message: expect.stringContaining('already running') });
    const completed = await turnCompleted(client, result.turn.id);
    expect(completed.params.turn).toMatchObject({ status: 'completed' });
  });

  it('on turn/interrupt still exits review mode before the turn ends interrupted', async () => {
    const { client, threadId } = await open(withReviewer(() => ({ output: [text('No problems.')], delayMs: 1_000 })));
    const result = await client.call<ReviewResult>('review/start', { threadId, target: { type: 'custom', instructions: 'slowly' } });
    await client.waitForNotification('item/completed', (p) => (p.item as { type: string }).type === 'enteredReviewMode');
    expect(await client.call('turn/interrupt', { threadId, turnId: result.turn.id })).toEqual({});
    const completed = await turnCompleted(client, result.turn.id);
    expect(completed.params.turn).toMatchObject({ status: 'interrupted' });
    const items = completedItems(client, result.turn.id);
    expect(items.map((i) => i.type)).toEqual(['enteredReviewMode', 'exitedReviewMode', 'agentMessage']);
    expect(items[1]!.review).toBe(REVIEW_INTERRUPTED_TEXT);
  });
});

describe('review/start detached', () => {
  it('forks a new thread, announces it with thread/started, and runs the review there', async () => {
    const { h, client, threadId } = await open();
    await makeRepo(h.temp.cwd);
    const response = await client.request('review/start', { threadId, target: { type: 'baseBranch', branch: 'main' }, delivery: 'detached' });
    const result = (response as { result: ReviewResult }).result;
    expect(result.reviewThreadId).not.toBe(threadId);
    const announced = await client.waitForNotification('thread/started', (p) => (p.thread as { id: string }).id === result.reviewThreadId);
    expect(announced.params.thread).toMatchObject({ id: result.reviewThreadId, forkedFromId: threadId });
    const completed = await turnCompleted(client, result.turn.id);
    expect(completed.params).toMatchObject({ threadId: result.reviewThreadId });
    expect(completedItems(client, result.turn.id).map((i) => i.type)).toEqual(['enteredReviewMode', 'exitedReviewMode', 'agentMessage']);
    // thread/started comes after the response and before the review turn's first notification.
    const index = (pred: (m: (typeof client.received)[number]) => boolean) => client.received.findIndex(pred);
    const responseAt = index((m) => 'id' in m && m.id === response.id);
    const startedAt = index((m) => 'method' in m && m.method === 'thread/started' && (m.params as { thread: { id: string } }).thread.id === result.reviewThreadId);
    const turnAt = index((m) => 'method' in m && m.method === 'turn/started' && (m.params as { threadId: string }).threadId === result.reviewThreadId);
    expect(startedAt).toBeGreaterThan(responseAt);
    expect(turnAt).toBeGreaterThan(startedAt);
    // The original thread ran nothing.
    expect(client.notifications('turn/started').filter((n) => n.params.threadId === threadId)).toEqual([]);
  });
});

describe('review/start errors', () => {
  it('answers -32600 for an unknown thread, empty targets and a non-git cwd, and keeps serving', async () => {
    const { h, client, threadId } = await open();
    const unknown = await client.request('review/start', { threadId: '01a2286b-0072-7ad3-9f71-2d86309503a6', target: { type: 'uncommittedChanges' } });
    expect(unknown.error).toMatchObject({ code: -32600, message: 'thread not found: 01a2286b-0072-7ad3-9f71-2d86309503a6' });
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ type: 'custom', instructions: '\n\n' }, 'instructions must not be empty'],
      [{ type: 'baseBranch', branch: '   ' }, 'branch must not be empty'],
      [{ type: 'commit', sha: '\t' }, 'sha must not be empty'],
      [{ type: 'uncommittedChanges' }, /not inside a git repository/],
      [{ type: 'baseBranch', branch: 'main' }, /not inside a git repository/],
      [{ type: 'commit', sha: 'abc1234' }, /not inside a git repository/],
    ];
    const outside = await mkdtemp(join(tmpdir(), 'deputy-nogit-'));
    try {
      const elsewhere = (await startThread(client, { cwd: outside })).id;
      for (const [target, message] of cases) {
        const response = await client.request('review/start', { threadId: elsewhere, target });
        expect(response.error?.code).toBe(-32600);
        if (typeof message === 'string') expect(response.error?.message).toBe(message);
        else expect(response.error?.message).toMatch(message);
      }
      const badTarget = await client.request('review/start', { threadId, target: { type: 'everything' } });
      expect(badTarget.error?.code).toBe(-32600);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
    expect(h.model.requests.filter(isReviewRequest)).toEqual([]);
    expect(client.notifications('turn/started')).toEqual([]);
    // Still serving: a review on the original thread works.
    const ok = await client.call<ReviewResult>('review/start', { threadId, target: { type: 'custom', instructions: 'after errors' } });
    await turnCompleted(client, ok.turn.id);
  });
});
