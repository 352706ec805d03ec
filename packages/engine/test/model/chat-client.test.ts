import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customToolCall, functionCall, reasoning, startScriptedModelServer, text, type ScriptedModelServer } from '@deputy/test-support';
import { ModelResponseFailedError, UnauthorizedError } from '../../src/model/errors.js';
import { createChatClient } from '../../src/model/chat-client.js';
import { createModelClient } from '../../src/model/provider.js';
import type { ToolSpec } from '../../src/model/types.js';
import { collect, ofType, providerFor, requestOf } from './helpers.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const chat = (overrides = {}) => createChatClient(providerFor(server, { wireApi: 'chat', ...overrides }));

const TOOLS: ToolSpec[] = [
  { type: 'function', name: 'exec_command', description: 'Run a command.', parameters: { type: 'object', properties: { cmd: { type: 'string' } } }, strict: false },
  { type: 'custom', name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
];

describe('createChatClient', () => {
  it('streams text as one message item with several deltas, then completed with usage', async () => {
    server.enqueue({ output: [text('hello over the chat wire')], usage: { input_tokens: 30, output_tokens: 6, cached_tokens: 4 } });
    const { events, error } = await collect(chat());
    expect(error).toBeNull();
    expect(events[0]).toMatchObject({ type: 'item.added', item: { type: 'message', role: 'assistant', content: [] } });
    const deltas = ofType(events, 'text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta).join('')).toBe('hello over the chat wire');
    expect(ofType(events, 'item.done').map((e) => e.item)).toEqual([
      { type: 'message', id: deltas[0]?.itemId, role: 'assistant', content: [{ type: 'output_text', text: 'hello over the chat wire' }] },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'completed',
      responseId: expect.stringMatching(/^chatcmpl-/),
      usage: { inputTokens: 30, cachedInputTokens: 4, outputTokens: 6, reasoningOutputTokens: 0, totalTokens: 36 },
    });
  });

  it('assembles tool-call argument deltas split across chunks into one function_call item', async () => {
    const args = { cmd: 'grep -rn "needle" src/ | head -20', workdir: '/tmp/work' };
    server.enqueue({ output: [functionCall('exec_command', args, 'call_1')] });
    const { events } = await collect(chat(), requestOf({ tools: TOOLS }));
    expect(ofType(events, 'item.added').map((e) => e.item)).toMatchObject([{ type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '' }]);
    const [done] = ofType(events, 'item.done');
    expect(done?.item).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'exec_command' });
    expect(JSON.parse(done?.item.type === 'function_call' ? done.item.arguments : '')).toEqual(args);
  });

  it('keeps two parallel tool calls apart by index, in order, after the text', async () => {
    server.enqueue({ output: [text('Running two things.'), functionCall('exec_command', { cmd: 'ls' }, 'call_a'), functionCall('exec_command', { cmd: 'pwd' }, 'call_b')] });
    const { events } = await collect(chat(), requestOf({ tools: TOOLS }));
    expect(ofType(events, 'item.done').map((e) => e.item)).toMatchObject([
      { type: 'message', content: [{ text: 'Running two things.' }] },
      { type: 'function_call', call_id: 'call_a', arguments: '{"cmd":"ls"}' },
      { type: 'function_call', call_id: 'call_b', arguments: '{"cmd":"pwd"}' },
    ]);
    const ids = ofType(events, 'item.done').map((e) => ('id' in e.item ? e.item.id : undefined));
    expect(new Set(ids).size).toBe(3);
  });

  it('turns a call of a custom tool back into a custom_tool_call with the raw input', async () => {
    const patch = '*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n';
    server.enqueue({ output: [customToolCall('apply_patch', patch, 'call_p')] });
    const { events } = await collect(chat(), requestOf({ tools: TOOLS }));
    expect(ofType(events, 'item.done')[0]?.item).toMatchObject({ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch });
  });

  it('maps reasoning_content deltas to a reasoning item with raw content', async () => {
    server.enqueue({ output: [reasoning('thinking aloud'), text('answer')] });
    const { events } = await collect(chat());
    expect(ofType(events, 'reasoning.content.delta').map((d) => d.delta).join('')).toBe('thinking aloud');
    expect(ofType(events, 'item.done')[0]?.item).toMatchObject({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'thinking aloud' }] });
  });

  it('sends history as chat messages and tools as functions', async () => {
    server.enqueue({ output: [text('ok')] });
    const request = requestOf({
      instructions: 'Be brief.',
      tools: TOOLS,
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'sandbox: read-only' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'hmm' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: 'PATCH' },
        { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'Success.' },
      ],
    });
    await collect(createModelClient(providerFor(server, { wireApi: 'chat' })), request);
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.body).toMatchObject({
      model: 'gpt-5.2-codex',
      stream: true,
      stream_options: { include_usage: true },
      tool_choice: 'auto',
      parallel_tool_calls: false,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'sandbox: read-only' },
        { role: 'user', content: 'fix it' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } },
            { id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"PATCH"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
        { role: 'tool', tool_call_id: 'c2', content: 'Success.' },
      ],
    });
    const tools = req?.body.tools as { function: { name: string; description: string; parameters: unknown } }[];
    expect(tools.map((t) => t.function.name)).toEqual(['exec_command', 'apply_patch']);
    expect(tools[1]?.function.parameters).toMatchObject({ type: 'object', required: ['input'] });
    expect(tools[1]?.function.description).toContain('start: "x"');
  });

  it('retries a chat stream that drops and fails a truncated answer without retrying', async () => {
    server.enqueue({ fault: 'drop-mid-stream', after: 3 }, { output: [text('whole')] }, { fault: 'incomplete', reason: 'max_output_tokens' });
    const first = await collect(chat());
    expect(first.error).toBeNull();
    expect(ofType(first.events, 'retrying')).toHaveLength(1);
    expect(ofType(first.events, 'item.done').at(-1)?.item).toMatchObject({ content: [{ text: 'whole' }] });
    const second = await collect(chat());
    expect(second.error).toBeInstanceOf(ModelResponseFailedError);
    expect(second.error).toMatchObject({ providerCode: 'max_output_tokens', retryable: false });
  });

  it('maps an error frame in the stream and a 401 to typed errors', async () => {
    server.enqueue({ fault: 'failed', error: { code: 'server_error', message: 'upstream broke' } }, { fault: 'http', status: 401 });
    const failed = await collect(chat({ streamMaxRetries: 0 }));
    expect(failed.error).toBeInstanceOf(ModelResponseFailedError);
    expect((failed.error as Error).message).toContain('upstream broke');
    const unauthorized = await collect(chat());
    expect(unauthorized.error).toBeInstanceOf(UnauthorizedError);
  });

  it('sends no Authorization header when the provider has no key', async () => {
    server.enqueue({ output: [text('local')] });
    await collect(chat({ apiKey: null }));
    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
  });
});
