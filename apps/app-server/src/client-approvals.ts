/**
 * The engine's `ApprovalPort`, answered by clients (docs/app-server.md "Approvals"): each request
 * goes as `item/commandExecution/requestApproval` or `item/fileChange/requestApproval` to every
 * subscriber of the thread, under that connection's own id. The first answer wins; the others'
 * requests are withdrawn (a late answer is dropped) and the router sends `serverRequest/resolved`
 * to everyone who got it. A subscriber that disconnects or unsubscribes gives its copy back: the
 * request goes on with the remaining holders, then with a subscriber that does not have it yet, and
 * resolves as `cancel` when nobody is left, so a turn never hangs on a vanished client. A new
 * subscriber (thread/resume) is offered pending requests after its response.
 *
 * MCP (docs/app-server.md "MCP servers"; docs/mcp-client.md "Approvals", "Elicitation"): a model-driven tool call is approved through
 * `mcpServer/elicitation/request` with `_meta.codex_approval_kind = "mcp_tool_call"` (the
 * reference's default path), and a server's own elicitation is forwarded as the same request. The
 * engine emits no approval event for either, so this module announces the wait itself:
 * `thread/status/changed` with `waitingOnApproval` before the request, `serverRequest/resolved`
 * and the status again after the answer. Nobody left to ask cancels the call (declines the
 * elicitation with `cancel`), as does the turn's abort.
 *
 * Client tools and questions (docs/extensions.md): a model call of a client tool goes as
 * `item/tool/call` and the model's questions as `item/tool/requestUserInput`, routed the same way;
 * a question shows `waitingOnUserInput` while it waits, a tool call no wait; both are followed by
 * `serverRequest/resolved`. Nobody left to ask, or the abort, settles them without an answer.
 *
 * The human texts of a request (`reason`, `message`, a form's titles and descriptions, the
 * model's questions) go out neutralised (displayText of @deputy/protocol), so a client that
 * renders them cannot be made to show something other than what runs; `command`, `cwd`,
 * `commandActions`, the form's values and the options' labels stay exact data.
 */
import type {
  ApprovalRequest,
  DynamicToolCallRequest,
  DynamicToolCallResponse,
  McpElicitationRequest,
  McpElicitationResponse,
  McpToolCallApprovalRequest,
  ReviewDecision,
  UserInputQuestion,
  UserInputRequest,
  UserInputResponse,
} from '@deputy/protocol';
import { AppServer, displayFormSchema, displayLines, displayText } from '@deputy/protocol';
import type { ApprovalOrigin, ApprovalPort, ElicitationOrigin } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import type { ConnectionState, SentRequest } from './connection-state.js';
import type { AppLogger } from './logger.js';
import { commandActionsOf, commandLineOf } from './project/items.js';
import { beginFrontDoorWait, beginQuestionWait, endFrontDoorWait, endQuestionWait } from './project/notifications.js';
import type { Outbound } from './project/outbound.js';
import type { ResolvedRequestSource, Router } from './router.js';

type ExecRequest = Extract<ApprovalRequest, { kind: 'exec' }>;
type PatchRequest = Extract<ApprovalRequest, { kind: 'patch' }>;

/** A request being offered to a thread's subscribers. */
type Offer =
  | { method: 'item/commandExecution/requestApproval'; params: AppServer.CommandExecutionRequestApprovalParams }
  | { method: 'item/fileChange/requestApproval'; params: AppServer.FileChangeRequestApprovalParams }
  | { method: 'mcpServer/elicitation/request'; params: AppServer.McpServerElicitationRequestParams }
  | { method: 'item/tool/call'; params: AppServer.DynamicToolCallParams }
  | { method: 'item/tool/requestUserInput'; params: AppServer.ToolRequestUserInputParams };

/**
 * How the front door announces a request the engine emits no approval event for: `wait`, an MCP
 * approval or elicitation (`waitingOnApproval` while it waits; `itemId` is the item it is about,
 * '' for none); `question`, a question to the user (`waitingOnUserInput`); `resolved`, a client
 * tool call (no wait shown). Each is followed by `serverRequest/resolved`.
 */
type Announce = { kind: 'wait'; itemId: string } | { kind: 'question' } | { kind: 'resolved' };

/** How a request settles: from the client's result, on an error answer, when nobody is left or the turn aborts. */
interface Answers<T> {
  /** Turns the client's result into the engine's answer. */
  readonly decide: (result: unknown) => T;
  /** The client answered with a JSON-RPC error. */
  readonly onError: T;
  /** Nobody is left to ask, or the engine aborted. */
  readonly onAbort: T;
}

interface Pending {
  readonly threadId: string;
  readonly offer: Offer;
  readonly answers: Answers<unknown>;
  /** Holders: connections that received the request and have not given it back. */
  readonly sent: Map<ConnectionState, SentRequest & { controller: AbortController }>;
  /** Every connection that ever received it (for `serverRequest/resolved`). */
  readonly ids: Map<ConnectionState, number>;
  isSettled: boolean;
  settle(answer: unknown): void;
}

const EXEC_ANSWERS: Answers<ReviewDecision> = { decide: execDecisionOf, onError: 'denied', onAbort: 'abort' };
const PATCH_ANSWERS: Answers<ReviewDecision> = { decide: patchDecisionOf, onError: 'denied', onAbort: 'abort' };
const MCP_TOOL_CALL_ANSWERS: Answers<ReviewDecision> = { decide: mcpToolCallDecisionOf, onError: 'denied', onAbort: 'abort' };
const ELICITATION_ANSWERS: Answers<McpElicitationResponse> = {
  decide: elicitationAnswerOf,
  onError: { action: 'decline', content: null },
  onAbort: { action: 'cancel', content: null },
};

const CLIENT_TOOL_ANSWERS: Answers<DynamicToolCallResponse | null> = {
  decide: clientToolAnswerOf,
  onError: { contentItems: [], success: false },
  onAbort: null,
};
const USER_INPUT_ANSWERS: Answers<UserInputResponse | null> = { decide: userInputAnswerOf, onError: null, onAbort: null };

/** A client's `item/tool/call` result → the engine's answer; a malformed result is a failure. */
export function clientToolAnswerOf(result: unknown): DynamicToolCallResponse {
  const parsed = AppServer.DynamicToolCallResultSchema.safeParse(result);
  if (!parsed.success) return { contentItems: [{ type: 'inputText', text: 'the client sent a malformed tool result' }], success: false };
  return parsed.data;
}

/**
 * The model's questions as a client shows them: `header`, `question` and each option's
 * `description` neutralised; ids and option labels (the answers that come back) kept exact.
 */
export function shownQuestions(questions: readonly UserInputQuestion[]): UserInputQuestion[] {
  return questions.map((q) => ({
    ...q,
    header: displayText(q.header),
    question: displayLines(q.question),
    options: q.options === null ? null : q.options.map((o) => ({ ...o, description: displayText(o.description) })),
  }));
}

/** A client's `item/tool/requestUserInput` result → the answers; a malformed result counts as no answer. */
export function userInputAnswerOf(result: unknown): UserInputResponse | null {
  const parsed = AppServer.ToolRequestUserInputResultSchema.safeParse(result);
  return parsed.success ? parsed.data : null;
}

/** Wire decision of a command approval → the engine's decision. */
export function execDecisionOf(result: unknown): ReviewDecision {
  const parsed = AppServer.CommandExecutionRequestApprovalResultSchema.safeParse(result);
  if (!parsed.success) return 'denied';
  const decision = parsed.data.decision;
  if (typeof decision === 'object') return 'acceptWithExecpolicyAmendment' in decision ? 'approved_and_remember' : 'approved';
  return DECISIONS[decision];
}

/** Wire decision of a patch approval → the engine's decision (unparsable answers decline). */
export function patchDecisionOf(result: unknown): ReviewDecision {
  const parsed = AppServer.FileChangeRequestApprovalResultSchema.safeParse(result);
  return parsed.success ? DECISIONS[parsed.data.decision] : 'denied';
}

const DECISIONS = { accept: 'approved', acceptForSession: 'approved_for_session', decline: 'denied', cancel: 'abort' } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Answer to an MCP tool-call approval → the engine's decision: accept runs once, or is
 * remembered for the thread (`_meta.persist = "session"`) or in config (`"always"`); decline and
 * cancel do not run; anything else declines.
 */
export function mcpToolCallDecisionOf(result: unknown): ReviewDecision {
  const parsed = AppServer.McpServerElicitationRequestResultSchema.safeParse(result);
  if (!parsed.success) return 'denied';
  const { action, _meta: meta } = parsed.data;
  if (action === 'decline') return 'denied';
  if (action === 'cancel') return 'abort';
  const persist = isRecord(meta) ? meta.persist : undefined;
  if (persist === 'session') return 'approved_for_session';
  if (persist === 'always') return 'approved_and_remember';
  return 'approved';
}

/** Answer to a server's elicitation → what the server receives: a malformed answer declines. */
export function elicitationAnswerOf(result: unknown): McpElicitationResponse {
  const parsed = AppServer.McpServerElicitationRequestResultSchema.safeParse(result);
  if (!parsed.success) return { action: 'decline', content: null };
  const { action, content } = parsed.data;
  if (action !== 'accept') return { action, content: null };
  if (content !== undefined && content !== null && !isRecord(content)) return { action: 'decline', content: null };
  return { action, content: content ?? {} };
}

/** The `_meta` of a tool-call approval request, in the reference's key order. */
export function mcpToolCallApprovalMeta(request: McpToolCallApprovalRequest): Record<string, unknown> {
  const args = isRecord(request.arguments) ? request.arguments : {};
  const display = Object.keys(args)
    .sort()
    .map((name) => ({ name, value: args[name], display_name: name }));
  return {
    codex_approval_kind: 'mcp_tool_call',
    ...(request.canRemember ? { persist: ['session', 'always'] } : {}),
    ...(request.toolTitle !== null ? { tool_title: request.toolTitle } : {}),
    ...(request.toolDescription !== null ? { tool_description: request.toolDescription } : {}),
    tool_params: request.arguments ?? {},
    tool_params_display: display,
  };
}

/** See the module comment. */
export class ClientApprovals implements ApprovalPort, ResolvedRequestSource {
  readonly #pending = new Map<string, Pending>();

  constructor(
    private readonly router: Router,
    private readonly logger: AppLogger,
  ) {}

  requestExec(request: ExecRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    const prefix = request.proposedPrefixRule;
    const params: AppServer.CommandExecutionRequestApprovalParams = {
      threadId: origin.threadId,
      turnId: origin.turnId,
      itemId: request.callId,
      startedAtMs: this.#startedAt(origin.threadId, request.callId),
      ...(request.reason !== null ? { reason: displayText(request.reason) } : {}),
      command: commandLineOf(request.command),
      cwd: request.cwd,
      commandActions: commandActionsOf(request.command, request.cwd),
      ...(prefix ? { proposedExecpolicyAmendment: prefix } : {}),
      availableDecisions: ['accept', ...(prefix ? [{ acceptWithExecpolicyAmendment: { execpolicy_amendment: prefix } }] : []), 'cancel'],
    };
    return this.#ask(origin, { method: 'item/commandExecution/requestApproval', params }, signal, EXEC_ANSWERS);
  }

  requestPatch(request: PatchRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    const params: AppServer.FileChangeRequestApprovalParams = {
      threadId: origin.threadId,
      turnId: origin.turnId,
      itemId: request.callId,
      startedAtMs: this.#startedAt(origin.threadId, request.callId),
      reason: request.reason === null ? null : displayText(request.reason),
      grantRoot: request.grantRoot,
    };
    return this.#ask(origin, { method: 'item/fileChange/requestApproval', params }, signal, PATCH_ANSWERS);
  }

  requestMcpToolCall(request: McpToolCallApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    const params: AppServer.McpServerElicitationRequestParams = {
      threadId: origin.threadId,
      turnId: origin.turnId,
      serverName: request.server,
      mode: 'form',
      _meta: mcpToolCallApprovalMeta(request),
      message: displayText(request.message),
      requestedSchema: { type: 'object', properties: {} },
    };
    return this.#ask(origin, { method: 'mcpServer/elicitation/request', params }, signal, MCP_TOOL_CALL_ANSWERS, { kind: 'wait', itemId: request.callId });
  }

  requestMcpElicitation(request: McpElicitationRequest, origin: ElicitationOrigin, signal: AbortSignal): Promise<McpElicitationResponse> {
    const base = { threadId: origin.threadId, turnId: origin.turnId, serverName: request.server, _meta: null, message: displayLines(request.message) };
    const params: AppServer.McpServerElicitationRequestParams =
      request.mode === 'url'
        ? { ...base, mode: 'url', url: request.url ?? '', elicitationId: request.elicitationId ?? '' }
        : { ...base, mode: 'form', requestedSchema: displayFormSchema(request.requestedSchema ?? { type: 'object', properties: {} }) };
    return this.#ask(origin, { method: 'mcpServer/elicitation/request', params }, signal, ELICITATION_ANSWERS, { kind: 'wait', itemId: '' });
  }

  requestDynamicTool(request: DynamicToolCallRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<DynamicToolCallResponse | null> {
    const params: AppServer.DynamicToolCallParams = {
      threadId: origin.threadId,
      turnId: origin.turnId,
      callId: request.callId,
      tool: request.tool,
      namespace: request.namespace,
      arguments: request.arguments ?? null,
    };
    return this.#ask(origin, { method: 'item/tool/call', params }, signal, CLIENT_TOOL_ANSWERS, { kind: 'resolved' });
  }

  requestUserInput(request: UserInputRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<UserInputResponse | null> {
    const params: AppServer.ToolRequestUserInputParams = {
      threadId: origin.threadId,
      turnId: origin.turnId,
      itemId: request.callId,
      questions: shownQuestions(request.questions),
      isBlocking: true,
    };
    return this.#ask(origin, { method: 'item/tool/requestUserInput', params }, signal, USER_INPUT_ANSWERS, { kind: 'question' });
  }

  /** Sends the thread's pending requests to a connection that just subscribed. */
  offerPending(threadId: string, state: ConnectionState): void {
    for (const pending of this.#pending.values()) {
      if (pending.threadId === threadId && !pending.isSettled && !pending.sent.has(state)) this.#sendTo(pending, state);
    }
  }

  /** Takes back a connection's copies of a thread's pending requests (it unsubscribed). */
  withdraw(threadId: string, state: ConnectionState): void {
    for (const pending of this.#pending.values()) {
      if (pending.threadId === threadId) pending.sent.get(state)?.controller.abort(new Error('unsubscribed'));
    }
  }

  takeSentRequests(approvalId: string): Array<{ state: ConnectionState; id: number }> {
    const pending = this.#pending.get(approvalId);
    this.#pending.delete(approvalId);
    if (!pending) return [];
    return [...pending.ids].filter(([state]) => !state.isClosed).map(([state, id]) => ({ state, id }));
  }

  #startedAt(threadId: string, itemId: string): number {
    return this.router.viewOf(threadId).startedAtMs.get(itemId) ?? Date.now();
  }

  /**
   * Offers a request to the thread's subscribers until one answers. `announce` is set for the
   * requests the engine emits no approval event for, which the front door announces itself (see
   * `Announce`).
   */
  #ask<T>(origin: ApprovalOrigin | ElicitationOrigin, offer: Offer, signal: AbortSignal, answers: Answers<T>, announce?: Announce): Promise<T> {
    return new Promise<T>((resolve) => {
      const onAbort = (): void => pending.settle(answers.onAbort);
      const pending: Pending = {
        threadId: origin.threadId,
        offer,
        answers,
        sent: new Map(),
        ids: new Map(),
        isSettled: false,
        settle: (answer) => {
          if (pending.isSettled) return;
          pending.isSettled = true;
          signal.removeEventListener('abort', onAbort);
          for (const held of pending.sent.values()) held.controller.abort(new Error('resolved'));
          pending.sent.clear();
          if (announce) this.router.publish(origin.threadId, this.#endAnnounce(announce, origin));
          resolve(answer as T);
        },
      };
      this.#pending.set(origin.approvalId, pending);
      if (signal.aborted) return pending.settle(answers.onAbort);
      signal.addEventListener('abort', onAbort, { once: true });
      const view = this.router.viewOf(origin.threadId);
      if (announce?.kind === 'wait') this.router.publish(origin.threadId, beginFrontDoorWait(view, origin.approvalId, announce.itemId));
      if (announce?.kind === 'question') this.router.publish(origin.threadId, beginQuestionWait(view, origin.approvalId));
      // Sent through the thread's delivery so the request follows the item/started before it.
      this.router.deliver(origin.threadId, () => this.#reassign(pending));
    });
  }

  /** What follows the answer of an announced request: `serverRequest/resolved`, and the status when it showed a wait. */
  #endAnnounce(announce: Announce, origin: ApprovalOrigin | ElicitationOrigin): Outbound[] {
    const view = this.router.viewOf(origin.threadId);
    if (announce.kind === 'wait') return endFrontDoorWait(view, origin.approvalId);
    if (announce.kind === 'question') return endQuestionWait(view, origin.approvalId);
    return [{ kind: 'requestResolved', approvalId: origin.approvalId }];
  }

  #sendTo(pending: Pending, state: ConnectionState): void {
    const controller = new AbortController();
    const sent = state.request(pending.offer.method, pending.offer.params as never, controller.signal);
    if (!sent) return;
    pending.sent.set(state, { ...sent, controller });
    pending.ids.set(state, sent.id);
    sent.result.then(
      (result) => pending.settle(pending.answers.decide(result)),
      (error: unknown) => {
        if (pending.isSettled) return;
        if (error instanceof RpcError) {
          // The client answered with an error: treat it like an unparsable answer, as a decline.
          pending.settle(pending.answers.onError);
          return;
        }
        pending.sent.delete(state);
        this.logger.info('a client gave back an approval request', { connection: state.id, reason: String(error) });
        this.#reassign(pending);
      },
    );
  }

  /** Makes sure someone holds the request; with nobody left it resolves as cancel. */
  #reassign(pending: Pending): void {
    if (pending.isSettled || pending.sent.size > 0) return;
    for (const state of this.router.subscribersOf(pending.threadId)) {
      if (!pending.ids.has(state)) this.#sendTo(pending, state);
    }
    if (pending.sent.size === 0) pending.settle(pending.answers.onAbort);
  }
}
