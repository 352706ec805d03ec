/**
 * The turn loop: every kind of turn starts, runs its body against its `TurnScope` and ends
 * exactly once, as completed, interrupted or failed; failures become a TurnError, never an
 * exception. An ordinary turn goes context → user input → model step → tool calls → again,
 * until the model answers without tools and no steer input or user shell record waits. A
 * compaction, a review and a user shell command are bodies of their own (compaction.ts,
 * review.ts, user-shell.ts). The history changes only through the scope.
 */
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem, TurnError, TurnInfo, UserInput } from '@deputy/protocol';
import type { ResponseItem } from '../model/types.js';
import type { HookOutcome } from '../hooks/hook-runner.js';
import { FatalToolError, type ToolOutput } from '../tools/types.js';
import { compactHistory, shouldCompact } from './compaction.js';
import { buildRequest, messageText, showReasoning, streamStep, toTurnError } from './model-step.js';
import { runReview } from './review.js';
import { closeOpenItems, runTool, runToolCalls, toolOutputItem } from './tool-step.js';
import { addUserInput, injectContext } from './turn-input.js';
import { attachMentionedSkills, hookToolOf, loadTurnExtensions, promptText, recordHookContexts, recordHookPrompt, runTurnHooks } from './turn-extensions.js';
import type { ActiveTurn, ToolCall, TurnScope } from './turn-scope.js';
import { recordPendingHistory, runUserShell, settleUserShells } from './user-shell.js';

/** What the loop tracks while a turn runs. */
interface TurnState {
  lastAgentMessage: string | null;
  /** Tool calls recorded without an output yet, with their start time. */
  openCalls: Map<string, number>;
  /** Tool items started but not completed (so an abort can complete them before the turn ends). */
  openItems: Map<string, ThreadItem>;
  /** Set when the turn ends: a tool still winding down after an abort must not publish into it. */
  ended: boolean;
  /** How many times a blocking `Stop` hook made the turn go on. */
  stopContinuations: number;
}

/** Most times `Stop` hooks may make one turn go on. */
const MAX_STOP_CONTINUATIONS = 8;

/**
 * Runs one turn to its end and returns its final info (never throws). A `compact` turn only
 * compacts the history (`input` is empty then); a `userShell` turn only runs the user shell
 * command that is `input`'s text; a `review` turn runs `turn.review` (review.ts).
 */
export async function runTurn(scope: TurnScope, input: UserInput[]): Promise<TurnInfo> {
  const turn = scope.turn;
  const model = turn.settings.model;
  scope.emit({ type: 'turn.started', turn: info(turn, 'inProgress', null, null), model, modelContextWindow: scope.deps.describeModel(model).contextWindow });
  const state: TurnState = { lastAgentMessage: null, openCalls: new Map(), openItems: new Map(), ended: false, stopContinuations: 0 };
  let final: TurnInfo;
  try {
    final = info(turn, 'completed', null, await runBody(scope, input, state));
  } catch (error) {
    closeOpenCalls(scope, state.openCalls);
    closeOpenItems(scope, state.openItems);
    if (turn.controller.signal.aborted || (error instanceof FatalToolError && error.reason === 'aborted')) {
      final = info(turn, 'interrupted', null, state.lastAgentMessage);
    } else {
      const turnError = toTurnError(error);
      scope.emit({ type: 'error', error: turnError, willRetry: false });
      final = info(turn, 'failed', turnError, state.lastAgentMessage);
    }
  }
  return finish(scope, state, final);
}

/** Runs the body of the turn's kind; resolves with its last agent message. */
async function runBody(scope: TurnScope, input: UserInput[], state: TurnState): Promise<string | null> {
  const turn = scope.turn;
  if (turn.kind === 'userShell') {
    await runUserShell(scope, input[0]?.type === 'text' ? input[0].text : '');
    return null;
  }
  const model = turn.settings.model;
  if (!scope.deps.describeModel(model).known) {
    scope.emit({ type: 'warning', message: `Model metadata for \`${model}\` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.` });
  }
  if (turn.kind === 'compact') {
    await compactHistory(scope);
    return null;
  }
  if (turn.kind === 'review' && turn.review) return runReview(scope, turn.review);
  return runRegular(scope, input, state);
}

/**
 * Ends the turn: user shell commands that joined it complete before it does; their records and
 * steer input left over (a user shell turn takes it) join the history, as in Codex.
 */
async function finish(scope: TurnScope, state: TurnState, final: TurnInfo): Promise<TurnInfo> {
  const turn = scope.turn;
  state.ended = true;
  await settleUserShells(turn);
  recordPendingHistory(scope);
  if (!turn.controller.signal.aborted) addSteerInput(scope);
  const ended: TurnInfo = { ...final, status: final.status === 'completed' && turn.controller.signal.aborted ? 'interrupted' : final.status, completedAtMs: Date.now() };
  scope.emit({ type: 'turn.completed', turn: ended });
  return ended;
}

/** An ordinary turn's loop; resolves with its last agent message. */
async function runRegular(scope: TurnScope, input: UserInput[], state: TurnState): Promise<string | null> {
  const turn = scope.turn;
  await loadTurnExtensions(scope);
  injectContext(scope);
  if (turn.sessionStart) {
    recordHookContexts(scope, await runTurnHooks(scope, { event: 'SessionStart', matcherInputs: [turn.sessionStart], fields: { source: turn.sessionStart } }));
  }
  const submitted = await runTurnHooks(scope, { event: 'UserPromptSubmit', matcherInputs: [], fields: { prompt: promptText(input) } });
  // A blocked (or stopped) prompt goes no further: the model never sees it.
  if (submitted?.block || submitted?.stop) return null;
  addUserInput(scope, input, scope.turn.clientUserMessageId);
  await attachMentionedSkills(scope, input);
  recordHookContexts(scope, submitted);
  if (scope.usage) scope.emit({ type: 'tokenUsage.updated', usage: scope.usage });
  let compactedForOverflow = false;
  for (;;) {
    addSteerInput(scope);
    recordPendingHistory(scope);
    if (shouldCompact(scope)) await compactHistory(scope);
    let calls: ToolCall[];
    try {
      calls = await sample(scope, state);
    } catch (error) {
      // A request over the context window: summarise once and try again.
      if (compactedForOverflow || toTurnError(error).code !== 'contextWindowExceeded' || turn.controller.signal.aborted) throw error;
      compactedForOverflow = true;
      await compactHistory(scope);
      continue;
    }
    if (calls.length === 0 && turn.steerQueue.length === 0 && turn.pendingHistory.length === 0) {
      // User shell commands that joined the turn end before it; steer input sent meanwhile
      // still gets an answer in this turn.
      await settleUserShells(turn);
      if (turn.steerQueue.length === 0) {
        if (await continuesAfterStopHooks(scope, state)) continue;
        break;
      }
    }
    // Calls may overlap (parallel MCP servers); their outputs and hook feedback are recorded in
    // the model's call order.
    const hooked = new Map<ToolCall, HookedCall>();
    let isStopped = false;
    await runToolCalls(scope, calls, state.openItems, () => state.ended, {
      run: async (call) => {
        const run = await runHookedCall(scope, call, state);
        hooked.set(call, run);
        return run.result;
      },
      output: (call, result) => {
        recordToolOutput(scope, call, result, state);
        const run = hooked.get(call);
        if (run) isStopped = recordToolHooks(scope, run) || isStopped;
      },
      abandoned: (call) => closeOpenCall(scope, call.call_id, state.openCalls),
    });
    if (isStopped) break;
  }
  return state.lastAgentMessage;
}

/** Records the steer input waiting for the turn, in order. */
function addSteerInput(scope: TurnScope): void {
  const queue = scope.turn.steerQueue;
  for (let next = queue.shift(); next; next = queue.shift()) addUserInput(scope, next.input, next.clientId);
}

/** The turn's info with `status`. */
function info(turn: ActiveTurn, status: TurnInfo['status'], error: TurnError | null, last: string | null): TurnInfo {
  const completedAtMs = status === 'inProgress' ? null : Date.now();
  return { id: turn.id, status, error, startedAtMs: turn.startedAtMs, completedAtMs, lastAgentMessage: last, rootTurnId: turn.rootTurnId };
}

/**
 * One model step of an ordinary turn: messages and reasoning stream live, and the finished
 * items join the thread's history; returns the tool calls the model made.
 */
async function sample(scope: TurnScope, state: TurnState): Promise<ToolCall[]> {
  const calls: ToolCall[] = [];
  // MCP servers still starting get a short grace; late ones join at a later request.
  await scope.deps.tools.prepare?.(scope.turn.controller.signal);
  await streamStep(scope, buildRequest(scope), {
    isLive: true,
    countsUsage: true,
    complete: (items, started) => {
      for (const item of items) completeOutputItem(scope, item, started, state, calls);
    },
  });
  return calls;
}

function completeOutputItem(scope: TurnScope, item: ResponseItem, started: ReadonlyMap<string, ThreadItem>, state: TurnState, calls: ToolCall[]): void {
  if (item.type === 'message' && item.role === 'assistant') {
    const now = Date.now();
    const itemId = item.id ?? uuidv4();
    const text = messageText(item);
    if (!started.has(itemId)) scope.emit({ type: 'item.started', item: { type: 'agentMessage', id: itemId, text: '', phase: null }, atMs: now });
    scope.record({ ...item, id: itemId });
    scope.emit({ type: 'item.completed', item: { type: 'agentMessage', id: itemId, text, phase: null }, atMs: now });
    state.lastAgentMessage = text;
  } else if (item.type === 'reasoning') {
    showReasoning(scope, item, started, (kept) => scope.record(kept));
  } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
    scope.record(item);
    state.openCalls.set(item.call_id, Date.now());
    calls.push(item);
  }
}

/**
 * Asks the `Stop` hooks whether the turn may end; a block makes it go on with the hook's reason
 * as a prompt (a `hookPrompt` item), at most {@link MAX_STOP_CONTINUATIONS} times.
 */
async function continuesAfterStopHooks(scope: TurnScope, state: TurnState): Promise<boolean> {
  if (state.stopContinuations >= MAX_STOP_CONTINUATIONS) return false;
  const fields = { stop_hook_active: state.stopContinuations > 0, last_assistant_message: state.lastAgentMessage };
  const outcome = await runTurnHooks(scope, { event: 'Stop', matcherInputs: [], fields });
  if (!outcome?.block || outcome.stop) return false;
  state.stopContinuations++;
  recordHookPrompt(scope, outcome.block.runId, outcome.block.reason);
  return true;
}

/** A tool call's result with the outcomes of the hooks around it. */
interface HookedCall {
  result: ToolOutput;
  pre: HookOutcome | null;
  post: HookOutcome | null;
}

/**
 * Runs one tool call with its `PreToolUse` hooks before (a block answers the model instead of
 * running the tool) and its `PostToolUse` hooks after; nothing is recorded here, so calls that
 * overlap still reach the history in order ({@link recordToolHooks}).
 */
async function runHookedCall(scope: TurnScope, call: ToolCall, state: TurnState): Promise<HookedCall> {
  const name = call.type === 'function_call' && call.namespace ? call.namespace + call.name : call.name;
  const tool = hookToolOf(name, call.type === 'function_call' ? call.arguments : call.input);
  const fields = tool ? { tool_name: tool.name, tool_input: tool.input, tool_use_id: call.call_id } : {};
  const pre = tool ? await runTurnHooks(scope, { event: 'PreToolUse', matcherInputs: tool.matcherInputs, fields }) : null;
  if (pre?.block) return { result: { output: `Command blocked by PreToolUse hook: ${pre.block.reason}`, success: false }, pre, post: null };
  const result = await runTool(scope, call, state.openItems, () => state.ended);
  const post = tool ? await runTurnHooks(scope, { event: 'PostToolUse', matcherInputs: tool.matcherInputs, fields: { ...fields, tool_response: result.output } }) : null;
  return { result, pre, post };
}

/** Records a call's hook feedback after its output; true when a `PostToolUse` hook stopped the turn. */
function recordToolHooks(scope: TurnScope, run: HookedCall): boolean {
  recordHookContexts(scope, run.pre);
  if (run.post?.block) scope.record({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: `PostToolUse hook feedback: ${run.post.block.reason}` }] });
  recordHookContexts(scope, run.post);
  return run.post?.stop != null;
}

/** Records a tool call's output (and the images it attached) for the model. */
function recordToolOutput(scope: TurnScope, call: ToolCall, result: ToolOutput, state: TurnState): void {
  state.openCalls.delete(call.call_id);
  scope.record(toolOutputItem(call, result.output, result.contentItems));
  if (result.images?.length && !(result.contentItems && call.type === 'function_call')) {
    scope.record({ type: 'message', role: 'user', content: result.images.map((url) => ({ type: 'input_image' as const, image_url: url })) });
  }
}

/** Gives every call that got no output an "aborted" output, so the history stays valid. */
function closeOpenCalls(scope: TurnScope, open: Map<string, number>): void {
  for (const callId of [...open.keys()]) closeOpenCall(scope, callId, open);
}

/** Gives one open call the "aborted" output. */
function closeOpenCall(scope: TurnScope, callId: string, open: Map<string, number>): void {
  const startedAt = open.get(callId);
  if (startedAt === undefined) return;
  open.delete(callId);
  const call = scope.history.find((h) => (h.type === 'function_call' || h.type === 'custom_tool_call') && h.call_id === callId);
  const type = call?.type === 'custom_tool_call' ? 'custom_tool_call_output' : 'function_call_output';
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  scope.record({ type, call_id: callId, output: `aborted by user after ${seconds}s` });
}
