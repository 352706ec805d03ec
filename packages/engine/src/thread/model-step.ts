/**
 * One model step, as every kind of turn takes it: build a request from the turn's scope, stream
 * the response, show what the turn shows of it, hand the finished output items to the caller and
 * count the usage. Finished items are held until the response completes: when the client retries
 * a broken stream, the failed attempt's partial items are dropped rather than handed on twice,
 * and the retry is reported as an `error` event that will be retried. What becomes of the items
 * (the thread's history, a review's own conversation, a compaction summary) is the caller's.
 */
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem, TokenUsage, TurnError } from '@deputy/protocol';
import type { ModelRequest, ResponseItem } from '../model/types.js';
import { BASE_INSTRUCTIONS } from './base-instructions.js';
import type { TurnScope } from './turn-scope.js';

/** What a step shows of the response, and where its finished items go. */
export interface StepView {
  /**
   * Shows the assistant messages and reasoning as items while they stream (item.started when an
   * item is added, then its deltas): the turn's own conversation. Otherwise nothing shows until
   * the response completes.
   */
  readonly isLive: boolean;
  /** Adds the response's usage to the thread's (a compaction's summary request does not). */
  readonly countsUsage: boolean;
  /**
   * Takes the finished output items of a completed response, in order, before its usage is
   * counted; `started` holds the items a live step already showed as started, by id.
   */
  complete(items: readonly ResponseItem[], started: ReadonlyMap<string, ThreadItem>): void;
}

/** Builds the model request for the turn's current history (without tools for a summary request). */
export function buildRequest(scope: TurnScope, tools = true): ModelRequest {
  const s = scope.turn.settings;
  const model = scope.deps.describeModel(s.model);
  return {
    model: s.model,
    instructions: s.baseInstructions ?? BASE_INSTRUCTIONS,
    input: [...scope.history],
    tools: tools ? scope.deps.tools.specs(scope.deps.wire, s.collaborationMode ?? 'default') : [],
    reasoning: model.supportsReasoning
      ? { effort: s.reasoningEffort ?? 'medium', ...(model.supportsReasoningSummaries ? { summary: s.reasoningSummary ?? 'auto' } : {}) }
      : null,
    promptCacheKey: scope.threadId,
    outputSchema: scope.turn.outputSchema,
  };
}

/** Streams one response to `request` under the turn's signal; see the module comment. */
export async function streamStep(scope: TurnScope, request: ModelRequest, view: StepView): Promise<void> {
  const started = new Map<string, ThreadItem>();
  let done: ResponseItem[] = [];
  for await (const event of scope.deps.modelClient.stream(request, scope.turn.controller.signal)) {
    switch (event.type) {
      case 'item.added': {
        if (!view.isLive) break;
        const item = event.item;
        let startedItem: ThreadItem | null = null;
        if (item.type === 'message' && item.role === 'assistant') startedItem = { type: 'agentMessage', id: item.id ?? uuidv4(), text: '', phase: null };
        else if (item.type === 'reasoning') startedItem = { type: 'reasoning', id: item.id ?? uuidv4(), summary: [], content: [] };
        if (startedItem) {
          started.set(startedItem.id, startedItem);
          scope.emit({ type: 'item.started', item: startedItem, atMs: Date.now() });
        }
        break;
      }
      case 'text.delta':
        if (view.isLive) scope.emit({ type: 'item.delta', itemId: event.itemId, kind: 'agentMessage', delta: event.delta });
        break;
      case 'reasoning.summary.delta':
        if (view.isLive) scope.emit({ type: 'item.delta', itemId: event.itemId, kind: 'reasoningSummary', delta: event.delta, index: event.summaryIndex });
        break;
      case 'reasoning.content.delta':
        if (view.isLive) scope.emit({ type: 'item.delta', itemId: event.itemId, kind: 'reasoningContent', delta: event.delta });
        break;
      case 'item.done':
        done.push(event.item);
        break;
      case 'completed':
        view.complete(done, started);
        done = [];
        if (view.countsUsage && event.usage) recordUsage(scope, event.usage);
        break;
      case 'retrying':
        done = [];
        started.clear();
        scope.emit({ type: 'error', error: event.error, willRetry: true });
        break;
    }
  }
}

/** The text of an assistant message (its text parts, joined). */
export function messageText(item: Extract<ResponseItem, { type: 'message' }>): string {
  return item.content.map((part) => ('text' in part ? part.text : '')).join('');
}

/**
 * Shows a finished reasoning item: started (unless a live step showed it already), then `keep`
 * (the history records the item between its start and its completion), then completed.
 */
export function showReasoning(
  scope: TurnScope,
  item: Extract<ResponseItem, { type: 'reasoning' }>,
  started: ReadonlyMap<string, ThreadItem>,
  keep?: (item: ResponseItem) => void,
): void {
  const now = Date.now();
  const shown: ThreadItem = {
    type: 'reasoning',
    id: item.id ?? uuidv4(),
    summary: item.summary.map((s) => s.text),
    content: (item.content ?? []).map((c) => c.text),
  };
  if (!started.has(shown.id)) scope.emit({ type: 'item.started', item: { ...shown, summary: [], content: [] }, atMs: now });
  keep?.(item);
  scope.emit({ type: 'item.completed', item: shown, atMs: now });
}

/** Adds a request's usage to the thread's totals and publishes it. */
export function recordUsage(scope: TurnScope, last: TokenUsage): void {
  const prev = scope.usage?.total;
  const total: TokenUsage = prev
    ? {
        inputTokens: prev.inputTokens + last.inputTokens,
        cachedInputTokens: prev.cachedInputTokens + last.cachedInputTokens,
        outputTokens: prev.outputTokens + last.outputTokens,
        reasoningOutputTokens: prev.reasoningOutputTokens + last.reasoningOutputTokens,
        totalTokens: prev.totalTokens + last.totalTokens,
      }
    : last;
  const modelContextWindow = scope.deps.describeModel(scope.turn.settings.model).contextWindow;
  scope.emit({ type: 'tokenUsage.updated', usage: { total, last, modelContextWindow } });
}

/** Maps anything thrown by a turn to a readable TurnError. */
export function toTurnError(error: unknown): TurnError {
  if (error && typeof error === 'object' && 'toTurnError' in error && typeof error.toTurnError === 'function') {
    return error.toTurnError() as TurnError;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, code: 'other', httpStatus: null };
}
