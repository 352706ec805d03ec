/**
 * TurnCall: one turn run on behalf of a `tools/call`. It streams the turn's events to the request
 * as `codex/event` notifications (in order, all before the result), keeps a progress heartbeat,
 * turns the request's cancellation into an interrupt, answers the turn's approvals through the
 * request (elicitation on 2025-era connections, a paused input-required round on 2026-07-28,
 * the configured fallback without the capability), and builds the result. A call outlives one
 * request on the 2026 era: between rounds it is detached and buffers its events.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalAnswer, Thread } from '@deputy/engine';
import type { EngineEvent, McpElicitationRequest, McpElicitationResponse, ReviewDecision, TurnInfo } from '@deputy/protocol';
import type { CallToolResult, ProgressToken, RequestId } from '@modelcontextprotocol/server';
import {
  approvalMessage,
  approvalSubject,
  DECLINE,
  decisionFromResponse,
  elicitationParams,
  elicitationResponseFrom,
  mcpElicitationParams,
  noApproverDenial,
  type ApprovalRouter,
  type ToolApprovalRequest,
} from './elicitation-approvals.js';
import { errorResult, resultContent } from './app.js';
import type { Logger } from './log.js';
import { ProgressReporter, progressMessage } from './progress.js';
import { projectEvent, type CodexEvent, type McpStartupTracker } from './project-events.js';
import type { McpServerSettings } from './settings.js';

/** How an elicitation sent to a 2025-era client ended. */
export type ElicitOutcome = { kind: 'answered'; result: unknown } | { kind: 'timeout' } | { kind: 'aborted' } | { kind: 'error'; message: string };

/** One `tools/call` request (one round on the 2026 era) the call reports to. */
export interface RequestBinding {
  requestId: RequestId;
  era: 'legacy' | 'modern';
  /** Aborts when the client cancels the request or goes away. */
  signal: AbortSignal;
  progressToken: ProgressToken | undefined;
  /** The client declared the elicitation capability. */
  canElicit: boolean;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** Sends `elicitation/create` on a 2025-era connection. */
  elicit(params: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<ElicitOutcome>;
}

/** What a request round ends with. */
export type CallOutcome =
  | { kind: 'result'; result: CallToolResult }
  /** The client cancelled: the request gets no response. */
  | { kind: 'cancelled' }
  /** 2026 era: ask the client, then expect a retry carrying the answer. */
  | { kind: 'approval'; approvalId: string; message: string };

interface PendingApproval {
  id: string;
  request: ToolApprovalRequest;
  resolve: (decision: ReviewDecision) => void;
  asked: boolean;
  timer: NodeJS.Timeout;
}

/** Options of a call. */
export interface TurnCallOptions {
  thread: Thread;
  /** The turn's id on the wire; null = the engine's turn id (codex-reply). */
  submissionId: string | null;
  settings: McpServerSettings;
  approvals: ApprovalRouter;
  log: Logger;
  /** Events sent before the turn's own (session_configured for `codex`). */
  preamble?: CodexEvent[];
  /** Called once when the turn has ended. */
  onFinish?: (call: TurnCall) => void;
  /** `codex` only: reports the thread's MCP server start-up (mcp_startup_update/complete, id ""). */
  mcpStartup?: McpStartupTracker;
}

const MAX_BUFFERED_EVENTS = 20_000;

/** A turn bound to the request(s) that started it. */
export class TurnCall {
  readonly id = randomUUID();
  readonly thread: Thread;
  #binding: RequestBinding | null = null;
  #progress: ProgressReporter | null = null;
  #buffer: CodexEvent[] = [];
  #sendChain: Promise<void> = Promise.resolve();
  #turnId: string | null = null;
  #info: TurnInfo | null = null;
  #cancelled = false;
  #orphaned = false;
  /** The latest progress line, kept while no request round is attached. */
  #progressLine = 'starting the turn';
  readonly #pending = new Map<string, PendingApproval>();
  #wake: (() => void) | null = null;
  #cleanup: (() => void)[] = [];

  constructor(private readonly options: TurnCallOptions) {
    this.thread = options.thread;
  }

  /** True once the turn has ended. */
  get isDone(): boolean {
    return this.#info !== null;
  }

  /**
   * Starts the turn with `prompt`, reporting to `binding`. Throws the engine's
   * TurnInProgressError when the thread is busy (nothing is sent then).
   */
  start(prompt: string, binding: RequestBinding): void {
    const off = this.thread.events.subscribe((event) => this.#onEvent(event));
    let handle;
    try {
      handle = this.thread.startTurn([{ type: 'text', text: prompt }]);
    } catch (error) {
      off();
      throw error;
    }
    this.#cleanup.push(
      off,
      this.options.approvals.route(
        handle.turnId,
        (request, _origin, signal) => this.#ask(request, signal),
        (request, signal) => this.#elicit(request, signal),
      ),
    );
    this.#turnId = handle.turnId;
    // The preamble goes first although the turn's first events were already buffered.
    this.#buffer.unshift(...(this.options.preamble ?? []));
    this.attach(binding);
    void handle.done.then((info) => this.#finish(info));
  }

  /** Binds the call to a request round: flushes buffered events, starts the heartbeat. */
  attach(binding: RequestBinding): void {
    this.detach();
    this.#binding = binding;
    this.#orphaned = false;
    for (const event of this.#buffer.splice(0)) this.#send(event);
    if (binding.progressToken !== undefined) {
      const token = binding.progressToken;
      this.#progress = new ProgressReporter(
        (progress, message) => this.#enqueue(() => binding.notify('notifications/progress', { progressToken: token, progress, message })),
        this.options.settings.progress_interval_ms,
        this.#progressLine,
      );
      this.#progress.start();
    }
    if (binding.signal.aborted) this.#onAbort(binding);
    else binding.signal.addEventListener('abort', () => this.#onAbort(binding), { once: true });
  }

  /** Unbinds the current request round (its events are buffered until the next round). */
  detach(): void {
    this.#progress?.stop();
    this.#progress = null;
    this.#binding = null;
  }

  /** Waits until the turn ends, or (2026 era) until an approval must be asked. */
  async next(): Promise<CallOutcome> {
    for (;;) {
      const binding = this.#binding;
      if (this.#info) return this.#outcome(this.#info, binding);
      const ask = [...this.#pending.values()].find((p) => !p.asked);
      if (ask && binding?.era === 'modern') {
        ask.asked = true;
        await this.#sendChain;
        this.detach();
        return { kind: 'approval', approvalId: ask.id, message: approvalMessage(ask.request) };
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Settles a paused approval with the client's decision (2026 era). */
  resolveApproval(approvalId: string, decision: ReviewDecision): boolean {
    const pending = this.#pending.get(approvalId);
    if (!pending) return false;
    this.#settle(pending, decision);
    return true;
  }

  /** Marks the call as abandoned: nobody will collect its result. */
  abandon(): void {
    this.#orphaned = true;
    this.detach();
    for (const pending of [...this.#pending.values()]) this.#settle(pending, 'timed_out');
  }

  #onAbort(binding: RequestBinding): void {
    if (this.#binding !== binding || this.#info) return;
    this.#cancelled = true;
    void this.thread.interrupt(this.#turnId ?? undefined).catch(() => undefined);
  }

  #onEvent(event: EngineEvent): void {
    if (event.type === 'mcp.serverStatus' && event.turnId === null) {
      const msgs = this.options.settings.codex_events ? (this.options.mcpStartup?.update(event) ?? []) : [];
      for (const msg of msgs) this.#deliver({ id: '', msg });
      return;
    }
    if (this.#turnId !== null && event.turnId !== this.#turnId) return;
    this.#progressLine = progressMessage(event) ?? this.#progressLine;
    this.#progress?.note(event);
    if (!this.options.settings.codex_events) return;
    const projected = projectEvent(event, { submissionId: this.options.submissionId, nowMs: Date.now(), approvalPolicy: this.thread.settings.approvalPolicy });
    for (const codexEvent of projected) this.#deliver(codexEvent);
  }

  #deliver(codexEvent: CodexEvent): void {
    if (this.#binding) this.#send(codexEvent);
    else if (this.#buffer.length < MAX_BUFFERED_EVENTS) this.#buffer.push(codexEvent);
  }

  #send(event: CodexEvent): void {
    const binding = this.#binding;
    if (!binding || !this.options.settings.codex_events) return;
    const params = { _meta: { requestId: binding.requestId, threadId: this.thread.id }, id: event.id, msg: event.msg };
    this.#enqueue(() => binding.notify('codex/event', params));
  }

  /** Keeps notifications in order; a failed send (client gone) never stops the turn. */
  #enqueue(send: () => Promise<void>): void {
    this.#sendChain = this.#sendChain.then(send).catch((error: unknown) => this.options.log.debug(`notification not sent: ${String(error)}`));
  }

  async #ask(request: ToolApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const binding = this.#binding;
    if (this.#orphaned) return 'timed_out';
    if (binding && !binding.canElicit) return this.#fallback(request);
    if (binding?.era === 'legacy') return this.#elicitLegacy(binding, request, signal);
    return new Promise<ReviewDecision>((resolve) => {
      const id = randomUUID();
      const timer = setTimeout(() => this.#settle(pending, 'timed_out'), this.options.settings.approval_timeout_seconds * 1000);
      timer.unref();
      const pending: PendingApproval = { id, request, resolve, asked: false, timer };
      this.#pending.set(id, pending);
      signal.addEventListener('abort', () => this.#settle(pending, 'abort'), { once: true });
      this.#wake?.();
    });
  }

  async #elicitLegacy(binding: RequestBinding, request: ToolApprovalRequest, signal: AbortSignal): Promise<ReviewDecision> {
    const params = elicitationParams(request, {
      threadId: this.thread.id,
      toolCallId: String(binding.requestId),
      eventId: this.options.submissionId ?? this.#turnId ?? '',
    });
    // The approval event must reach the client before the elicitation that answers it.
    await this.#sendChain;
    const outcome = await binding.elicit(params, { signal, timeoutMs: this.options.settings.approval_timeout_seconds * 1000 });
    switch (outcome.kind) {
      case 'answered':
        return decisionFromResponse(outcome.result);
      case 'timeout':
        return 'timed_out';
      case 'aborted':
        return 'abort';
      case 'error':
        this.options.log.info(`approval request failed (${outcome.message}); treating it as denied`);
        return 'denied';
    }
  }

  /**
   * An MCP server's elicitation during this turn: forwarded as `elicitation/create` on a 2025-era
   * connection (timed out as `cancel` after approval_timeout_seconds); declined at once when the
   * client cannot be asked (no capability, 2026-era round trip, no request attached).
   */
  async #elicit(request: McpElicitationRequest, signal: AbortSignal): Promise<McpElicitationResponse> {
    const binding = this.#binding;
    if (this.#orphaned || !binding || binding.era !== 'legacy') return DECLINE;
    if (!binding.canElicit) return this.#elicitFallback(request);
    const params = mcpElicitationParams(request, {
      threadId: this.thread.id,
      toolCallId: String(binding.requestId),
      eventId: this.options.submissionId ?? this.#turnId ?? '',
    });
    await this.#sendChain;
    const outcome = await binding.elicit(params, { signal, timeoutMs: this.options.settings.approval_timeout_seconds * 1000 });
    switch (outcome.kind) {
      case 'answered':
        return elicitationResponseFrom(outcome.result);
      case 'timeout':
      case 'aborted':
        return { action: 'cancel', content: null };
      case 'error':
        this.options.log.info(`elicitation request failed (${outcome.message}); declining it`);
        return DECLINE;
    }
  }

  /** approval_fallback for an elicitation: `approve` accepts only a form without fields; `abort` cancels. */
  #elicitFallback(request: McpElicitationRequest): McpElicitationResponse {
    const fallback = this.options.settings.approval_fallback;
    const properties = (request.requestedSchema as { properties?: Record<string, unknown> } | null)?.properties ?? {};
    const answer: McpElicitationResponse =
      fallback === 'approve' && request.mode === 'form' && Object.keys(properties).length === 0 ? { action: 'accept', content: {} } : fallback === 'abort' ? { action: 'cancel', content: null } : DECLINE;
    if (this.#turnId) {
      this.thread.emit(this.#turnId, {
        type: 'warning',
        message: `The MCP client cannot answer elicitations (it did not declare the elicitation capability), so the ${request.server} MCP server's request was answered ${answer.action} by mcp_server.approval_fallback = "${fallback}".`,
      });
    }
    return answer;
  }

  #fallback(request: ToolApprovalRequest): ApprovalAnswer {
    const fallback = this.options.settings.approval_fallback;
    const decision: ReviewDecision = fallback === 'approve' ? 'approved' : fallback === 'abort' ? 'abort' : 'denied';
    const what = approvalSubject(request);
    if (this.#turnId) {
      this.thread.emit(this.#turnId, {
        type: 'warning',
        message: `The MCP client cannot answer approvals (it did not declare the elicitation capability), so ${what} was ${decision} by mcp_server.approval_fallback = "${fallback}".`,
      });
    }
    return decision === 'denied' ? noApproverDenial(request, 'the MCP client did not declare the elicitation capability, so the server could not ask anyone') : decision;
  }

  #settle(pending: PendingApproval, decision: ReviewDecision): void {
    if (!this.#pending.delete(pending.id)) return;
    clearTimeout(pending.timer);
    if (decision === 'timed_out' && !this.#binding) this.#orphaned = true;
    pending.resolve(decision);
  }

  #finish(info: TurnInfo): void {
    this.#info = info;
    for (const dispose of this.#cleanup.splice(0)) dispose();
    for (const pending of [...this.#pending.values()]) this.#settle(pending, 'abort');
    this.#wake?.();
    this.options.onFinish?.(this);
  }

  /** True when the call ended or was abandoned while no request round was attached. */
  get isUnclaimed(): boolean {
    return this.#binding === null && (this.#orphaned || this.#info !== null);
  }

  async #outcome(info: TurnInfo, binding: RequestBinding | null): Promise<CallOutcome> {
    await this.#sendChain;
    this.detach();
    if (this.#cancelled || binding?.signal.aborted) return { kind: 'cancelled' };
    return { kind: 'result', result: turnResult(this.thread.id, info) };
  }
}

/** The `tools/call` result for a finished turn (docs/mcp-server.md, "Results"). */
export function turnResult(threadId: string, info: TurnInfo): CallToolResult {
  if (info.status === 'completed') {
    const text = info.lastAgentMessage ?? '';
    const structuredContent = { threadId, content: text };
    return { content: resultContent(text, structuredContent), structuredContent };
  }
  const text = info.status === 'failed' ? (info.error?.message ?? 'the turn failed') : 'Turn interrupted';
  return errorResult(text, { threadId, content: text });
}
