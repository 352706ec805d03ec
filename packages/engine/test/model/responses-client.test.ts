import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customToolCall, functionCall, reasoning, startDemoModelServer, startScriptedModelServer, text, type ScriptedModelServer } from '@deputy/test-support';
import { createModelClient } from '../../src/model/provider.js';
import { createResponsesClient } from '../../src/model/responses-client.js';
import { collect, ofType, providerFor, requestOf } from './helpers.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

describe('createResponsesClient', () => {
  it('streams an echo answer as item.added, text deltas, item.done and completed', async () => {
    server.enqueue({ output: [text('echo: hello there')] });
    const { events, error } = await collect(createResponsesClient(providerFor(server)));
    expect(error).toBeNull();
    expect(events[0]).toEqual({ type: 'item.added', item: { type: 'message', id: expect.stringMatching(/^msg_/), role: 'assistant', content: [] } });
    const deltas = ofType(events, 'text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta).join('')).toBe('echo: hello there');
    expect(ofType(events, 'item.done')).toEqual([
      { type: 'item.done', item: { type: 'message', id: deltas[0]?.itemId, role: 'assistant', content: [{ type: 'output_text', text: 'echo: hello there' }] } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'completed', responseId: expect.stringMatching(/^resp_/) });
  });

  it('yields function_call and custom_tool_call items with their full arguments and input', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';
    server.enqueue({ output: [functionCall('exec_command', { cmd: 'echo hi' }, 'call_x'), customToolCall('apply_patch', patch, 'call_p')] });
    const { events } = await collect(createResponsesClient(providerFor(server)));
    const added = ofType(events, 'item.added').map((e) => e.item);
    expect(added).toMatchObject([
      { type: 'function_call', call_id: 'call_x', name: 'exec_command', arguments: '' },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '' },
    ]);
    expect(ofType(events, 'item.done').map((e) => e.item)).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_x', name: 'exec_command', arguments: '{"cmd":"echo hi"}' },
      { type: 'custom_tool_call', id: expect.stringMatching(/^ctc_/), call_id: 'call_p', name: 'apply_patch', input: patch },
    ]);
  });

  it('streams reasoning summary deltas with their summary index and keeps encrypted content', async () => {
    server.enqueue({ output: [reasoning('Considering the files first.', 'gAAAA-opaque'), text('done')] });
    const { events } = await collect(createResponsesClient(providerFor(server)));
    const summary = ofType(events, 'reasoning.summary.delta');
    expect(summary.map((d) => d.delta).join('')).toBe('Considering the files first.');
    expect(summary.every((d) => d.summaryIndex === 0 && d.itemId.startsWith('rs_'))).toBe(true);
    expect(ofType(events, 'item.done')[0]?.item).toEqual({
      type: 'reasoning',
      id: summary[0]?.itemId,
      summary: [{ type: 'summary_text', text: 'Considering the files first.' }],
      encrypted_content: 'gAAAA-opaque',
    });
  });

  it('maps usage from response.completed to TokenUsage', async () => {
    server.enqueue({ output: [text('ok')], usage: { input_tokens: 1200, cached_tokens: 1000, output_tokens: 80, reasoning_tokens: 64 } });
    const { events } = await collect(createResponsesClient(providerFor(server)));
    expect(ofType(events, 'completed')[0]?.usage).toEqual({
      inputTokens: 1200,
      cachedInputTokens: 1000,
      outputTokens: 80,
      reasoningOutputTokens: 64,
      totalTokens: 1280,
    });
  });

  it('sends the request body the reference sends, without item ids', async () => {
    server.enqueue({ output: [text('ok')] });
    const request = requestOf({
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call', id: 'fc_9', call_id: 'c9', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c9', output: 'out' },
      ],
      tools: [{ type: 'function', name: 'exec_command', description: 'run', parameters: { type: 'object' }, strict: false }],
      reasoning: { effort: 'medium', summary: 'auto' },
    });
    await collect(createModelClient(providerFor(server)), request);
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/responses');
    expect(req?.body).toEqual({
      model: 'gpt-5.2-codex',
      instructions: 'You are a test.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call', call_id: 'c9', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c9', output: 'out' },
      ],
      tools: [{ type: 'function', name: 'exec_command', description: 'run', parameters: { type: 'object' }, strict: false }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'thread-1',
    });
  });

  it('sends a bearer token when the provider has a key and no Authorization header when it has none', async () => {
    server.enqueue({ output: [text('a')] }, { output: [text('b')] });
    await collect(createResponsesClient(providerFor(server)));
    await collect(createResponsesClient(providerFor(server, { apiKey: null })));
    const [withKey, withoutKey] = server.requests;
    expect(withKey?.headers['authorization']).toBe('Bearer sk-test-key');
    expect(withoutKey?.headers).not.toHaveProperty('authorization');
    expect(withoutKey?.headers).not.toHaveProperty('openai-organization');
  });

  it('sends the provider query parameters and extra headers with every request', async () => {
    server.enqueue({ output: [text('a')] });
    const provider = providerFor(server, { queryParams: { 'api-version': '2025-04-01' }, httpHeaders: { 'X-Deputy-Test': 'yes', 'api-key': 'azure-key' } });
    await collect(createResponsesClient(provider));
    const [req] = server.requests;
    expect(req?.query).toEqual({ 'api-version': '2025-04-01' });
    expect(req?.headers['x-deputy-test']).toBe('yes');
    expect(req?.headers['api-key']).toBe('azure-key');
  });

  it('talks to the offline demo model server without an API key', async () => {
    const demo = await startDemoModelServer({ recordRequests: true });
    try {
      const tools = [
        { type: 'function' as const, name: 'update_plan', description: 'plan', parameters: { type: 'object' }, strict: false },
        { type: 'function' as const, name: 'exec_command', description: 'run', parameters: { type: 'object' }, strict: false },
      ];
      const { events, error } = await collect(createModelClient(providerFor(demo, { id: 'demo', apiKey: null })), requestOf({ model: 'demo', tools }));
      expect(error).toBeNull();
      expect(ofType(events, 'item.done')[0]?.item).toMatchObject({ type: 'function_call', name: 'update_plan' });
      expect(demo.requests[0]?.headers).not.toHaveProperty('authorization');
    } finally {
      await demo.close();
    }
  });
});
