import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../src/scripted-model-server.js';
import { customToolCall, functionCall, reasoning, text, NO_RESPONSE_QUEUED_TEXT } from '../src/scripted-steps.js';
import { functionOutputs, lastUserText, toolNames } from '../src/request-matchers.js';
import { parseSse, postJson, type ParsedEvent } from './sse.js';

type Data = Record<string, unknown>;

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

async function streamResponses(body: Data = {}, path = '/responses'): Promise<ParsedEvent[]> {
  const res = await postJson(`${server.url}${path}`, { model: 'gpt-test', input: [], stream: true, ...body });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  return parseSse(await res.text());
}

const types = (events: ParsedEvent[]): string[] => events.map((e) => e.event ?? '');
const data = (e: ParsedEvent | undefined): Data => (e?.data ?? {}) as Data;

describe('ScriptedModelServer on the Responses wire', () => {
  it('streams a text answer with OpenAI event names, numbered events and several deltas', async () => {
    server.enqueue({ output: [text('hello from the scripted model')] });
    const events = await streamResponses();
    expect(types(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(5).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => data(e)['sequence_number'])).toEqual(events.map((_, i) => i));
    expect(events.every((e) => data(e)['type'] === e.event)).toBe(true);
    const deltas = events.filter((e) => e.event === 'response.output_text.delta').map((e) => data(e)['delta']);
    expect(deltas.join('')).toBe('hello from the scripted model');
    const done = data(events.find((e) => e.event === 'response.output_item.done'));
    expect(done['item']).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello from the scripted model' }] });
    expect(data(events.at(-1))['response']).toMatchObject({ status: 'completed', model: 'gpt-test' });
  });

  it('streams function calls, custom tool calls and reasoning summaries with their delta events', async () => {
    const call = functionCall('exec_command', { cmd: 'echo hi' });
    const patch = customToolCall('apply_patch', '*** Begin Patch\n*** End Patch\n', 'call_patch');
    server.enqueue({ output: [reasoning('thinking about it'), call, patch] });
    const events = await streamResponses();
    const argDeltas = events.filter((e) => e.event === 'response.function_call_arguments.delta').map((e) => data(e)['delta']);
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.join('')).toBe('{"cmd":"echo hi"}');
    const inputDeltas = events.filter((e) => e.event === 'response.custom_tool_call_input.delta').map((e) => data(e)['delta']);
    expect(inputDeltas.join('')).toBe('*** Begin Patch\n*** End Patch\n');
    const summary = events.filter((e) => e.event === 'response.reasoning_summary_text.delta');
    expect(summary.map((e) => data(e)['delta']).join('')).toBe('thinking about it');
    expect(summary.every((e) => data(e)['summary_index'] === 0 && /^rs_\d+$/.test(String(data(e)['item_id'])))).toBe(true);
    expect(types(events)).toContain('response.reasoning_summary_part.added');
    const doneItems = events.filter((e) => e.event === 'response.output_item.done').map((e) => data(e)['item']);
    expect(doneItems).toMatchObject([
      { type: 'reasoning', id: expect.stringMatching(/^rs_\d+$/), summary: [{ type: 'summary_text', text: 'thinking about it' }] },
      { type: 'function_call', call_id: call.callId, name: 'exec_command', arguments: '{"cmd":"echo hi"}' },
      { type: 'custom_tool_call', call_id: 'call_patch', name: 'apply_patch' },
    ]);
    expect(call.callId).toMatch(/^call_\d+$/);
  });

  it('reports usage in response.completed with the detail fields OpenAI sends', async () => {
    server.enqueue({ output: [text('ok')], usage: { input_tokens: 50, cached_tokens: 10, output_tokens: 7, reasoning_tokens: 3 } });
    const events = await streamResponses();
    expect(data(events.at(-1))['response']).toMatchObject({
      usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 10 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 57 },
    });
  });

  it('records method, path, query, headers and the parsed body of each request', async () => {
    server.enqueue({ output: [text('a')] });
    await postJson(`${server.url}/responses?api-version=7`, { model: 'm', stream: true, input: [] }, { 'x-extra': 'yes' }).then((r) => r.text());
    const [req] = await server.waitForRequests(1, 2_000);
    expect(req).toMatchObject({ method: 'POST', path: '/v1/responses', query: { 'api-version': '7' }, wire: 'responses', body: { model: 'm' } });
    expect(req?.headers['x-extra']).toBe('yes');
  });

  it('also accepts /responses without the /v1 prefix', async () => {
    server.enqueue({ output: [text('short path')] });
    const base = server.url.replace(/\/v1$/, '');
    const res = await postJson(`${base}/responses`, { model: 'm', stream: true, input: [] });
    const events = parseSse(await res.text());
    expect(types(events).at(-1)).toBe('response.completed');
  });

  it('asks the handler once the queue is empty and answers a fixed text when there is neither', async () => {
    const noScript = await streamResponses();
    expect(data(noScript.find((e) => e.event === 'response.output_text.done'))['text']).toBe(NO_RESPONSE_QUEUED_TEXT);

    server.setHandler((req) => ({ output: [text(`you said: ${lastUserText(req)}; outputs: ${functionOutputs(req).length}; tools: ${toolNames(req).join(',')}`)] }));
    const events = await streamResponses({
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a\nb' },
      ],
      tools: [{ type: 'function', name: 'exec_command' }, { type: 'custom', name: 'apply_patch' }],
    });
    expect(data(events.find((e) => e.event === 'response.output_text.done'))['text']).toBe('you said: list files; outputs: 1; tools: exec_command,apply_patch');
    expect(server.pendingSteps()).toBe(0);
  });

  it('answers a handler exception with a 500 that names the error', async () => {
    server.setHandler(() => {
      throw new Error('script bug');
    });
    const res = await postJson(`${server.url}/responses`, { model: 'm', stream: true, input: [] });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('script bug');
  });

  it('lists the configured models on GET /v1/models', async () => {
    server.setModels(['gpt-5.2-codex', { id: 'local-model', owned_by: 'me' }]);
    const res = await fetch(`${server.url}/models`);
    expect(await res.json()).toMatchObject({
      object: 'list',
      data: [{ id: 'gpt-5.2-codex', object: 'model' }, { id: 'local-model', owned_by: 'me' }],
    });
  });

  it('rejects waitForRequests when too few requests arrive in time', async () => {
    await expect(server.waitForRequests(1, 20)).rejects.toThrow(/expected 1 requests/);
  });
});
