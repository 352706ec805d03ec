/**
 * Compaction: when the next request would pass the model's context limit (or a request was
 * refused as too long, or the user asked for it), the history is summarised by the model
 * (prompt overridable with `compact_prompt`) and replaced by the context messages, a summary
 * message and the current turn's user input. The rollout records a `compacted` line followed by
 * the new history, so a resumed thread continues from the summary. The summary request is a
 * model step without tools whose usage is not counted; only the thread changes the history.
 * `PreCompact` and `PostCompact` hooks run around it (trigger `manual` or `auto`).
 */
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem } from '@deputy/protocol';
import type { ResponseItem } from '../model/types.js';
import { DEFAULT_COMPACT_PROMPT } from './base-instructions.js';
import { buildRequest, messageText, streamStep } from './model-step.js';
import { contextKeyOf } from './settings.js';
import { contextItems, userMessageItem } from './turn-input.js';
import { loadTurnExtensions, runTurnHooks } from './turn-extensions.js';
import type { TurnScope } from './turn-scope.js';

/** Fraction of the context window at which a thread is compacted when no limit is configured. */
export const AUTO_COMPACT_FRACTION = 0.9;

/** Prefix of the message that carries a compaction summary. */
export const SUMMARY_PREFIX = 'Earlier work in this conversation was summarised to save context. Summary:\n\n';

/** Whether the history should be compacted before the next request. */
export function shouldCompact(scope: TurnScope): boolean {
  const usage = scope.usage;
  if (!usage || scope.usageIsStale) return false;
  const window = scope.deps.describeModel(scope.turn.settings.model).contextWindow;
  const limit = scope.deps.autoCompactTokenLimit ?? (window ? Math.floor(window * AUTO_COMPACT_FRACTION) : null);
  return limit !== null && usage.last.totalTokens >= limit;
}

/** Summarises the history with the model and replaces it, as a `contextCompaction` item. */
export async function compactHistory(scope: TurnScope): Promise<void> {
  await loadTurnExtensions(scope);
  const trigger = scope.turn.kind === 'compact' ? 'manual' : 'auto';
  await runTurnHooks(scope, { event: 'PreCompact', matcherInputs: [trigger], fields: { trigger, custom_instructions: null } });
  const item: ThreadItem = { type: 'contextCompaction', id: uuidv4() };
  scope.emit({ type: 'item.started', item, atMs: Date.now() });
  const prompt = scope.turn.settings.compactPrompt ?? DEFAULT_COMPACT_PROMPT;
  const request = buildRequest(scope, false);
  request.input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
  let summary = '';
  await streamStep(scope, request, {
    isLive: false,
    countsUsage: false,
    complete: (items) => {
      for (const out of items) if (out.type === 'message' && out.role === 'assistant') summary += messageText(out);
    },
  });
  const replacement: ResponseItem[] = [
    ...contextItems(scope),
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: SUMMARY_PREFIX + summary }] },
    ...scope.userInputs().map((input) => userMessageItem(input)),
  ];
  scope.replaceHistory(summary, replacement, contextKeyOf(scope.turn.settings));
  scope.emit({ type: 'item.completed', item, atMs: Date.now() });
  await runTurnHooks(scope, { event: 'PostCompact', matcherInputs: [trigger], fields: { trigger } });
}
