/**
 * One tool call, as an ordinary turn and a review run it: the call's context (its events go to
 * the turn, tracked until they complete), the dispatch through the registry under the turn's
 * abort signal, and the completion of items an abort cut off. Recording the output is the
 * caller's (the thread's history, or a review's own conversation).
 */
import type { McpToolCallApprovalRequest, ThreadItem } from '@deputy/protocol';
import type { ApprovalAnswer } from '../approvals/approval-port.js';
import { v7 as uuidv7 } from 'uuid';
import type { FunctionOutputContent, ResponseItem } from '../model/types.js';
import type { ToolContext, ToolOutput } from '../tools/types.js';
import { raceAbort } from './race-abort.js';
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
    requestApproval: (request) => scope.requestApproval(request),
    requestMcpApproval: (request, timeoutMs) => askMcpApproval(scope, request, timeoutMs),
    model: turn.settings.model,
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

/**
 * Runs one tool call; rejects as soon as the turn aborts. The tool's own clean-up (killing a
 * process group) goes on in the background under the same aborted signal, so an interrupt ends
 * the turn at once.
 */
export function runTool(scope: TurnScope, call: ToolCall, openItems: Map<string, ThreadItem>, isEnded: () => boolean): Promise<ToolOutput> {
  const ctx = toolContext(scope, call, openItems, isEnded);
  const name = call.type === 'function_call' && call.namespace ? call.namespace + call.name : call.name;
  const running = scope.deps.tools.dispatch(name, call.type === 'function_call' ? call.arguments : call.input, ctx);
  running.catch(() => undefined);
  return raceAbort(running, scope.turn.controller.signal);
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
        : item.type === 'commandExecution' || item.type === 'fileChange'
          ? { ...item, status: 'failed' }
          : item;
    scope.emit({ type: 'item.completed', item: closed, atMs: Date.now() });
  }
  openItems.clear();
}
