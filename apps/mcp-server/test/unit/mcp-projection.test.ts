/**
 * The MCP client runtime through the MCP server's front door: the thread's MCP server start-up
 * (`mcp_startup_update` / `mcp_startup_complete`), MCP tool call items (`mcp_tool_call_begin` /
 * `mcp_tool_call_end`), and the elicitation parameters and answers of MCP approvals and of MCP
 * servers' own elicitations. Shapes are Codex 0.130's (`McpStartupUpdateEvent {server, status:
 * {state, error?}}`, `McpStartupCompleteEvent {ready, failed: [{server, error}], cancelled}`,
 * `McpToolCallBeginEvent {call_id, invocation}`, `McpToolCallEndEvent {call_id, invocation,
 * duration, result: {Ok} | {Err}}`); the empty start-up report is checked against the reference's capture.
 */
import { readFileSync } from 'node:fs';
import type { EngineEvent, McpElicitationRequest, McpToolCallApprovalRequest, ThreadItem } from '@deputy/protocol';
import { describe, expect, it } from 'vitest';
import { ApprovalRouter, approvalMessage, decisionFromResponse, elicitationParams, elicitationResponseFrom, mcpElicitationParams } from '../../src/elicitation-approvals.js';
import { McpStartupTracker, projectEvent, projectSessionStart, type ProjectionContext } from '../../src/project-events.js';

/** One real message per type captured from the reference (mcp_startup_complete among them). */
const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/reference-msgs.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;
const CTX: ProjectionContext = { submissionId: '1', nowMs: 1_795_973_847_123, approvalPolicy: 'on-request' };
const item = (patch: Partial<Extract<ThreadItem, { type: 'mcpToolCall' }>>): Extract<ThreadItem, { type: 'mcpToolCall' }> => ({
  type: 'mcpToolCall',
  id: 'call_7',
  server: 'tiny',
  tool: 'plain',
  status: 'inProgress',
  arguments: { text: 'hi' },
  result: null,
  error: null,
  durationMs: null,
  ...patch,
});
const itemEvent = (type: 'item.started' | 'item.completed', it: ThreadItem): EngineEvent => ({ type, item: it, atMs: 5, threadId: 't', turnId: 'turn', seq: 1 }) as EngineEvent;
const SESSION = {
  threadId: 't',
  model: 'm',
  modelProviderId: 'p',
  approvalPolicy: 'never' as const,
  sandboxPolicy: { type: 'danger-full-access' as const },
  cwd: '/ws',
  rolloutPath: null,
  reasoningEffort: null,
};

describe('MCP start-up report', () => {
  it('keeps the empty report of a thread without MCP servers, as the reference captured it', () => {
    const tracker = new McpStartupTracker();
    const events = projectSessionStart(SESSION, tracker.open([]));
    expect(events.map((e) => e.msg.type)).toEqual(['session_configured', 'mcp_startup_complete']);
    expect(events[1]!.msg).toEqual(REFERENCE.mcp_startup_complete);
    expect(events[1]).toEqual({ id: '', msg: { type: 'mcp_startup_complete', ready: [], failed: [], cancelled: [] } });
    expect(tracker.update({ server: 'late', status: 'ready', error: null })).toEqual([]);
  });

  it('reports each change, then completes when every server has left starting', () => {
    const tracker = new McpStartupTracker();
    const opening = tracker.open([
      { server: 'a', status: 'starting', error: null },
      { server: 'b', status: 'starting', error: null },
      { server: 'c', status: 'ready', error: null },
    ]);
    expect(opening).toEqual([
      { type: 'mcp_startup_update', server: 'a', status: { state: 'starting' } },
      { type: 'mcp_startup_update', server: 'b', status: { state: 'starting' } },
      { type: 'mcp_startup_update', server: 'c', status: { state: 'ready' } },
    ]);
    expect(tracker.update({ server: 'a', status: 'starting', error: null })).toEqual([]);
    expect(tracker.update({ server: 'a', status: 'failed', error: 'boom' })).toEqual([{ type: 'mcp_startup_update', server: 'a', status: { state: 'failed', error: 'boom' } }]);
    expect(tracker.update({ server: 'b', status: 'cancelled', error: null })).toEqual([
      { type: 'mcp_startup_update', server: 'b', status: { state: 'cancelled' } },
      { type: 'mcp_startup_complete', ready: ['c'], failed: [{ server: 'a', error: 'boom' }], cancelled: ['b'] },
    ]);
    // Later changes (a crash, a restart) are not start-up.
    expect(tracker.update({ server: 'c', status: 'failed', error: 'exited' })).toEqual([]);
  });

  it('completes at once when every server is already settled, after their updates', () => {
    const msgs = new McpStartupTracker().open([{ server: 'tiny', status: 'ready', error: null }]);
    expect(msgs.map((m) => m.type)).toEqual(['mcp_startup_update', 'mcp_startup_complete']);
    expect(msgs[1]).toEqual({ type: 'mcp_startup_complete', ready: ['tiny'], failed: [], cancelled: [] });
  });

  it('projects no codex/event for the engine events themselves (the tracker reports them)', () => {
    const status = { type: 'mcp.serverStatus', server: 'a', status: 'ready', error: null, threadId: 't', turnId: null, seq: 1 } as EngineEvent;
    expect(projectEvent(status, CTX)).toEqual([]);
    const progress = { type: 'mcp.toolCallProgress', itemId: 'call_7', progress: 1, total: 2, message: null, threadId: 't', turnId: 'turn', seq: 2 } as EngineEvent;
    expect(projectEvent(progress, CTX)).toEqual([]);
  });
});

describe('MCP tool call events', () => {
  const invocation = { server: 'tiny', tool: 'plain', arguments: { text: 'hi' } };

  it('begins with the invocation', () => {
    expect(projectEvent(itemEvent('item.started', item({})), CTX)).toEqual([{ id: '1', msg: { type: 'mcp_tool_call_begin', call_id: 'call_7', invocation } }]);
  });

  it('ends with the duration and Ok(CallToolResult), isError results included', () => {
    const ok = item({ status: 'completed', result: { content: [{ type: 'text', text: 'plain: hi' }], structuredContent: null, _meta: null }, durationMs: 1_250 });
    expect(projectEvent(itemEvent('item.completed', ok), CTX)[0]!.msg).toEqual({
      type: 'mcp_tool_call_end',
      call_id: 'call_7',
      invocation,
      duration: { secs: 1, nanos: 250_000_000 },
      result: { Ok: { content: [{ type: 'text', text: 'plain: hi' }] } },
    });
    const isError = item({ status: 'failed', result: { content: [{ type: 'text', text: 'bad' }], structuredContent: { a: 1 }, _meta: null }, durationMs: 3 });
    expect(projectEvent(itemEvent('item.completed', isError), CTX)[0]!.msg.result).toEqual({ Ok: { content: [{ type: 'text', text: 'bad' }], structuredContent: { a: 1 }, isError: true } });
  });

  it('ends with Err(message) for failures and declines', () => {
    const failed = item({ status: 'failed', error: 'tool call error: timed out', durationMs: 10 });
    expect(projectEvent(itemEvent('item.completed', failed), CTX)[0]!.msg.result).toEqual({ Err: 'tool call error: timed out' });
    const declined = item({ status: 'failed', error: 'user rejected MCP tool call', durationMs: 0 });
    expect(projectEvent(itemEvent('item.completed', declined), CTX)[0]!.msg).toMatchObject({ duration: { secs: 0, nanos: 0 }, result: { Err: 'user rejected MCP tool call' } });
  });
});

const APPROVAL: McpToolCallApprovalRequest = {
  kind: 'mcpToolCall',
  callId: 'call_7',
  server: 'tiny',
  tool: 'plain',
  arguments: { text: 'hi' },
  message: 'Allow the tiny MCP server to run tool "plain"?',
  toolTitle: null,
  toolDescription: 'Echo without annotations',
  canRemember: true,
};
const ORIGIN = { threadId: 't', toolCallId: '1', eventId: '1' };

describe('MCP tool call approvals as elicitations', () => {
  it('asks with the engine message and the call in codex_* fields', () => {
    expect(approvalMessage(APPROVAL)).toBe(APPROVAL.message);
    expect(elicitationParams(APPROVAL, ORIGIN)).toEqual({
      message: 'Allow the tiny MCP server to run tool "plain"?',
      requestedSchema: { type: 'object', properties: {} },
      threadId: 't',
      codex_mcp_tool_call_id: '1',
      codex_event_id: '1',
      codex_call_id: 'call_7',
      codex_elicitation: 'mcp-tool-call-approval',
      codex_mcp_server: 'tiny',
      codex_mcp_tool: 'plain',
      codex_mcp_arguments: { text: 'hi' },
      codex_mcp_tool_description: 'Echo without annotations',
      codex_persist: ['session'],
    });
    expect(elicitationParams({ ...APPROVAL, canRemember: false }, ORIGIN).codex_persist).toEqual([]);
  });

  it('reads decisions, and the app-server style persist=session', () => {
    expect(decisionFromResponse({ action: 'accept', content: {} })).toBe('approved');
    expect(decisionFromResponse({ action: 'accept', content: {}, _meta: { persist: 'session' } })).toBe('approved_for_session');
    expect(decisionFromResponse({ decision: 'approved_for_session' })).toBe('approved_for_session');
    expect(decisionFromResponse({ action: 'decline' })).toBe('denied');
    expect(decisionFromResponse({ action: 'cancel' })).toBe('abort');
  });

  it('routes MCP approvals and elicitations to the turn; without a turn it declines', async () => {
    const router = new ApprovalRouter();
    const signal = new AbortController().signal;
    const origin = { threadId: 't', turnId: 'turn', approvalId: 'a' };
    expect(await router.requestMcpToolCall(APPROVAL, origin, signal)).toMatchObject({ decision: 'denied', note: expect.stringMatching(/the MCP tool call `/i) });
    const stop = router.route(
      'turn',
      async (request) => (request.kind === 'mcpToolCall' ? 'approved_for_session' : 'denied'),
      async () => ({ action: 'accept', content: { name: 'x' } }),
    );
    expect(await router.requestMcpToolCall(APPROVAL, origin, signal)).toBe('approved_for_session');
    expect(await router.requestMcpElicitation(ELICIT, origin, signal)).toEqual({ action: 'accept', content: { name: 'x' } });
    expect(await router.requestMcpElicitation(ELICIT, { ...origin, turnId: null }, signal)).toEqual({ action: 'decline', content: null });
    stop();
    expect(await router.requestMcpElicitation(ELICIT, origin, signal)).toEqual({ action: 'decline', content: null });
  });
});

const ELICIT: McpElicitationRequest = {
  kind: 'mcpElicitation',
  server: 'tiny',
  message: 'What is your name?',
  mode: 'form',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  url: null,
  elicitationId: null,
};

describe("MCP servers' elicitations", () => {
  it("forwards the server's form with codex_* fields", () => {
    expect(mcpElicitationParams(ELICIT, ORIGIN)).toEqual({
      message: 'What is your name?',
      requestedSchema: ELICIT.requestedSchema,
      threadId: 't',
      codex_elicitation: 'mcp-elicitation',
      codex_mcp_server: 'tiny',
      codex_mcp_tool_call_id: '1',
      codex_event_id: '1',
    });
    const url = mcpElicitationParams({ ...ELICIT, mode: 'url', requestedSchema: null, url: 'https://example.test/auth', elicitationId: 'e1' }, ORIGIN);
    expect(url).toMatchObject({ mode: 'url', url: 'https://example.test/auth', elicitationId: 'e1' });
    expect(url).not.toHaveProperty('requestedSchema');
  });

  it('relays accept with content, decline and cancel; anything else declines', () => {
    expect(elicitationResponseFrom({ action: 'accept', content: { name: 'Ada' } })).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(elicitationResponseFrom({ action: 'accept' })).toEqual({ action: 'accept', content: {} });
    expect(elicitationResponseFrom({ action: 'cancel', content: { x: 1 } })).toEqual({ action: 'cancel', content: null });
    expect(elicitationResponseFrom({ action: 'decline' })).toEqual({ action: 'decline', content: null });
    expect(elicitationResponseFrom({ action: 'maybe' })).toEqual({ action: 'decline', content: null });
    expect(elicitationResponseFrom(null)).toEqual({ action: 'decline', content: null });
  });
});
