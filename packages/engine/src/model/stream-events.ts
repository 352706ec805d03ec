/**
 * Maps Responses API stream events (as the openai SDK yields them) to provider-neutral
 * `ModelStreamEvent`s. One table entry per event type we act on; everything else (argument
 * deltas, part boundaries, lifecycle pings) maps to nothing because the done item carries the
 * final value. Terminal failures (`response.failed`, `response.incomplete`, `error`) map to a
 * typed error for the caller to throw. Pure: no I/O, no state.
 */
import type { TokenUsage } from '@deputy/protocol';
import type { ResponseOutputItem, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import { ModelApiError, ModelResponseFailedError } from './errors.js';
import type { ModelStreamEvent, ResponseContent, ResponseItem } from './types.js';

/** What one raw event means: events to emit, or a failure that ends the response. */
export type StreamEventOutcome = { kind: 'events'; events: ModelStreamEvent[] } | { kind: 'error'; error: ModelApiError };

type EventOf<T extends ResponseStreamEvent['type']> = Extract<ResponseStreamEvent, { type: T }>;
type Mapper<T extends ResponseStreamEvent['type']> = (event: EventOf<T>) => StreamEventOutcome;

const NOTHING: StreamEventOutcome = { kind: 'events', events: [] };
const emit = (...events: ModelStreamEvent[]): StreamEventOutcome => ({ kind: 'events', events });

/** Converts an SDK output item to our `ResponseItem`; null for item kinds Deputy does not use. */
export function toResponseItem(item: ResponseOutputItem): ResponseItem | null {
  switch (item.type) {
    case 'message': {
      const content: ResponseContent[] = item.content.map((part) =>
        part.type === 'output_text' ? { type: 'output_text', text: part.text } : { type: 'output_text', text: part.refusal },
      );
      return { type: 'message', id: item.id, role: 'assistant', content, ...(item.phase ? { phase: item.phase } : {}) };
    }
    case 'function_call':
      return {
        type: 'function_call',
        ...(item.id ? { id: item.id } : {}),
        call_id: item.call_id,
        name: item.name,
        arguments: item.arguments,
        // MCP tools are called inside their server's namespace (the SDK's type lacks the field).
        ...(typeof (item as { namespace?: unknown }).namespace === 'string' ? { namespace: (item as { namespace: string }).namespace } : {}),
      };
    case 'custom_tool_call':
      return { type: 'custom_tool_call', ...(item.id ? { id: item.id } : {}), call_id: item.call_id, name: item.name, input: item.input };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: item.id,
        summary: item.summary.map((s) => ({ type: 'summary_text', text: s.text })),
        ...(item.content ? { content: item.content.map((c) => ({ type: 'reasoning_text' as const, text: c.text })) } : {}),
        ...(item.encrypted_content === undefined ? {} : { encrypted_content: item.encrypted_content }),
      };
    default:
      return null;
  }
}

/** Converts the Responses usage block to `TokenUsage` (null when the provider sent none). */
export function toTokenUsage(usage: ResponseUsage | null | undefined): TokenUsage | null {
  if (usage === null || usage === undefined) return null;
  return {
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage.output_tokens,
    reasoningOutputTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: usage.total_tokens,
  };
}

function itemEvent(type: 'item.added' | 'item.done', raw: ResponseOutputItem): StreamEventOutcome {
  const item = toResponseItem(raw);
  return item === null ? NOTHING : emit({ type, item });
}

/** The table: raw event type → mapping. */
const MAPPERS: { [T in ResponseStreamEvent['type']]?: Mapper<T> } = {
  'response.output_item.added': (e) => itemEvent('item.added', e.item),
  'response.output_item.done': (e) => itemEvent('item.done', e.item),
  'response.output_text.delta': (e) => emit({ type: 'text.delta', itemId: e.item_id, delta: e.delta }),
  'response.refusal.delta': (e) => emit({ type: 'text.delta', itemId: e.item_id, delta: e.delta }),
  'response.reasoning_summary_text.delta': (e) =>
    emit({ type: 'reasoning.summary.delta', itemId: e.item_id, delta: e.delta, summaryIndex: e.summary_index }),
  'response.reasoning_text.delta': (e) => emit({ type: 'reasoning.content.delta', itemId: e.item_id, delta: e.delta }),
  'response.completed': (e) => emit({ type: 'completed', responseId: e.response.id ?? null, usage: toTokenUsage(e.response.usage) }),
  'response.failed': (e) => ({
    kind: 'error',
    error: ModelApiError.fromStreamError(e.response.error ?? { message: 'the provider gave no reason' }),
  }),
  'response.incomplete': (e) => {
    const reason = e.response.incomplete_details?.reason ?? 'unknown';
    return {
      kind: 'error',
      error: new ModelResponseFailedError(`The model stopped before finishing its answer (reason: ${reason}).`, {
        // Deterministic limits (output tokens, content filter) would stop a retry the same way.
        retryable: false,
        providerCode: reason,
      }),
    };
  },
  error: (e) => ({ kind: 'error', error: ModelApiError.fromStreamError({ code: e.code, message: e.message }) }),
};

/** Maps one raw Responses stream event. */
export function mapResponsesStreamEvent(event: ResponseStreamEvent): StreamEventOutcome {
  // The table is keyed by `type`, so the entry found always accepts this event.
  const mapper = MAPPERS[event.type] as Mapper<ResponseStreamEvent['type']> | undefined;
  return mapper === undefined ? NOTHING : mapper(event);
}
