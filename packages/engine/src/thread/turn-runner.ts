/**
 * The turn loop: context → user input → model stream → tool calls → again, until the model
 * answers without tools and no steer input waits. It turns model stream events into items,
 * runs tools through the registry with the turn's abort signal, and ends the turn exactly once
 * as completed, interrupted or failed. Failures become a TurnError, never an exception.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem, TokenUsage, TurnError, TurnInfo, UserInput } from '@deputy/protocol';
import type { ModelRequest, ResponseItem } from '../model/types.js';
import { FatalToolError, type ToolContext } from '../tools/types.js';
import { BASE_INSTRUCTIONS } from './base-instructions.js';
import { compactHistory, shouldCompact } from './compaction.js';
import { initialContextItems } from './context.js';
import { runReview } from './review.js';
import type { ActiveTurn, Thread } from './thread.js';
import { contextKeyOf } from './settings.js';
import { recordPendingHistory, runUserShell, settleUserShells } from './user-shell.js';

type ToolCall = Extract<ResponseItem, { type: 'function_call' | 'custom_tool_call' }>;

/**
 * Runs one turn to its end and returns its final info (never throws). A `compact` turn only
 * compacts the history (`input` is empty then); a `userShell` turn only runs the user shell
 * command that is `input`'s text; a `review` turn runs `turn.review` (review.ts).
 */
export async function runTurn(thread: Thread, turn: ActiveTurn, input: UserInput[]): Promise<TurnInfo> {
  const signal = turn.controller.signal;
  const info = (status: TurnInfo['status'], error: TurnError | null, last: string | null): TurnInfo => ({
    id: turn.id,
    status,
    error,
    startedAtMs: turn.startedAtMs,
    completedAtMs: status === 'inProgress' ? null : Date.now(),
    lastAgentMessage: last,
  });
  const model = turn.settings.model;
  thread.emit(turn.id, {
    type: 'turn.started',
    turn: info('inProgress', null, null),
    model,
    modelContextWindow: thread.deps.describeModel(model).contextWindow,
  });
  const state: TurnState = { lastAgentMessage: null, openCalls: new Map(), openItems: new Map(), ended: false };
  const finish = async (final: TurnInfo): Promise<TurnInfo> => {
    // A tool still winding down after an abort must not publish into a finished turn.
    state.ended = true;
    // User shell commands that joined the turn complete before it does; their records and steer
    // input left over (a user shell turn takes it) join the history, as in Codex.
    await settleUserShells(turn);
    recordPendingHistory(thread, turn);
    if (!signal.aborted) for (let next = turn.steerQueue.shift(); next; next = turn.steerQueue.shift()) addUserInput(thread, turn, next);
    const ended: TurnInfo = { ...final, status: final.status === 'completed' && signal.aborted ? 'interrupted' : final.status, completedAtMs: Date.now() };
    thread.emit(turn.id, { type: 'turn.completed', turn: ended });
    return ended;
  };
  let final: TurnInfo;
  let compactedForOverflow = false;
  try {
    if (turn.kind === 'userShell') {
      await runUserShell(thread, turn, input[0]?.type === 'text' ? input[0].text : '');
      return finish(info('completed', null, null));
    }
    if (!thread.deps.describeModel(model).known) {
      thread.emit(turn.id, { type: 'warning', message: `Model metadata for \`${model}\` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.` });
    }
    if (turn.kind === 'compact') {
      await compactHistory(thread, turn);
      return finish(info('completed', null, null));
    }
    if (turn.kind === 'review' && turn.review) {
      const review = await runReview(thread, turn, turn.review);
      return finish(info('completed', null, review));
    }
    injectContext(thread, turn);
    addUserInput(thread, turn, input);
    if (thread.usage) thread.emit(turn.id, { type: 'tokenUsage.updated', usage: thread.usage });
    for (;;) {
      for (let next = turn.steerQueue.shift(); next; next = turn.steerQueue.shift()) addUserInput(thread, turn, next);
      recordPendingHistory(thread, turn);
      if (shouldCompact(thread, turn)) await compactHistory(thread, turn);
      let calls: ToolCall[];
      try {
        calls = await sample(thread, turn, state);
      } catch (error) {
        // A request over the context window: summarise once and try again.
        if (compactedForOverflow || toTurnError(error).code !== 'contextWindowExceeded' || signal.aborted) throw error;
        compactedForOverflow = true;
        await compactHistory(thread, turn);
        continue;
      }
      if (calls.length === 0 && turn.steerQueue.length === 0 && turn.pendingHistory.length === 0) {
        // User shell commands that joined the turn end before it; steer input sent meanwhile
        // still gets an answer in this turn.
        await settleUserShells(turn);
        if (turn.steerQueue.length === 0) break;
      }
      for (const call of calls) await runToolCall(thread, turn, call, state);
    }
    final = info('completed', null, state.lastAgentMessage);
  } catch (error) {
    closeOpenCalls(thread, turn, state.openCalls);
    closeOpenItems(thread, turn, state);
    if (signal.aborted || (error instanceof FatalToolError && error.reason === 'aborted')) {
      final = info('interrupted', null, state.lastAgentMessage);
    } else {
      const turnError = toTurnError(error);
      thread.emit(turn.id, { type: 'error', error: turnError, willRetry: false });
      final = info('failed', turnError, state.lastAgentMessage);
    }
  }
  return finish(final);
}

/** What the loop tracks while a turn runs. */
interface TurnState {
  lastAgentMessage: string | null;
  /** Tool calls recorded without an output yet, with their start time. */
  openCalls: Map<string, number>;
  /** Tool items started but not completed (so an abort can complete them before the turn ends). */
  openItems: Map<string, ThreadItem>;
  ended: boolean;
}

/** Completes tool items an abort cut off, so every item completes before the turn does. */
function closeOpenItems(thread: Thread, turn: ActiveTurn, state: TurnState): void {
  for (const item of state.openItems.values()) {
    const closed: ThreadItem = item.type === 'commandExecution' || item.type === 'fileChange' || item.type === 'mcpToolCall' ? { ...item, status: 'failed' } : item;
    thread.emit(turn.id, { type: 'item.completed', item: closed, atMs: Date.now() });
  }
  state.openItems.clear();
}

/** Sends the context messages when the thread has none yet, or when cwd or a policy changed. */
export function injectContext(thread: Thread, turn: ActiveTurn): void {
  const s = turn.settings;
  const key = contextKeyOf(s);
  if (thread.contextKey === key) return;
  thread.contextKey = key;
  const items = initialContextItems({
    cwd: s.cwd,
    sandbox: s.sandboxPolicy,
    approvalPolicy: s.approvalPolicy,
    developerInstructions: s.developerInstructions,
    projectDocMaxBytes: thread.deps.projectDocMaxBytes,
  });
  for (const item of items) thread.recordHistory(item, turn.id);
}

/** Records user input as a userMessage item and a model message. */
export function addUserInput(thread: Thread, turn: ActiveTurn, input: UserInput[]): void {
  const item: ThreadItem = { type: 'userMessage', id: uuidv4(), content: input.map(withTextElements) };
  const now = Date.now();
  thread.emit(turn.id, { type: 'item.started', item, atMs: now });
  thread.emit(turn.id, { type: 'item.completed', item, atMs: now });
  thread.recordHistory(userMessageItem(input), turn.id);
}

/** The model message for user input. Local images are attached as data URLs when readable. */
export function userMessageItem(input: UserInput[]): ResponseItem {
  const content = input.flatMap((part): Extract<ResponseItem, { type: 'message' }>['content'] => {
    if (part.type === 'text') return [{ type: 'input_text', text: part.text }];
    if (part.type === 'image') return [{ type: 'input_image', image_url: part.url }];
    const url = localImageDataUrl(part.path);
    return url ? [{ type: 'input_image', image_url: url }] : [{ type: 'input_text', text: `<image path="${part.path}" unreadable>` }];
  });
  return { type: 'message', role: 'user', content };
}

function localImageDataUrl(path: string): string | null {
  const mime = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' }[extname(path).toLowerCase()];
  try {
    return mime ? `data:${mime};base64,${readFileSync(path).toString('base64')}` : null;
  } catch {
    return null;
  }
}

function withTextElements(part: UserInput): UserInput {
  return part.type === 'text' ? { ...part, text_elements: part.text_elements ?? [] } : part;
}

/** Builds the model request for the turn's current history. */
export function buildRequest(thread: Thread, turn: ActiveTurn, tools = true): ModelRequest {
  const s = turn.settings;
  const model = thread.deps.describeModel(s.model);
  return {
    model: s.model,
    instructions: s.baseInstructions ?? BASE_INSTRUCTIONS,
    input: [...thread.history],
    tools: tools ? thread.deps.tools.specs(thread.deps.wire) : [],
    reasoning: model.supportsReasoning
      ? { effort: s.reasoningEffort ?? 'medium', ...(model.supportsReasoningSummaries ? { summary: s.reasoningSummary ?? 'auto' } : {}) }
      : null,
    promptCacheKey: thread.id,
    outputSchema: turn.outputSchema,
  };
}

/**
 * Streams one model response, emitting deltas as they arrive; returns the tool calls it made.
 * Finished output items are held until the response completes: when the client retries a broken
 * stream, the failed attempt's partial items are dropped rather than recorded twice.
 */
export async function sample(thread: Thread, turn: ActiveTurn, state: TurnState): Promise<ToolCall[]> {
  const calls: ToolCall[] = [];
  const started = new Map<string, ThreadItem>();
  let done: ResponseItem[] = [];
  const id = (item: { id?: string }) => item.id ?? uuidv4();
  for await (const event of thread.deps.modelClient.stream(buildRequest(thread, turn), turn.controller.signal)) {
    switch (event.type) {
      case 'item.added': {
        const item = event.item;
        let startedItem: ThreadItem | null = null;
        if (item.type === 'message' && item.role === 'assistant') startedItem = { type: 'agentMessage', id: id(item), text: '', phase: null };
        else if (item.type === 'reasoning') startedItem = { type: 'reasoning', id: id(item), summary: [], content: [] };
        if (startedItem) {
          started.set(startedItem.id, startedItem);
          thread.emit(turn.id, { type: 'item.started', item: startedItem, atMs: Date.now() });
        }
        break;
      }
      case 'text.delta':
        thread.emit(turn.id, { type: 'item.delta', itemId: event.itemId, kind: 'agentMessage', delta: event.delta });
        break;
      case 'reasoning.summary.delta':
        thread.emit(turn.id, { type: 'item.delta', itemId: event.itemId, kind: 'reasoningSummary', delta: event.delta, index: event.summaryIndex });
        break;
      case 'reasoning.content.delta':
        thread.emit(turn.id, { type: 'item.delta', itemId: event.itemId, kind: 'reasoningContent', delta: event.delta });
        break;
      case 'item.done':
        done.push(event.item);
        break;
      case 'completed':
        for (const item of done) completeOutputItem(thread, turn, item, started, state, calls);
        done = [];
        if (event.usage) recordUsage(thread, turn, event.usage);
        break;
      case 'retrying':
        done = [];
        started.clear();
        thread.emit(turn.id, { type: 'error', error: event.error, willRetry: true });
        break;
    }
  }
  return calls;
}

function completeOutputItem(
  thread: Thread,
  turn: ActiveTurn,
  item: ResponseItem,
  started: Map<string, ThreadItem>,
  state: TurnState,
  calls: ToolCall[],
): void {
  const now = Date.now();
  if (item.type === 'message' && item.role === 'assistant') {
    const itemId = item.id ?? uuidv4();
    const text = item.content.map((part) => ('text' in part ? part.text : '')).join('');
    if (!started.has(itemId)) thread.emit(turn.id, { type: 'item.started', item: { type: 'agentMessage', id: itemId, text: '', phase: null }, atMs: now });
    thread.recordHistory({ ...item, id: itemId }, turn.id);
    thread.emit(turn.id, { type: 'item.completed', item: { type: 'agentMessage', id: itemId, text, phase: null }, atMs: now });
    state.lastAgentMessage = text;
  } else if (item.type === 'reasoning') {
    const itemId = item.id ?? uuidv4();
    const done: ThreadItem = {
      type: 'reasoning',
      id: itemId,
      summary: item.summary.map((s) => s.text),
      content: (item.content ?? []).map((c) => c.text),
    };
    if (!started.has(itemId)) thread.emit(turn.id, { type: 'item.started', item: { ...done, summary: [], content: [] }, atMs: now });
    thread.recordHistory(item, turn.id);
    thread.emit(turn.id, { type: 'item.completed', item: done, atMs: now });
  } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
    thread.recordHistory(item, turn.id);
    state.openCalls.set(item.call_id, Date.now());
    calls.push(item);
  }
}

/**
 * The context a tool call of `turn` runs with: its events go to the thread (tracked in `openItems`
 * until they complete) unless `isEnded()` says the turn is over.
 */
export function toolContext(thread: Thread, turn: ActiveTurn, call: ToolCall, openItems: Map<string, ThreadItem>, isEnded: () => boolean): ToolContext {
  return {
    signal: turn.controller.signal,
    threadId: thread.id,
    turnId: turn.id,
    callId: call.call_id,
    cwd: turn.settings.cwd,
    sandbox: turn.settings.sandboxPolicy,
    approvalPolicy: turn.settings.approvalPolicy,
    toolState: turn.toolState,
    emit: (event) => {
      if (isEnded()) return;
      if (event.type === 'item.started') openItems.set(event.item.id, event.item);
      if (event.type === 'item.completed') openItems.delete(event.item.id);
      thread.emit(turn.id, event);
    },
    requestApproval: (request) => thread.requestApproval(turn.id, request, turn.controller.signal),
  };
}

/** Runs one tool call and records its output for the model. */
async function runToolCall(thread: Thread, turn: ActiveTurn, call: ToolCall, state: TurnState): Promise<void> {
  const ctx = toolContext(thread, turn, call, state.openItems, () => state.ended);
  const raw = call.type === 'function_call' ? call.arguments : call.input;
  // An interrupt ends the turn at once; the tool's own clean-up (killing a process group) goes on
  // in the background under the same aborted signal.
  const running = thread.deps.tools.dispatch(call.name, raw, ctx);
  running.catch(() => undefined);
  const result = await untilAborted(running, turn.controller.signal);
  state.openCalls.delete(call.call_id);
  const outputType = call.type === 'function_call' ? 'function_call_output' : 'custom_tool_call_output';
  thread.recordHistory({ type: outputType, call_id: call.call_id, output: result.output }, turn.id);
  if (result.images?.length) {
    thread.recordHistory({ type: 'message', role: 'user', content: result.images.map((url) => ({ type: 'input_image' as const, image_url: url })) }, turn.id);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Gives every call that got no output an "aborted" output, so the history stays valid. */
function closeOpenCalls(thread: Thread, turn: ActiveTurn, open: Map<string, number>): void {
  for (const [callId, startedAt] of open) {
    const call = thread.history.find((h) => (h.type === 'function_call' || h.type === 'custom_tool_call') && h.call_id === callId);
    const type = call?.type === 'custom_tool_call' ? 'custom_tool_call_output' : 'function_call_output';
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    thread.recordHistory({ type, call_id: callId, output: `aborted by user after ${seconds}s` }, turn.id);
  }
  open.clear();
}

/** Adds a request's usage to the thread's totals and publishes it. */
export function recordUsage(thread: Thread, turn: ActiveTurn, last: TokenUsage): void {
  const prev = thread.usage?.total;
  const total: TokenUsage = prev
    ? {
        inputTokens: prev.inputTokens + last.inputTokens,
        cachedInputTokens: prev.cachedInputTokens + last.cachedInputTokens,
        outputTokens: prev.outputTokens + last.outputTokens,
        reasoningOutputTokens: prev.reasoningOutputTokens + last.reasoningOutputTokens,
        totalTokens: prev.totalTokens + last.totalTokens,
      }
    : last;
  const modelContextWindow = thread.deps.describeModel(turn.settings.model).contextWindow;
  thread.emit(turn.id, { type: 'tokenUsage.updated', usage: { total, last, modelContextWindow } });
}

/** Maps anything thrown by a turn to a readable TurnError. */
export function toTurnError(error: unknown): TurnError {
  if (error && typeof error === 'object' && 'toTurnError' in error && typeof error.toTurnError === 'function') {
    return error.toTurnError() as TurnError;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, code: 'other', httpStatus: null };
}
