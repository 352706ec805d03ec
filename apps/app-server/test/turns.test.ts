/**
 * Contract tests of turn/start, turn/steer, turn/interrupt and the notification sequences
 * (docs/app-server.md "Methods served" and "Notifications").
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { runTurn, startThread, startTurn, turnCompleted, turnMethods } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

let h: Harness;
let client: WireClient;
let threadId: string;
beforeEach(async () => {
  h = await startHarness();
  client = await h.connect();
  threadId = (await startThread(client)).id;
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

/** Methods of the notifications after the first one of the turn, without warnings. */
function sequence(turnId: string): string[] {
  return turnMethods(client, turnId).filter((m) => m !== 'warning');
}

describe('turn/start', () => {
  it('answers first, then sends the echo turn sequence in order', async () => {
    const response = await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
    const turn = (response as { result: { turn: Record<string, unknown> } }).result.turn;
    expect(turn).toMatchObject({ items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: null, completedAt: null, durationMs: null });
    const responseIndex = client.received.findIndex((m) => 'id' in m && m.id === response.id);
    const completed = await turnCompleted(client, turn.id as string);
    const firstTurnNote = client.received.findIndex((m) => 'method' in m && m.method === 'turn/started');
    expect(firstTurnNote).toBeGreaterThan(responseIndex);
    expect(sequence(turn.id as string)).toEqual([
      'thread/status/changed',
      'turn/started',
      'item/started',
      'item/completed',
      'item/started',
      'item/agentMessage/delta',
      'item/agentMessage/delta',
      'item/completed',
      'thread/tokenUsage/updated',
      'thread/status/changed',
      'turn/completed',
    ]);
    const deltas = client.notifications('item/agentMessage/delta').map((n) => n.params.delta).join('');
    const agent = client.notifications('item/completed').map((n) => n.params.item as { type: string; text?: string }).find((i) => i.type === 'agentMessage');
    expect(deltas).toBe('ECHO: hello');
    expect(agent?.text).toBe('ECHO: hello');
    expect(completed.params.turn).toMatchObject({ status: 'completed', error: null, itemsView: 'notLoaded', items: [] });
    const statuses = client.notifications('thread/status/changed').map((n) => n.params.status);
    expect(statuses.slice(-2)).toEqual([{ type: 'active', activeFlags: [] }, { type: 'idle' }]);
  });

  it('refuses empty input and a second turn while one runs, and accepts the next turn', async () => {
    const empty = await client.request('turn/start', { threadId, input: [] });
    expect(empty.error).toEqual({ code: -32600, message: 'input must not be empty' });
    const slow = await startTurn(client, threadId, 'slow: 150');
    const busy = await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'again' }] });
    expect(busy.error?.code).toBe(-32600);
    expect(busy.error?.message).toContain('use turn/steer');
    await turnCompleted(client, slow);
    const next = await runTurn(client, threadId, 'after');
    expect((next.params.turn as { status: string }).status).toBe('completed');
  });

  it('runs a command with output deltas and completes every item before turn/completed', async () => {
    const turnId = await startTurn(client, threadId, 'run: echo tool-output-here');
    await turnCompleted(client, turnId);
    const seq = sequence(turnId);
    const commandDone = client.notifications('item/completed').find((n) => (n.params.item as { type: string }).type === 'commandExecution');
    expect(commandDone?.params.item).toMatchObject({ status: 'completed', exitCode: 0, source: 'agent', commandActions: [{ type: 'unknown', command: 'echo tool-output-here' }] });
    expect(seq).toContain('item/commandExecution/outputDelta');
    expect(seq.lastIndexOf('item/completed')).toBeLessThan(seq.indexOf('turn/completed'));
    const started = client.notifications('item/started').map((n) => (n.params.item as { id: string }).id);
    const done = client.notifications('item/completed').map((n) => (n.params.item as { id: string }).id);
    expect(new Set(done)).toEqual(new Set(started));
  });

  it('applies a patch and reports the aggregated turn diff', async () => {
    const turnId = await startTurn(client, threadId, 'patch: hello.txt=hi there');
    await turnCompleted(client, turnId);
    expect(await readFile(join(h.temp.cwd, 'hello.txt'), 'utf8')).toBe('hi there\n');
    const change = client.notifications('item/completed').find((n) => (n.params.item as { type: string }).type === 'fileChange');
    expect(change?.params.item).toMatchObject({ status: 'completed', changes: [{ path: join(h.temp.cwd, 'hello.txt'), kind: { type: 'add' } }] });
    const diff = await client.waitForNotification('turn/diff/updated');
    expect(diff.params).toMatchObject({ threadId, turnId });
    expect(String(diff.params.diff)).toContain('+hi there');
  });

  it('reports plan updates with camelCase step states', async () => {
    const turnId = await startTurn(client, threadId, 'plan: read the code; fix it');
    await turnCompleted(client, turnId);
    const plan = await client.waitForNotification('turn/plan/updated');
    expect(plan.params).toEqual({
      threadId,
      turnId,
      explanation: 'scripted plan',
      plan: [
        { step: 'read the code', status: 'inProgress' },
        { step: 'fix it', status: 'pending' },
      ],
    });
  });

  it('streams reasoning summaries as their own item', async () => {
    const turnId = await startTurn(client, threadId, 'reason: why');
    await turnCompleted(client, turnId);
    const summary = client.notifications('item/reasoning/summaryTextDelta').map((n) => n.params.delta).join('');
    expect(summary).toBe('thinking about why');
    const reasoningDone = client.notifications('item/completed').find((n) => (n.params.item as { type: string }).type === 'reasoning');
    expect(reasoningDone?.params.item).toMatchObject({ summary: ['thinking about why'] });
  });

  it('reports a failed turn as systemError, error and a failed turn/completed, without idle', async () => {
    const turnId = await startTurn(client, threadId, 'fail: 500');
    const completed = await turnCompleted(client, turnId);
    expect(sequence(turnId).slice(-3)).toEqual(['thread/status/changed', 'error', 'turn/completed']);
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'systemError' });
    const error = client.notifications('error').at(-1);
    expect(error?.params).toMatchObject({ willRetry: false, threadId, turnId, error: { codexErrorInfo: 'internalServerError' } });
    expect(completed.params.turn).toMatchObject({ status: 'failed', error: { codexErrorInfo: 'internalServerError' } });
    const read = await client.call<{ thread: { status: { type: string } } }>('thread/read', { threadId });
    expect(read.thread.status).toEqual({ type: 'systemError' });
  });

  it('makes per-turn overrides the thread defaults and passes the output schema to the model', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const turnId = await startTurn(client, threadId, 'structured', { model: 'gpt-4.1', outputSchema: schema, effort: null });
    await turnCompleted(client, turnId);
    const request = h.model.requests.filter((r) => r.wire === 'responses').at(-1);
    expect(request?.body.model).toBe('gpt-4.1');
    expect(JSON.stringify(request?.body.text)).toContain('"answer"');
    await runTurn(client, threadId, 'next');
    expect(h.model.requests.filter((r) => r.wire === 'responses').at(-1)?.body.model).toBe('gpt-4.1');
    expect((await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'x' }], outputSchema: 'nope' })).error?.code).toBe(-32600);
  });
});

describe('turn/steer and turn/interrupt', () => {
  it('adds steer input to the running turn as a second user message of the same turn', async () => {
    const turnId = await startTurn(client, threadId, 'slow: 60');
    await client.waitForNotification('item/agentMessage/delta');
    expect(await client.call('turn/steer', { threadId, expectedTurnId: turnId, input: [{ type: 'text', text: 'and also this' }] })).toEqual({ turnId });
    await turnCompleted(client, turnId);
    const users = client.notifications('item/completed').map((n) => n.params.item as { type: string; content?: Array<{ text: string }> }).filter((i) => i.type === 'userMessage');
    expect(users.map((u) => u.content?.[0]?.text)).toEqual(['slow: 60', 'and also this']);
    expect(client.notifications('turn/started')).toHaveLength(1);
    expect(client.notifications('turn/completed')).toHaveLength(1);
    const mismatch = await client.request('turn/steer', { threadId, expectedTurnId: turnId, input: [{ type: 'text', text: 'late' }] });
    expect(mismatch.error?.message).toBe('no active turn to steer');
  });

  it('answers interrupt at once, then reports idle and an interrupted turn with every item completed', async () => {
    expect(await client.call('turn/interrupt', { threadId, turnId: 'no-such-turn' })).toEqual({});
    const turnId = await startTurn(client, threadId, 'slow: 400');
    await client.waitForNotification('item/agentMessage/delta');
    const wrong = await client.request('turn/interrupt', { threadId, turnId: 'other' });
    expect(wrong.error?.message).toBe(`expected active turn id other but found ${turnId}`);
    expect(await client.call('turn/interrupt', { threadId, turnId })).toEqual({});
    const completed = await turnCompleted(client, turnId);
    expect(completed.params.turn).toMatchObject({ status: 'interrupted', error: null });
    expect(sequence(turnId).slice(-3)).toEqual(['item/completed', 'thread/status/changed', 'turn/completed']);
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'idle' });
    await runTurn(client, threadId, 'after the interrupt');
  });
});

describe('thread/compact/start', () => {
  it('answers {} at once, then runs a turn whose only item is the contextCompaction', async () => {
    await runTurn(client, threadId, 'remember apples');
    const response = await client.request('thread/compact/start', { threadId });
    expect(response).toMatchObject({ result: {} });
    const started = await client.waitUntil(() => client.notifications('turn/started')[1], 'the compaction turn');
    const turnId = (started.params.turn as { id: string }).id;
    const completed = await turnCompleted(client, turnId);
    expect(completed.params.turn).toMatchObject({ status: 'completed', error: null });
    expect(sequence(turnId)).toEqual(['thread/status/changed', 'turn/started', 'item/started', 'item/completed', 'thread/status/changed', 'turn/completed']);
    const items = client.notifications('item/completed').filter((n) => n.params.turnId === turnId).map((n) => n.params.item);
    expect(items).toEqual([{ type: 'contextCompaction', id: expect.any(String) }]);
    // The next turn is sent the summary instead of the earlier conversation.
    await runTurn(client, threadId, 'and now?');
    const sent = JSON.stringify(h.model.requests.at(-1)?.body.input);
    expect(sent).toContain('summarised');
    expect(sent).not.toContain('ECHO: remember apples');
  });
});

describe('thread/compact/start while a turn runs', () => {
  it('is refused, and a compaction turn refuses steer input', async () => {
    await h.close();
    h = await startHarness({ topToml: 'compact_prompt = "slow: 150"' });
    client = await h.connect();
    threadId = (await startThread(client)).id;
    const turnId = await startTurn(client, threadId, 'slow: 100');
    const busy = await client.request('thread/compact/start', { threadId });
    expect(busy.error?.code).toBe(-32600);
    expect(busy.error?.message).toContain(`a turn is already running on thread ${threadId}`);
    await turnCompleted(client, turnId);
    expect(await client.call('thread/compact/start', { threadId })).toEqual({});
    const started = await client.waitUntil(() => client.notifications('turn/started')[1], 'the compaction turn');
    const compactId = (started.params.turn as { id: string }).id;
    const steer = await client.request('turn/steer', { threadId, expectedTurnId: compactId, input: [{ type: 'text', text: 'more' }] });
    expect(steer.error).toEqual({ code: -32600, message: 'the active turn is a compact turn, which cannot be steered' });
    expect((await turnCompleted(client, compactId)).params.turn).toMatchObject({ status: 'completed' });
    const unknown = await client.request('thread/compact/start', { threadId: '00000000-0000-7000-8000-000000000000' });
    expect(unknown.error?.code).toBe(-32600);
  });
});
