/**
 * Client-provided tools over the app-server (docs/extensions.md "Client tools"): the
 * `thread/start.dynamicTools` forms and their checks, what the model is offered, and a model call
 * as `item/tool/call`: answered (text and images back to the model), failed, unanswered (the
 * answer timeout), abandoned by its client, interrupted, and kept by a resumed thread. Every
 * message is checked against 0.130 (the harness) and, for the methods this feature uses, 0.171.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { conversationTail, functionCall, text, type RecordedRequest, type StepHandler } from '@deputy/test-support';
import { harnessPerTest, type Harness } from './support/harness.js';
import { serverMessageProblems } from '../../../packages/protocol/test/support/reference-schema.js';
import { startThread, startTurn, turnCompleted } from './support/turns.js';
import { WireError, type WireClient } from './support/wire-client.js';

const CALL = 'item/tool/call';
const OWNED = new Set(['item/started', 'item/completed', CALL, 'serverRequest/resolved', 'turn/completed']);

/**
 * `tool: NAME {json}` calls a top-level client tool, `nstool: NS NAME {json}` a namespaced one;
 * after a tool output the model answers `TOOL_RESULT: <output text>`.
 */
const script: StepHandler = (request) => {
  const tail = conversationTail(request);
  if (tail.kind === 'tool-output') return { output: [text(`TOOL_RESULT: ${tail.output.output}`)] };
  if (tail.kind !== 'user') return { output: [text('ECHO')] };
  const [verb, ...rest] = tail.text.split(' ');
  if (verb === 'tool:') return { output: [functionCall(rest[0] ?? '', rest.slice(1).join(' ') || '{}')] };
  if (verb === 'nstool:') return { output: [{ ...functionCall(rest[1] ?? '', rest.slice(2).join(' ') || '{}'), namespace: rest[0] ?? '' }] };
  return { output: [text(`ECHO: ${tail.text}`)] };
};

const LOOKUP_SCHEMA = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false };
const LEGACY = [
  { name: 'lookup', description: 'Look up an order', inputSchema: LOOKUP_SCHEMA },
  { name: 'ping', description: 'Ping the IDE', inputSchema: { type: 'object', properties: {} }, namespace: 'ide' },
];
const TAGGED = [
  { type: 'function', name: 'lookup', description: 'Look up an order', inputSchema: LOOKUP_SCHEMA, deferLoading: false },
  {
    type: 'namespace',
    name: 'codex_tui',
    description: 'Tools of the terminal UI.',
    tools: [{ type: 'function', name: 'open_file', description: 'Open a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
  },
];

const harness = harnessPerTest();
let h: Harness;
let client: WireClient;

async function setUp(extraToml = ''): Promise<void> {
  h = await harness({ handler: script, topToml: extraToml });
  client = await h.connect({ capabilities: { experimentalApi: true } });
}

afterEach(() => {
  // The 0.171 check of what this feature sends (the harness checks everything against 0.130).
  const problems = client.received
    .filter((m) => 'method' in m && OWNED.has(m.method))
    .flatMap((m) => serverMessageProblems(m, '0.171'));
  expect(problems).toEqual([]);
});

function toolsOf(request: RecordedRequest): unknown[] {
  return (request.body.tools as unknown[] | undefined) ?? [];
}

function clientTools(request: RecordedRequest): unknown[] {
  const builtIn = new Set(['exec_command', 'write_stdin', 'update_plan', 'apply_patch', 'view_image']);
  return toolsOf(request).filter((t) => !builtIn.has((t as { name: string }).name));
}

function dynamicItem(method: 'item/started' | 'item/completed'): Record<string, unknown> | undefined {
  return client.notifications(method).map((n) => n.params.item as Record<string, unknown>).find((i) => i.type === 'dynamicToolCall');
}

function lastOutput(): unknown {
  const last = h.model.requests.at(-1);
  const items = (last?.body.input as Array<Record<string, unknown>> | undefined) ?? [];
  return items.filter((i) => i.type === 'function_call_output').at(-1)?.output;
}

describe('thread/start.dynamicTools', () => {
  it('offers the 0.130 form to the model as functions and namespaces, with the reference shapes', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: LEGACY });
    await turnCompleted(client, await startTurn(client, id, 'hello'));
    expect(clientTools(h.model.requests[0]!)).toEqual([
      { type: 'function', name: 'lookup', description: 'Look up an order', strict: false, parameters: LOOKUP_SCHEMA },
      {
        type: 'namespace',
        name: 'ide',
        description: 'Tools in the ide namespace.',
        tools: [{ type: 'function', name: 'ping', description: 'Ping the IDE', strict: false, parameters: { type: 'object', properties: {} } }],
      },
    ]);
  });

  it('offers the tagged form (the TUI sends a namespace on every start) with its own description', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: TAGGED });
    await turnCompleted(client, await startTurn(client, id, 'hello'));
    expect(clientTools(h.model.requests[0]!)).toEqual([
      { type: 'function', name: 'lookup', description: 'Look up an order', strict: false, parameters: LOOKUP_SCHEMA },
      {
        type: 'namespace',
        name: 'codex_tui',
        description: 'Tools of the terminal UI.',
        tools: [{ type: 'function', name: 'open_file', description: 'Open a file', strict: false, parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
      },
    ]);
  });

  it.each([
    [[{ name: ' padded', description: '', inputSchema: {} }], 'leading/trailing whitespace'],
    [[{ name: 'has space', description: '', inputSchema: {} }], 'must match'],
    [[{ name: 'mcp__x', description: '', inputSchema: {} }], 'reserved'],
    [[{ name: 'a', description: '', inputSchema: {} }, { type: 'function', name: 'a', description: '', inputSchema: {} }], 'duplicate'],
    [[{ name: 'a', description: '', inputSchema: { type: 'string' } }], 'must describe an object'],
    [[{ name: 'a', description: '', inputSchema: 5 }], 'JSON Schema object'],
    [[{ type: 'namespace', name: 'web', description: 'x', tools: [{ type: 'function', name: 'a', description: '', inputSchema: {} }] }], 'reserved'],
    [[{ type: 'namespace', name: 'ns', description: 'x', tools: [] }], 'at least one tool'],
  ])('refuses a bad tool list with -32600 and keeps serving (%j)', async (tools, message) => {
    await setUp();
    const error = await client.call('thread/start', { dynamicTools: tools }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireError);
    expect(error).toMatchObject({ code: -32600, message: expect.stringContaining(message) });
    await startThread(client);
  });

  it('keeps the tools of a thread that is resumed from its rollout', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: TAGGED });
    await client.call('thread/archive', { threadId: id });
    await client.call('thread/unarchive', { threadId: id });
    await client.call('thread/resume', { threadId: id });
    await turnCompleted(client, await startTurn(client, id, 'hello'));
    expect(clientTools(h.model.requests.at(-1)!).map((t) => (t as { name: string }).name)).toEqual(['lookup', 'codex_tui']);
    const fork = await client.call<{ thread: { id: string } }>('thread/fork', { threadId: id });
    await turnCompleted(client, await startTurn(client, fork.thread.id, 'hello again'));
    expect(clientTools(h.model.requests.at(-1)!).map((t) => (t as { name: string }).name)).toEqual(['lookup', 'codex_tui']);
  });
});

describe('a model call of a client tool', () => {
  it('goes to the client as item/tool/call; its text and images go back to the model', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: TAGGED });
    const turnId = await startTurn(client, id, 'nstool: codex_tui open_file {"path":"a.txt"}');
    const request = await client.waitForServerRequest(CALL);
    expect(request.params).toMatchObject({ threadId: id, turnId, tool: 'open_file', namespace: 'codex_tui', arguments: { path: 'a.txt' } });
    const callId = (request.params as { callId: string }).callId;
    expect(dynamicItem('item/started')).toMatchObject({ id: callId, tool: 'open_file', namespace: 'codex_tui', status: 'inProgress', contentItems: null, success: null });
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    await client.respond(request.id, { contentItems: [{ type: 'inputText', text: 'opened a.txt' }, { type: 'inputImage', imageUrl: image }], success: true });
    const done = await turnCompleted(client, turnId);
    expect(done.params.turn).toMatchObject({ status: 'completed' });
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId: id, requestId: request.id }]);
    expect(dynamicItem('item/completed')).toMatchObject({ id: callId, status: 'completed', success: true, contentItems: [{ type: 'inputText', text: 'opened a.txt' }, { type: 'inputImage', imageUrl: image }] });
    expect(lastOutput()).toEqual([{ type: 'input_text', text: 'opened a.txt' }, { type: 'input_image', image_url: image }]);
    // The item is kept with the thread, under its call id.
    const read = await client.call<{ thread: { turns: Array<{ items: Array<Record<string, unknown>> }> } }>('thread/read', { threadId: id, includeTurns: true });
    expect(read.thread.turns[0]?.items.find((i) => i.type === 'dynamicToolCall')).toMatchObject({ id: callId, status: 'completed', success: true });
  });

  it('tells the model when the client reports a failure', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: LEGACY });
    const turnId = await startTurn(client, id, 'tool: lookup {"id":"42"}');
    const request = await client.waitForServerRequest(CALL);
    expect(request.params).toMatchObject({ tool: 'lookup', namespace: null, arguments: { id: '42' } });
    await client.respond(request.id, { contentItems: [{ type: 'inputText', text: 'no such order' }], success: false });
    await turnCompleted(client, turnId);
    expect(dynamicItem('item/completed')).toMatchObject({ status: 'failed', success: false });
    expect(lastOutput()).toEqual([
      { type: 'input_text', text: 'The client reported that this tool call failed.' },
      { type: 'input_text', text: 'no such order' },
    ]);
  });

  it('fails cleanly when no client answers within the timeout, and withdraws the request', async () => {
    await setUp('dynamic_tool_timeout_sec = 0.3');
    const { id } = await startThread(client, { dynamicTools: LEGACY });
    const turnId = await startTurn(client, id, 'tool: lookup {"id":"1"}');
    const request = await client.waitForServerRequest(CALL);
    const done = await turnCompleted(client, turnId);
    expect(done.params.turn).toMatchObject({ status: 'completed' });
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId: id, requestId: request.id }]);
    expect(dynamicItem('item/completed')).toMatchObject({ status: 'failed', success: false, contentItems: [] });
    expect(lastOutput()).toEqual(expect.stringContaining('dynamic tool call was cancelled before receiving a response'));
  });

  it('fails cleanly when its only client disconnects, and another subscriber can answer instead', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: LEGACY });
    const other = await h.connect({ capabilities: { experimentalApi: true } });
    await other.call('thread/resume', { threadId: id });
    const turnId = await startTurn(client, id, 'tool: lookup {"id":"7"}');
    await client.waitForServerRequest(CALL);
    const second = await other.waitForServerRequest(CALL);
    await client.close();
    await other.respond(second.id, { contentItems: [{ type: 'inputText', text: 'order 7' }], success: true });
    await turnCompleted(other, turnId);
    expect(lastOutput()).toEqual([{ type: 'input_text', text: 'order 7' }]);

    await startTurn(other, id, 'tool: lookup {"id":"8"}');
    await other.waitForServerRequest(CALL, 2);
    await other.close();
    // Nobody is left: the call fails at once and the turn ends without a hang.
    await expect.poll(() => lastOutput(), { timeout: 10_000 }).toEqual('dynamic tool call was cancelled before receiving a response');
    client = other;
  });

  it('is cancelled by an interrupt: the request is resolved and the item fails', async () => {
    await setUp();
    const { id } = await startThread(client, { dynamicTools: LEGACY });
    const turnId = await startTurn(client, id, 'tool: lookup {"id":"9"}');
    const request = await client.waitForServerRequest(CALL);
    await client.call('turn/interrupt', { threadId: id, turnId });
    const done = await turnCompleted(client, turnId);
    expect(done.params.turn).toMatchObject({ status: 'interrupted' });
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId: id, requestId: request.id }]);
    expect(dynamicItem('item/completed')).toMatchObject({ status: 'failed' });
  });
});
