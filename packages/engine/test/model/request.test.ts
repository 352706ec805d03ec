import { describe, expect, it } from 'vitest';
import { buildChatRequest, toChatMessages } from '../../src/model/chat-request.js';
import { buildResponsesRequest } from '../../src/model/request.js';
import { requestOf } from './helpers.js';

describe('buildResponsesRequest', () => {
  it('sends reasoning null, no include and no text format for a model without reasoning', () => {
    const body = buildResponsesRequest(requestOf({ model: 'gpt-4.1' }));
    expect(body).toMatchObject({ model: 'gpt-4.1', reasoning: null, include: [], store: false, stream: true, tool_choice: 'auto', parallel_tool_calls: false, prompt_cache_key: 'thread-1' });
    expect(body).not.toHaveProperty('text');
  });

  it('leaves the summary out when the model does not support it', () => {
    expect(buildResponsesRequest(requestOf({ reasoning: { effort: 'high' } })).reasoning).toEqual({ effort: 'high' });
    expect(buildResponsesRequest(requestOf({ reasoning: { effort: 'low', summary: 'none' } })).reasoning).toEqual({ effort: 'low' });
  });

  it('asks for strict JSON-schema output when the turn has an output schema', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
    expect(buildResponsesRequest(requestOf({ outputSchema: schema })).text).toEqual({ format: { type: 'json_schema', name: 'output', schema, strict: true } });
  });

  it('drops item ids but keeps reasoning content, encrypted content and message phase', () => {
    const body = buildResponsesRequest(
      requestOf({
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' },
          { type: 'message', id: 'msg_1', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'x' }] },
        ],
      }),
    );
    expect(body.input).toEqual([
      { type: 'reasoning', summary: [], encrypted_content: 'enc' },
      { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'x' }] },
    ]);
  });
});

describe('buildChatRequest', () => {
  it('omits tool fields without tools and carries effort and output schema', () => {
    const schema = { type: 'object' };
    const body = buildChatRequest(requestOf({ reasoning: { effort: 'low' }, outputSchema: schema }));
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
    expect(body.reasoning_effort).toBe('low');
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
  });

  it('sends user images as image_url parts and starts a new assistant message for tool calls after a tool output', () => {
    const messages = toChatMessages('', [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'data:image/png;base64,AAA', detail: 'low' }] },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'a', output: '1' },
      { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA', detail: 'low' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    ]);
  });
});
