/**
 * Assembles a Chat Completions stream into the same `ModelStreamEvent`s the Responses wire
 * produces: one message item for the text, one reasoning item for `reasoning_content`, and one
 * function_call (or custom_tool_call, for tools offered as custom) item per tool call, its
 * pieces joined by `index`. Items are announced when they start and completed when the stream
 * finishes; a stream without a finish reason counts as broken. State lives in one assembler
 * per attempt; no I/O.
 */
import type { TokenUsage } from '@deputy/protocol';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ConnectionError, ModelResponseFailedError } from './errors.js';
import type { ModelStreamEvent, ResponseItem } from './types.js';

/** A tool call being assembled. */
interface PendingCall {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
  isAnnounced: boolean;
}

/** Fields some OpenAI-compatible servers add to the delta for raw reasoning. */
type ReasoningDelta = { reasoning_content?: unknown; reasoning?: unknown };

/** Converts chat usage to `TokenUsage`. */
export function chatUsage(usage: CompletionUsage | null | undefined): TokenUsage | null {
  if (usage === null || usage === undefined) return null;
  return {
    inputTokens: usage.prompt_tokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage.completion_tokens,
    reasoningOutputTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: usage.total_tokens,
  };
}

/** Builds events from one chat completion stream. */
export class ChatStreamAssembler {
  private completionId: string | null = null;
  private text: { itemId: string; value: string } | null = null;
  private reasoning: { itemId: string; value: string } | null = null;
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: string | null = null;
  private usage: TokenUsage | null = null;

  /** `customToolNames`: tools offered as custom, whose calls become `custom_tool_call` items. */
  constructor(private readonly customToolNames: ReadonlySet<string>) {}

  /** Consumes one chunk; returns the events it produces. */
  push(chunk: ChatCompletionChunk): ModelStreamEvent[] {
    this.completionId ??= chunk.id || 'chat';
    if (chunk.usage) this.usage = chatUsage(chunk.usage);
    const choice = chunk.choices[0];
    if (choice === undefined) return [];
    const events: ModelStreamEvent[] = [];
    const extra = choice.delta as ReasoningDelta;
    const thought = typeof extra.reasoning_content === 'string' ? extra.reasoning_content : typeof extra.reasoning === 'string' ? extra.reasoning : '';
    if (thought !== '') events.push(...this.appendReasoning(thought));
    if (typeof choice.delta.content === 'string' && choice.delta.content !== '') events.push(...this.appendText(choice.delta.content));
    if (typeof choice.delta.refusal === 'string' && choice.delta.refusal !== '') events.push(...this.appendText(choice.delta.refusal));
    for (const piece of choice.delta.tool_calls ?? []) events.push(...this.appendToolCall(piece));
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** Ends the stream: completes every item and the response, or throws when it did not finish. */
  finish(): ModelStreamEvent[] {
    if (this.finishReason === null) throw new ConnectionError('The model stream closed before the response completed.');
    if (this.finishReason === 'length' || this.finishReason === 'content_filter') {
      const reason = this.finishReason === 'length' ? 'max_output_tokens' : 'content_filter';
      throw new ModelResponseFailedError(`The model stopped before finishing its answer (reason: ${reason}).`, { retryable: false, providerCode: reason });
    }
    const done: ModelStreamEvent[] = [];
    if (this.reasoning !== null) {
      const item: ResponseItem = { type: 'reasoning', id: this.reasoning.itemId, summary: [], content: [{ type: 'reasoning_text', text: this.reasoning.value }] };
      done.push({ type: 'item.done', item });
    }
    if (this.text !== null) done.push({ type: 'item.done', item: this.messageItem(this.text.itemId, this.text.value) });
    for (const call of [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)) {
      done.push({ type: 'item.done', item: this.callItem(call, call.arguments) });
    }
    done.push({ type: 'completed', responseId: this.completionId, usage: this.usage });
    return done;
  }

  private itemId(suffix: string): string {
    return `${this.completionId ?? 'chat'}_${suffix}`;
  }

  private messageItem(id: string, value: string): ResponseItem {
    return { type: 'message', id, role: 'assistant', content: [{ type: 'output_text', text: value }] };
  }

  /** The call as an item; custom tools unwrap `{ input }` (keeping raw text if it is not that JSON). */
  private callItem(call: PendingCall, args: string): ResponseItem {
    if (!this.customToolNames.has(call.name)) {
      return { type: 'function_call', id: call.itemId, call_id: call.callId, name: call.name, arguments: args };
    }
    let input = args;
    try {
      const parsed: unknown = JSON.parse(args);
      if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { input?: unknown }).input === 'string') input = (parsed as { input: string }).input;
    } catch {
      // Partial (item.added) or malformed arguments: pass the raw text on.
    }
    return { type: 'custom_tool_call', id: call.itemId, call_id: call.callId, name: call.name, input: args === '' ? '' : input };
  }

  private appendText(delta: string): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (this.text === null) {
      this.text = { itemId: this.itemId('msg'), value: '' };
      events.push({ type: 'item.added', item: { type: 'message', id: this.text.itemId, role: 'assistant', content: [] } });
    }
    this.text.value += delta;
    events.push({ type: 'text.delta', itemId: this.text.itemId, delta });
    return events;
  }

  private appendReasoning(delta: string): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (this.reasoning === null) {
      this.reasoning = { itemId: this.itemId('rs'), value: '' };
      events.push({ type: 'item.added', item: { type: 'reasoning', id: this.reasoning.itemId, summary: [], content: [] } });
    }
    this.reasoning.value += delta;
    events.push({ type: 'reasoning.content.delta', itemId: this.reasoning.itemId, delta });
    return events;
  }

  private appendToolCall(piece: ChatCompletionChunk.Choice.Delta.ToolCall): ModelStreamEvent[] {
    const call = this.calls.get(piece.index) ?? { itemId: this.itemId(`fc${piece.index}`), callId: '', name: '', arguments: '', isAnnounced: false };
    this.calls.set(piece.index, call);
    if (piece.id) call.callId = piece.id;
    // The name arrives whole (some servers repeat it in every piece), so only the first counts.
    if (piece.function?.name && call.name === '') call.name = piece.function.name;
    if (piece.function?.arguments) call.arguments += piece.function.arguments;
    // Announce once the name is known; some servers send the id and name in separate pieces.
    if (call.isAnnounced || call.name === '') return [];
    call.isAnnounced = true;
    if (call.callId === '') call.callId = call.itemId;
    return [{ type: 'item.added', item: this.callItem(call, '') }];
  }
}
