/** Fixture tests of the EngineEvent → notification projection (pure, no server). */
import { describe, expect, it } from 'vitest';
import { AppServer, type EngineEvent, type EngineEventBody } from '@deputy/protocol';
import { createThreadView, projectEvent, type Outbound, type ThreadView } from '../../src/project/notifications.js';

const THREAD = '01a22862-e6c3-7650-8624-c8dd37f909be';
const TURN = '01a22863-5e25-7270-a473-b5a225c7a0d5';
const NOW = 1_795_973_930_581;

let seq = 0;
function ev(body: EngineEventBody, turnId: string | null = TURN): EngineEvent {
  return { ...body, threadId: THREAD, turnId, seq: ++seq } as EngineEvent;
}

function run(view: ThreadView, events: EngineEvent[]): Outbound[] {
  const out = events.flatMap((e) => projectEvent(view, e, NOW));
  for (const o of out) if (o.kind === 'notification') AppServer.serverNotifications[o.method].params.parse(o.params);
  return out;
}

const methods = (out: Outbound[]) => out.map((o) => (o.kind === 'notification' ? o.method : `resolved:${o.approvalId}`));
const paramsOf = (out: Outbound[], method: string) => out.filter((o) => o.kind === 'notification' && o.method === method).map((o) => (o as { params: Record<string, unknown> }).params);

const turnInfo = { id: TURN, status: 'inProgress' as const, error: null, startedAtMs: 1_795_973_930_532, completedAtMs: null, lastAgentMessage: null };
const started = ev({ type: 'turn.started', turn: turnInfo, model: 'mock-model', modelContextWindow: null });
const done = (status: 'completed' | 'interrupted' | 'failed', error: { message: string; code: 'other'; httpStatus: null } | null = null) =>
  ev({ type: 'turn.completed', turn: { ...turnInfo, status, error, completedAtMs: 1_795_973_930_581 } });
const user = { type: 'userMessage' as const, id: 'u1', content: [{ type: 'text' as const, text: 'hi', text_elements: [] }] };
const agent = (text: string) => ({ type: 'agentMessage' as const, id: 'msg_1', text, phase: null });
const command = {
  type: 'commandExecution' as const,
  id: 'call_1',
  command: "/bin/bash -lc 'touch a && echo done'",
  argv: ['/bin/bash', '-lc', 'touch a && echo done'],
  cwd: '/work',
  processId: null,
  status: 'inProgress' as const,
  aggregatedOutput: null,
  exitCode: null,
  durationMs: null,
};

describe('a text turn', () => {
  it('maps to status, turn, item and delta notifications with times in seconds and ms', () => {
    const view = createThreadView(THREAD);
    const out = run(view, [
      started,
      ev({ type: 'item.started', item: user, atMs: 1 }),
      ev({ type: 'item.completed', item: user, atMs: 2 }),
      ev({ type: 'item.started', item: agent(''), atMs: 3 }),
      ev({ type: 'item.delta', itemId: 'msg_1', kind: 'agentMessage', delta: 'ECHO: ' }),
      ev({ type: 'item.delta', itemId: 'msg_1', kind: 'agentMessage', delta: 'hi' }),
      ev({ type: 'item.completed', item: agent('ECHO: hi'), atMs: 4 }),
      ev({ type: 'model.item', item: { type: 'message' } }),
      ev({ type: 'tokenUsage.updated', usage: { total: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0, totalTokens: 2 }, last: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0, totalTokens: 2 }, modelContextWindow: null } }),
      done('completed'),
    ]);
    expect(methods(out)).toEqual([
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
    expect(paramsOf(out, 'turn/started')[0]?.turn).toEqual({ id: TURN, items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: 1_795_973_930, completedAt: null, durationMs: null, rootTurnId: null });
    expect(paramsOf(out, 'turn/completed')[0]?.turn).toMatchObject({ status: 'completed', completedAt: 1_795_973_930, durationMs: 49 });
    expect(paramsOf(out, 'item/completed')[1]).toEqual({ item: { type: 'agentMessage', id: 'msg_1', text: 'ECHO: hi', phase: null, memoryCitation: null }, threadId: THREAD, turnId: TURN, completedAtMs: 4 });
    expect(view.status).toEqual({ type: 'idle' });
  });

  it('ignores events outside a turn', () => {
    expect(run(createThreadView(THREAD), [ev({ type: 'warning', message: 'x' }, null)])).toEqual([]);
  });
});

describe('approvals', () => {
  it('shows the command item when its approval is asked and does not start it twice', () => {
    const view = createThreadView(THREAD);
    const request = { kind: 'exec' as const, callId: 'call_1', command: command.argv, cwd: '/work', reason: null, proposedPrefixRule: null, isSandboxRetry: false };
    const out = run(view, [
      started,
      ev({ type: 'approval.requested', approvalId: 'ap1', request }),
      ev({ type: 'approval.resolved', approvalId: 'ap1', decision: 'approved' }),
      ev({ type: 'item.started', item: command, atMs: 10 }),
      ev({ type: 'item.completed', item: { ...command, status: 'completed', exitCode: 0, aggregatedOutput: 'done\n', durationMs: 5 }, atMs: 11 }),
      done('completed'),
    ]);
    expect(methods(out).slice(2)).toEqual(['thread/status/changed', 'item/started', 'resolved:ap1', 'thread/status/changed', 'item/completed', 'thread/status/changed', 'turn/completed']);
    const statuses = paramsOf(out, 'thread/status/changed').map((p) => p.status);
    expect(statuses.slice(1, 3)).toEqual([{ type: 'active', activeFlags: ['waitingOnApproval'] }, { type: 'active', activeFlags: [] }]);
    expect(paramsOf(out, 'item/started')[0]?.item).toEqual({
      type: 'commandExecution',
      id: 'call_1',
      command: "/bin/bash -lc 'touch a && echo done'",
      cwd: '/work',
      processId: null,
      source: 'agent',
      status: 'inProgress',
      commandActions: [{ type: 'unknown', command: 'touch a && echo done' }],
      aggregatedOutput: null,
      exitCode: null,
      durationMs: null,
    });
  });

  it('completes a cancelled item as declined before the interrupted turn ends', () => {
    const view = createThreadView(THREAD);
    const request = { kind: 'exec' as const, callId: 'call_1', command: command.argv, cwd: '/work', reason: 'why', proposedPrefixRule: null, isSandboxRetry: false };
    const out = run(view, [started, ev({ type: 'approval.requested', approvalId: 'ap1', request }), ev({ type: 'approval.resolved', approvalId: 'ap1', decision: 'abort' }), done('interrupted')]);
    expect(methods(out).slice(-3)).toEqual(['item/completed', 'thread/status/changed', 'turn/completed']);
    expect(paramsOf(out, 'item/completed')[0]?.item).toMatchObject({ id: 'call_1', status: 'declined' });
  });
});

describe('endings', () => {
  it('completes a message cut off by an interrupt with the text streamed so far', () => {
    const view = createThreadView(THREAD);
    const out = run(view, [started, ev({ type: 'item.started', item: agent(''), atMs: 3 }), ev({ type: 'item.delta', itemId: 'msg_1', kind: 'agentMessage', delta: 'partial' }), done('interrupted')]);
    expect(paramsOf(out, 'item/completed')[0]?.item).toMatchObject({ type: 'agentMessage', text: 'partial' });
    expect(paramsOf(out, 'item/completed')[0]?.completedAtMs).toBe(NOW);
  });

  it('reports a failure as systemError then error, and sends no idle after it', () => {
    const view = createThreadView(THREAD);
    const error = { message: 'upstream 502', code: 'connectionFailed' as const, httpStatus: 502 };
    const out = run(view, [started, ev({ type: 'error', error, willRetry: true }), ev({ type: 'error', error, willRetry: false }), done('failed')]);
    expect(methods(out).slice(2)).toEqual(['error', 'thread/status/changed', 'error', 'turn/completed']);
    expect(paramsOf(out, 'error')[1]).toEqual({
      error: { message: 'upstream 502', codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 502 } }, additionalDetails: null },
      willRetry: false,
      threadId: THREAD,
      turnId: TURN,
    });
    expect(view.status).toEqual({ type: 'systemError' });
  });
});

describe('tool events', () => {
  it('maps plans, diffs, command output and reasoning parts', () => {
    const view = createThreadView(THREAD);
    const out = run(view, [
      started,
      ev({ type: 'plan.updated', explanation: null, plan: [{ step: 'a', status: 'in_progress' }, { step: 'b', status: 'completed' }] }),
      ev({ type: 'diff.updated', diff: 'diff --git a/x b/x\n' }),
      ev({ type: 'item.delta', itemId: 'call_1', kind: 'commandOutput', delta: 'out', stream: 'stdout' }),
      ev({ type: 'item.delta', itemId: 'rs_1', kind: 'reasoningSummary', delta: 'one', index: 0 }),
      ev({ type: 'item.delta', itemId: 'rs_1', kind: 'reasoningSummary', delta: 'two', index: 1 }),
      ev({ type: 'item.delta', itemId: 'rs_1', kind: 'reasoningContent', delta: 'raw' }),
    ]);
    expect(methods(out).slice(2)).toEqual([
      'turn/plan/updated',
      'turn/diff/updated',
      'item/commandExecution/outputDelta',
      'item/reasoning/summaryTextDelta',
      'item/reasoning/summaryPartAdded',
      'item/reasoning/summaryTextDelta',
      'item/reasoning/textDelta',
    ]);
    expect(paramsOf(out, 'turn/plan/updated')[0]?.plan).toEqual([{ step: 'a', status: 'inProgress' }, { step: 'b', status: 'completed' }]);
    expect(paramsOf(out, 'item/reasoning/summaryPartAdded')[0]).toEqual({ threadId: THREAD, turnId: TURN, itemId: 'rs_1', summaryIndex: 1 });
  });
});
