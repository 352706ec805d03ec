/**
 * Contract tests of MCP elicitations forwarded to clients (docs/mcp-client.md "Elicitation") and
 * of the MCP event projection (start-up statuses with the thread id, progress): the real `ClientApprovals`, `Router` and
 * projection with recording connections, every message checked by the wire validator against our
 * schemas and the reference's JSON Schema. (The engine side that calls `requestMcpElicitation` is
 * tested with the engine.)
 */
import type { EngineEvent, McpElicitationRequest } from '@deputy/protocol';
import { AppServer } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { ClientApprovals } from '../src/client-approvals.js';
import type { ConnectionState } from '../src/connection-state.js';
import { createLogger } from '../src/logger.js';
import { createThreadView, projectEvent } from '../src/project/notifications.js';
import { Router } from '../src/router.js';
import { WireValidator } from './support/wire-validator.js';

const THREAD = '01a2288f-4a17-7a12-8e48-295fd22398e3';
const TURN = '01a22888-d2fb-78e2-9b06-e163cf7fe60d';

interface Recorded {
  notes: Array<{ method: string; params: unknown }>;
  requests: Array<{ method: string; params: unknown; id: number; answer(result: unknown): void; fail(error: unknown): void }>;
}

let validator: WireValidator;
let router: Router;
let approvals: ClientApprovals;

/** A connection that records what it is sent and lets the test answer requests. */
function connection(id: number): { state: ConnectionState } & Recorded {
  const rec: Recorded = { notes: [], requests: [] };
  let nextId = 0;
  const state = {
    id,
    isClosed: false,
    subscriptions: new Set<string>(),
    wants: () => true,
    notify(method: string, params: unknown) {
      validator.serverSent({ method, params } as never);
      rec.notes.push({ method, params });
    },
    request(method: string, params: unknown, signal: AbortSignal) {
      const requestId = nextId++;
      validator.serverSent({ id: requestId, method, params } as never);
      const result = new Promise<unknown>((resolve, reject) => {
        rec.requests.push({ method, params, id: requestId, answer: resolve, fail: reject });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      result.catch(() => undefined);
      return { id: requestId, result };
    },
  };
  return { state: state as unknown as ConnectionState, ...rec };
}

beforeEach(() => {
  validator = new WireValidator();
  router = new Router(createLogger('error'));
  approvals = new ClientApprovals(router, createLogger('error'));
  const manager = { events: { subscribe: () => () => undefined }, get: () => ({}) };
  router.attach(manager as never, approvals, { createThreadView, projectEvent });
  router.routeBy(AppServer.serverNotifications);
});

function subscribed(id = 1): ReturnType<typeof connection> {
  const c = connection(id);
  router.addConnection(c.state);
  router.subscribe(THREAD, c.state);
  return c;
}

const form: McpElicitationRequest = {
  kind: 'mcpElicitation',
  server: 'odd',
  message: 'What is your name?',
  mode: 'form',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
  url: null,
  elicitationId: null,
};

describe('mcpServer/elicitation/request', () => {
  it('forwards a form outside a turn, shows waitingOnApproval, relays the accepted content, then resolves', async () => {
    const c = subscribed();
    const answer = approvals.requestMcpElicitation(form, { threadId: THREAD, turnId: null, approvalId: 'e1' }, new AbortController().signal);
    expect(c.notes).toEqual([{ method: 'thread/status/changed', params: { threadId: THREAD, status: { type: 'active', activeFlags: ['waitingOnApproval'] } } }]);
    expect(c.requests.map((r) => [r.method, r.params])).toEqual([
      ['mcpServer/elicitation/request', { threadId: THREAD, turnId: null, serverName: 'odd', _meta: null, message: 'What is your name?', mode: 'form', requestedSchema: form.requestedSchema }],
    ]);
    c.requests[0]?.answer({ action: 'accept', content: { name: 'Direct' } });
    expect(await answer).toEqual({ action: 'accept', content: { name: 'Direct' } });
    expect(c.notes.slice(1)).toEqual([
      { method: 'serverRequest/resolved', params: { threadId: THREAD, requestId: 0 } },
      { method: 'thread/status/changed', params: { threadId: THREAD, status: { type: 'idle' } } },
    ]);
    expect(validator.problems).toEqual([]);
  });

  it('forwards a url elicitation with its id, in place of the schema', async () => {
    const c = subscribed();
    const url: McpElicitationRequest = { ...form, mode: 'url', requestedSchema: null, url: 'https://example.com/x', elicitationId: 'el-1', message: 'Open it' };
    const answer = approvals.requestMcpElicitation(url, { threadId: THREAD, turnId: TURN, approvalId: 'e2' }, new AbortController().signal);
    expect(c.requests[0]?.params).toEqual({ threadId: THREAD, turnId: TURN, serverName: 'odd', _meta: null, message: 'Open it', mode: 'url', url: 'https://example.com/x', elicitationId: 'el-1' });
    c.requests[0]?.answer({ action: 'accept' });
    expect(await answer).toEqual({ action: 'accept', content: {} });
    expect(validator.problems).toEqual([]);
  });

  it.each([
    [{ action: 'decline' }, { action: 'decline', content: null }],
    [{ action: 'cancel', content: { ignored: true } }, { action: 'cancel', content: null }],
    [{ action: 'maybe' }, { action: 'decline', content: null }],
    [{ action: 'accept', content: 'text' }, { action: 'decline', content: null }],
  ])('maps the answer %j to %j', async (result, expected) => {
    const c = subscribed();
    const answer = approvals.requestMcpElicitation(form, { threadId: THREAD, turnId: TURN, approvalId: 'e3' }, new AbortController().signal);
    c.requests[0]?.answer(result);
    expect(await answer).toEqual(expected);
  });

  it('declines on a JSON-RPC error answer', async () => {
    const c = subscribed();
    const answer = approvals.requestMcpElicitation(form, { threadId: THREAD, turnId: TURN, approvalId: 'e4' }, new AbortController().signal);
    c.requests[0]?.fail(new RpcError(-32603, 'no'));
    expect(await answer).toEqual({ action: 'decline', content: null });
  });

  it('cancels at once when nobody is subscribed, and when the turn aborts (with serverRequest/resolved)', async () => {
    expect(await approvals.requestMcpElicitation(form, { threadId: THREAD, turnId: TURN, approvalId: 'e5' }, new AbortController().signal)).toEqual({ action: 'cancel', content: null });
    const c = subscribed();
    const abort = new AbortController();
    const answer = approvals.requestMcpElicitation(form, { threadId: THREAD, turnId: TURN, approvalId: 'e6' }, abort.signal);
    abort.abort(new Error('interrupted'));
    expect(await answer).toEqual({ action: 'cancel', content: null });
    expect(c.notes.map((n) => n.method)).toEqual(['thread/status/changed', 'serverRequest/resolved', 'thread/status/changed']);
    expect(validator.problems).toEqual([]);
  });

  it('goes on with another subscriber when the holder disconnects', async () => {
    const a = subscribed(1);
    const answer = approvals.requestMcpElicitation(form, { threadId: THREAD, turnId: TURN, approvalId: 'e7' }, new AbortController().signal);
    const b = subscribed(2);
    a.requests[0]?.fail(new Error('connection closed'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(b.requests).toHaveLength(1);
    b.requests[0]?.answer({ action: 'decline' });
    expect(await answer).toEqual({ action: 'decline', content: null });
  });
});

describe('the MCP event projection', () => {
  const base = { threadId: THREAD, seq: 1 };

  it('sends every server status change with threadId, also outside a turn (B11)', () => {
    const view = createThreadView(THREAD);
    const event: EngineEvent = { ...base, turnId: null, type: 'mcp.serverStatus', server: 'odd', status: 'failed', error: 'boom' };
    const out = projectEvent(view, event);
    expect(out).toEqual([{ kind: 'notification', method: 'mcpServer/startupStatus/updated', params: { name: 'odd', status: 'failed', error: 'boom', threadId: THREAD } }]);
    for (const o of out) if (o.kind === 'notification') validator.serverSent({ method: o.method, params: o.params } as never);
    expect(validator.problems).toEqual([]);
  });

  it('sends item/mcpToolCall/progress with the server message, else progress/total', () => {
    const view = createThreadView(THREAD);
    const progress = (message: string | null, total: number | null): EngineEvent => ({ ...base, turnId: TURN, type: 'mcp.toolCallProgress', itemId: 'call_1', progress: 3, total, message });
    const messages = [progress('halfway', 10), progress(null, 10), progress(null, null)].flatMap((e) => projectEvent(view, e));
    expect(messages.map((m) => (m.kind === 'notification' ? m.params : m))).toEqual([
      { threadId: THREAD, turnId: TURN, itemId: 'call_1', message: 'halfway' },
      { threadId: THREAD, turnId: TURN, itemId: 'call_1', message: '3/10' },
      { threadId: THREAD, turnId: TURN, itemId: 'call_1', message: '3' },
    ]);
    for (const o of messages) if (o.kind === 'notification') validator.serverSent({ method: o.method, params: o.params } as never);
    expect(validator.problems).toEqual([]);
  });
});
