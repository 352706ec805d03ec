import { describe, expect, it } from 'vitest';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { BadRequestError, ContextTooLongError, ModelResponseFailedError, QuotaExceededError, RateLimitedError, ServerError } from '../../src/model/errors.js';
import { mapResponsesStreamEvent, toTokenUsage } from '../../src/model/stream-events.js';

/** Builds a raw event; fixtures carry only the fields the mapping reads plus the ones OpenAI always sends. */
const raw = (event: Record<string, unknown>): ResponseStreamEvent => ({ sequence_number: 1, ...event }) as unknown as ResponseStreamEvent;

const usage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 4 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 2 },
  total_tokens: 15,
};

/** [name, raw event, expected model events]. */
const EVENT_FIXTURES: Array<[string, ResponseStreamEvent, unknown[]]> = [
  ['a text delta', raw({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'hé', logprobs: [] }), [{ type: 'text.delta', itemId: 'msg_1', delta: 'hé' }]],
  ['a refusal delta, shown as text', raw({ type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'no' }), [{ type: 'text.delta', itemId: 'msg_1', delta: 'no' }]],
  [
    'a reasoning summary delta',
    raw({ type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 2, delta: 'plan' }),
    [{ type: 'reasoning.summary.delta', itemId: 'rs_1', delta: 'plan', summaryIndex: 2 }],
  ],
  ['a raw reasoning delta', raw({ type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'hm' }), [{ type: 'reasoning.content.delta', itemId: 'rs_1', delta: 'hm' }]],
  [
    'an added message',
    raw({ type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
    [{ type: 'item.added', item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } }],
  ],
  [
    'a done message with a phase',
    raw({
      type: 'response.output_item.done',
      output_index: 0,
      item: { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', phase: 'final_answer', content: [{ type: 'output_text', text: 'hi', annotations: [] }] },
    }),
    [{ type: 'item.done', item: { type: 'message', id: 'msg_1', role: 'assistant', phase: 'final_answer', content: [{ type: 'output_text', text: 'hi' }] } }],
  ],
  [
    'a done function call',
    raw({ type: 'response.output_item.done', output_index: 0, item: { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' } }),
    [{ type: 'item.done', item: { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' } }],
  ],
  [
    'a done custom tool call',
    raw({ type: 'response.output_item.done', output_index: 0, item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' } }),
    [{ type: 'item.done', item: { type: 'custom_tool_call', id: 'ctc_1', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' } }],
  ],
  [
    'a done reasoning item',
    raw({
      type: 'response.output_item.done',
      output_index: 0,
      item: { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 's' }], content: [{ type: 'reasoning_text', text: 'r' }], encrypted_content: 'enc' },
    }),
    [{ type: 'item.done', item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 's' }], content: [{ type: 'reasoning_text', text: 'r' }], encrypted_content: 'enc' } }],
  ],
  ['a hosted web search item, which Deputy ignores', raw({ type: 'response.output_item.done', output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'completed' } }), []],
  ['response.completed', raw({ type: 'response.completed', response: { id: 'resp_1', usage } }), [{ type: 'completed', responseId: 'resp_1', usage: { inputTokens: 10, cachedInputTokens: 4, outputTokens: 5, reasoningOutputTokens: 2, totalTokens: 15 } }]],
  ['response.completed without usage', raw({ type: 'response.completed', response: { id: 'resp_2', usage: null } }), [{ type: 'completed', responseId: 'resp_2', usage: null }]],
  ['an argument delta (the done item carries the result)', raw({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"' }), []],
  ['a custom tool input delta', raw({ type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: '***' }), []],
  ['response.created', raw({ type: 'response.created', response: { id: 'resp_1' } }), []],
  ['response.in_progress', raw({ type: 'response.in_progress', response: { id: 'resp_1' } }), []],
  ['a content part boundary', raw({ type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } }), []],
  ['an event type from a newer API', raw({ type: 'response.future_thing', x: 1 }), []],
];

/** [name, raw terminal event, expected error class, expected retryable]. */
const FAILURE_FIXTURES: Array<[string, ResponseStreamEvent, new (...args: never[]) => Error, boolean]> = [
  ['response.failed with a server error', raw({ type: 'response.failed', response: { id: 'r', error: { code: 'server_error', message: 'oops' } } }), ModelResponseFailedError, true],
  ['response.failed with a rate limit', raw({ type: 'response.failed', response: { id: 'r', error: { code: 'rate_limit_exceeded', message: 'Please try again in 1.5s.' } } }), RateLimitedError, true],
  ['response.failed with a context overflow', raw({ type: 'response.failed', response: { id: 'r', error: { code: 'context_length_exceeded', message: 'too long' } } }), ContextTooLongError, false],
  ['response.failed with no quota', raw({ type: 'response.failed', response: { id: 'r', error: { code: 'insufficient_quota', message: 'no money' } } }), QuotaExceededError, false],
  ['response.failed with an invalid prompt', raw({ type: 'response.failed', response: { id: 'r', error: { code: 'invalid_prompt', message: 'flagged' } } }), BadRequestError, false],
  ['response.failed when overloaded', raw({ type: 'response.failed', response: { id: 'r', error: { code: 'server_is_overloaded', message: 'busy' } } }), ServerError, true],
  ['response.incomplete', raw({ type: 'response.incomplete', response: { id: 'r', incomplete_details: { reason: 'content_filter' } } }), ModelResponseFailedError, false],
  ['a top-level error event', raw({ type: 'error', code: 'server_error', message: 'bad', param: null }), ModelResponseFailedError, true],
];

describe('mapResponsesStreamEvent', () => {
  it.each(EVENT_FIXTURES)('maps %s', (_name, event, expected) => {
    expect(mapResponsesStreamEvent(event)).toEqual({ kind: 'events', events: expected });
  });

  it.each(FAILURE_FIXTURES)('turns %s into a typed error', (_name, event, errorClass, retryable) => {
    const outcome = mapResponsesStreamEvent(event);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(outcome.error).toBeInstanceOf(errorClass);
    expect(outcome.error.retryable).toBe(retryable);
  });

  it('reads the retry hint of a rate-limited failure', () => {
    const outcome = mapResponsesStreamEvent(FAILURE_FIXTURES[1]![1]);
    expect(outcome.kind === 'error' && outcome.error.retryAfterMs).toBe(1500);
  });
});

describe('toTokenUsage', () => {
  it('defaults missing detail blocks to zero', () => {
    const partial = { input_tokens: 3, output_tokens: 2, total_tokens: 5 } as unknown as Parameters<typeof toTokenUsage>[0];
    expect(toTokenUsage(partial)).toEqual({ inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, reasoningOutputTokens: 0, totalTokens: 5 });
  });
});
