/**
 * One tool call, as an ordinary turn and a review run it: the call's context (its events go to
 * the turn, tracked until they complete), the dispatch through the registry under the turn's
 * abort signal, and the completion of items an abort cut off; and the calls of one model
 * response, as an ordinary turn runs them (parallel-capable calls together, every other call
 * alone, outputs handed back in the model's order). Recording the output is the caller's (the
 * thread's history, or a review's own conversation).
 */
import type {
  DynamicToolCallRequest,
  DynamicToolCallResponse,
  McpToolCallApprovalRequest,
  ThreadItem,
  UserInputRequest,
  UserInputResponse,
} from '@deputy/protocol';
import type { ApprovalAnswer } from '../approvals/approval-port.js';
import { v7 as uuidv7 } from 'uuid';
import type { FunctionOutputContent, ResponseItem } from '../model/types.js';
import type { ToolContext, ToolOutput } from '../tools/types.js';
import { raceAbort } from './race-abort.js';
import { requestApprovalWithHooks } from './turn-extensions.js';
import type { ToolCall, TurnScope } from './turn-scope.js';

/**
 * The context a tool call runs with: its events go to the turn (tracked in `openItems` until
 * they complete) unless `isEnded()` says the caller is done with it.
 */
export function toolContext(scope: TurnScope, call: ToolCall, openItems: Map<string, ThreadItem>, isEnded: () => boolean): ToolContext {
  const turn = scope.turn;
  return {
    signal: turn.controller.signal,
    threadId: scope.threadId,
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
      scope.emit(event);
    },
    requestApproval: (request) => requestApprovalWithHooks(scope, request),
    requestMcpApproval: (request, timeoutMs) => askMcpApproval(scope, request, timeoutMs),
    callClientTool: (request) => askClientTool(scope, request),
    requestUserInput: (request) => askUser(scope, request),
    collaborationMode: turn.settings.collaborationMode ?? 'default',
    model: turn.settings.model,
    modelSupportsImages: scope.deps.describeModel(turn.settings.model).supportsImageInput ?? true,
    turnStartedAtMs: turn.startedAtMs,
  };
}

/**
 * Asks the thread's port about an MCP tool call. A port without `requestMcpToolCall` (a front
 * door that does not know the kind yet) declines; an abort or the answer timeout settles as `abort`.
 */
async function askMcpApproval(scope: TurnScope, request: McpToolCallApprovalRequest, timeoutMs = 0): Promise<ApprovalAnswer> {
  const port = scope.deps.approvals;
  const turnSignal = scope.turn.controller.signal;
  if (!port?.requestMcpToolCall) return 'denied';
  const origin = { threadId: scope.threadId, turnId: scope.turn.id, approvalId: uuidv7() };
  // The answer timeout (B2) withdraws the request like an interrupt does, and cancels the call.
  const signal = timeoutMs > 0 ? AbortSignal.any([turnSignal, AbortSignal.timeout(timeoutMs)]) : turnSignal;
  try {
    return await raceAbort(port.requestMcpToolCall(request, origin, signal), signal);
  } catch {
    return signal.aborted ? 'abort' : 'denied';
  }
}

/** Default answer timeout of a client tool call (the reference's): 300 s. */
export const DEFAULT_CLIENT_TOOL_TIMEOUT_MS = 300_000;

/**
 * Asks the thread's port to run a client tool. `cancelled` when the port cannot (no front door
 * support) or nobody is left to answer; `timedOut` when the answer timeout passed (the request is
 * withdrawn like an interrupt withdraws it). Rejects when the turn aborts.
 */
async function askClientTool(scope: TurnScope, request: DynamicToolCallRequest): Promise<DynamicToolCallResponse | 'cancelled' | 'timedOut'> {
  const port = scope.deps.approvals;
  const turnSignal = scope.turn.controller.signal;
  if (!port?.requestDynamicTool) return 'cancelled';
  const timeoutMs = scope.deps.clientToolTimeoutMs ?? DEFAULT_CLIENT_TOOL_TIMEOUT_MS;
  const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : null;
  const signal = timeout ? AbortSignal.any([turnSignal, timeout]) : turnSignal;
  const origin = { threadId: scope.threadId, turnId: scope.turn.id, approvalId: uuidv7() };
  const answer = await raceAbort(port.requestDynamicTool(request, origin, signal), turnSignal).catch((error: unknown) => {
    if (turnSignal.aborted) throw error;
    return null;
  });
  if (answer) return answer;
  return timeout?.aborted ? 'timedOut' : 'cancelled';
}

/**
 * Asks the thread's port for the user's answers: `noUser` when the port cannot ask anyone,
 * `cancelled` when nobody answered. Rejects when the turn aborts.
 */
async function askUser(scope: TurnScope, request: UserInputRequest): Promise<UserInputResponse | 'noUser' | 'cancelled'> {
  const port = scope.deps.approvals;
  const turnSignal = scope.turn.controller.signal;
  if (!port?.requestUserInput) return 'noUser';
  const origin = { threadId: scope.threadId, turnId: scope.turn.id, approvalId: uuidv7() };
  const answer = await raceAbort(port.requestUserInput(request, origin, turnSignal), turnSignal).catch((error: unknown) => {
    if (turnSignal.aborted) throw error;
    return null;
  });
  return answer ?? 'cancelled';
}

/**
 * Runs one tool call; rejects as soon as the turn aborts. The tool's own clean-up (killing a
 * process group) goes on in the background under the same aborted signal, so an interrupt ends
 * the turn at once.
 */
export function runTool(scope: TurnScope, call: ToolCall, openItems: Map<string, ThreadItem>, isEnded: () => boolean): Promise<ToolOutput> {
  const ctx = toolContext(scope, call, openItems, isEnded);
  const running = scope.deps.tools.dispatch(callName(call), call.type === 'function_call' ? call.arguments : call.input, ctx);
  running.catch(() => undefined);
  return raceAbort(running, scope.turn.controller.signal);
}

/** The name a call dispatches under (`<namespace><name>` for a namespaced function call). */
function callName(call: ToolCall): string {
  return call.type === 'function_call' && call.namespace ? call.namespace + call.name : call.name;
}

/** What `runToolCalls` hands back, in the model's call order. */
export interface CallOutcomes {
  /** Runs one call (default: {@link runTool}); the turn wraps it with its hooks. */
  run?(call: ToolCall): Promise<ToolOutput>;
  /** A call's output. */
  output(call: ToolCall, output: ToolOutput): void;
  /** A call that got no output because the calls ended early (an abort, a fatal error). */
  abandoned(call: ToolCall): void;
}

/**
 * Runs the tool calls of one model response. A call whose tool allows parallel calls (an MCP
 * server with `supports_parallel_tool_calls = true`, a read-only MCP tool) runs alongside the other such calls around
 * it; every other call runs alone: after every call before it has ended, and before any call
 * after it starts. Calls start in the model's order and their items start and complete as they
 * really run; `outcomes` gets each output in the model's order. When a call rejects (the turn
 * aborts, a fatal error) no further call starts, outputs already in are still handed back in
 * order, the rest are `abandoned`, and the error is rethrown.
 */
export async function runToolCalls(
  scope: TurnScope,
  calls: readonly ToolCall[],
  openItems: Map<string, ThreadItem>,
  isEnded: () => boolean,
  outcomes: CallOutcomes,
): Promise<void> {
  const signal = scope.turn.controller.signal;
  let stopped = false;
  // handedBack[i] settles once outputs 0..i are handed back: a call that runs alone waits for
  // its predecessor's, a parallel call for that of the last call before it that ran alone.
  const hand: (() => void)[] = [];
  const handedBack = calls.map(() => new Promise<void>((resolve) => hand.push(resolve)));
  let aloneDone: Promise<void> = Promise.resolve();
  const done = new Map<ToolCall, ToolOutput>();
  const runs = calls.map((call, i) => {
    const parallel = scope.deps.tools.supportsParallel?.(callName(call)) ?? false;
    const after = parallel ? aloneDone : (handedBack[i - 1] ?? Promise.resolve());
    if (!parallel) aloneDone = handedBack[i]!;
    const run = after.then(() => {
      if (stopped || signal.aborted) throw new Error('tool calls ended');
      return outcomes.run ? outcomes.run(call) : runTool(scope, call, openItems, isEnded);
    });
    run.then(
      (output) => void done.set(call, output),
      () => undefined,
    );
    return run;
  });
  let next = 0;
  try {
    for (; next < calls.length; next++) {
      outcomes.output(calls[next]!, await runs[next]!);
      hand[next]!();
    }
  } catch (error) {
    stopped = true;
    for (const call of calls.slice(next)) {
      const output = done.get(call);
      if (output) outcomes.output(call, output);
      else outcomes.abandoned(call);
    }
    throw error;
  }
}

/** The output item answering `call`. */
export function toolOutputItem(call: ToolCall, output: string, contentItems?: FunctionOutputContent[]): ResponseItem {
  if (contentItems && call.type === 'function_call') return { type: 'function_call_output', call_id: call.call_id, output: contentItems };
  return { type: call.type === 'function_call' ? 'function_call_output' : 'custom_tool_call_output', call_id: call.call_id, output };
}

/** Completes the tool items an abort cut off (as failed), so every item completes before the turn. */
export function closeOpenItems(scope: TurnScope, openItems: Map<string, ThreadItem>): void {
  for (const item of openItems.values()) {
    const closed: ThreadItem =
      item.type === 'mcpToolCall'
        ? { ...item, status: 'failed', error: 'interrupted' }
        : item.type === 'dynamicToolCall'
          ? { ...item, status: 'failed', success: false, contentItems: [] }
        : item.type === 'commandExecution' || item.type === 'fileChange'
          ? { ...item, status: 'failed' }
          : item;
    scope.emit({ type: 'item.completed', item: closed, atMs: Date.now() });
  }
  openItems.clear();
}
