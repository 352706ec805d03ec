/**
 * Auto-compaction: when the next request would pass the model's context limit, the history is
 * summarised by the model (prompt overridable with `compact_prompt`) and replaced by the context
 * messages, a summary message and the current turn's user input. The rollout records a
 * `compacted` line followed by the new history, so a resumed thread continues from the summary.
 */
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem } from '@deputy/protocol';
import { DEFAULT_COMPACT_PROMPT } from './base-instructions.js';
import type { ActiveTurn, Thread } from './thread.js';
import { buildRequest, injectContext, userMessageItem } from './turn-runner.js';

/** Fraction of the context window at which a thread is compacted when no limit is configured. */
export const AUTO_COMPACT_FRACTION = 0.9;

/** Prefix of the message that carries a compaction summary. */
export const SUMMARY_PREFIX = 'Earlier work in this conversation was summarised to save context. Summary:\n\n';

/** Whether the history should be compacted before the next request. */
export function shouldCompact(thread: Thread, turn: ActiveTurn): boolean {
  if (!thread.usage || thread.usageIsStale) return false;
  const window = thread.deps.describeModel(turn.settings.model).contextWindow;
  const limit = thread.deps.autoCompactTokenLimit ?? (window ? Math.floor(window * AUTO_COMPACT_FRACTION) : null);
  return limit !== null && thread.usage.last.totalTokens >= limit;
}

/** Summarises the history with the model and replaces it. */
export async function compactHistory(thread: Thread, turn: ActiveTurn): Promise<void> {
  const item: ThreadItem = { type: 'contextCompaction', id: uuidv4() };
  thread.emit(turn.id, { type: 'item.started', item, atMs: Date.now() });
  const prompt = turn.settings.compactPrompt ?? DEFAULT_COMPACT_PROMPT;
  const request = buildRequest(thread, turn, false);
  request.input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
  let summary = '';
  for await (const event of thread.deps.modelClient.stream(request, turn.controller.signal)) {
    if (event.type === 'item.done' && event.item.type === 'message' && event.item.role === 'assistant') {
      summary += event.item.content.map((part) => ('text' in part ? part.text : '')).join('');
    }
  }
  const currentInput = thread.turns.find((t) => t.info.id === turn.id)?.items.flatMap((i) => (i.type === 'userMessage' ? [i.content] : [])) ?? [];
  thread.deps.rollout.append({ type: 'compacted', payload: { turnId: turn.id, summary } });
  thread.history.length = 0;
  thread.historyTurnIds.length = 0;
  thread.contextKey = null;
  thread.usageIsStale = true;
  injectContext(thread, turn);
  thread.recordHistory({ type: 'message', role: 'user', content: [{ type: 'input_text', text: SUMMARY_PREFIX + summary }] }, turn.id);
  for (const input of currentInput) thread.recordHistory(userMessageItem(input), turn.id);
  thread.emit(turn.id, { type: 'item.completed', item, atMs: Date.now() });
}
