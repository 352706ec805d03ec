/**
 * Approvals over MCP: the engine's ApprovalPort routed to the `tools/call` that started the turn,
 * the `elicitation/create` parameters of docs/mcp-server.md, "Approvals" (message, empty
 * requestedSchema, `threadId`, `codex_*` fields), and the mapping of whatever the client answers
 * to a ReviewDecision: `decision` first (every ReviewDecision form), else the standard `action`,
 * else denied. Sending the request and timing it out belong to the call (turn-call.ts), not to
 * this module. Every human-readable text built or forwarded here (the `message`, and the titles
 * and descriptions of a forwarded form) goes through the neutraliser of @deputy/protocol, so a
 * host that renders it cannot be made to show a command other than the one that runs; the
 * structured `codex_*` fields, the form's `enum` values and URLs stay exact data.
 */
import type { ApprovalAnswer, ApprovalOrigin, ApprovalPort, ElicitationOrigin as EngineElicitationOrigin, ExplainedDenial } from '@deputy/engine';
import { displayCommand } from '@deputy/engine/facts';
import {
  displayFormSchema,
  displayLines,
  displayText,
  type ApprovalRequest,
  type McpElicitationRequest,
  type McpElicitationResponse,
  type McpToolCallApprovalRequest,
  type ReviewDecision,
  type UserInputRequest,
  type UserInputResponse,
} from '@deputy/protocol';
import { codexChanges, parsedCommand } from './project-events.js';

/** Anything the engine asks a decision on: a command, a patch, or an MCP tool call. */
export type ToolApprovalRequest = ApprovalRequest | McpToolCallApprovalRequest;

/** Asks one client for one decision. Must settle when `signal` aborts. */
export type ApprovalHandler = (request: ToolApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** Forwards one MCP server's elicitation to the client. Must settle when `signal` aborts. */
export type ElicitationHandler = (request: McpElicitationRequest, signal: AbortSignal) => Promise<McpElicitationResponse>;

/** The answer when nobody can be asked. */
export const DECLINE: McpElicitationResponse = { action: 'decline', content: null };

/**
 * The process-wide ApprovalPort: each running turn registers the handler of the request that
 * started it. An approval for a turn nobody listens to is denied at once (it can never be asked).
 */
export class ApprovalRouter implements ApprovalPort {
  readonly #byTurn = new Map<string, ApprovalHandler>();
  readonly #elicitByTurn = new Map<string, ElicitationHandler>();

  /**
   * Routes approvals of `turnId` to `handler` (and MCP servers' elicitations during that turn to
   * `elicit`) until the returned function is called.
   */
  route(turnId: string, handler: ApprovalHandler, elicit?: ElicitationHandler): () => void {
    this.#byTurn.set(turnId, handler);
    if (elicit) this.#elicitByTurn.set(turnId, elicit);
    return () => {
      if (this.#byTurn.get(turnId) === handler) this.#byTurn.delete(turnId);
      if (elicit && this.#elicitByTurn.get(turnId) === elicit) this.#elicitByTurn.delete(turnId);
    };
  }

  requestMcpToolCall(request: McpToolCallApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.#ask(request, origin, signal);
  }

  /** An elicitation outside a turn, or for a turn nobody listens to, is declined at once. */
  async requestMcpElicitation(request: McpElicitationRequest, origin: EngineElicitationOrigin, signal: AbortSignal): Promise<McpElicitationResponse> {
    const handler = origin.turnId === null ? undefined : this.#elicitByTurn.get(origin.turnId);
    return handler ? handler(request, signal) : DECLINE;
  }

  /**
   * The model's questions (`request_user_input`) as a form elicitation through the turn's
   * elicitation path (so the no-capability fallback applies); null when nobody answers.
   */
  async requestUserInput(request: UserInputRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<UserInputResponse | null> {
    const handler = this.#elicitByTurn.get(origin.turnId);
    if (!handler) return null;
    return userInputAnswers(request, await handler(userInputElicitation(request), signal));
  }

  requestExec(request: Extract<ApprovalRequest, { kind: 'exec' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.#ask(request, origin, signal);
  }

  requestPatch(request: Extract<ApprovalRequest, { kind: 'patch' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.#ask(request, origin, signal);
  }

  async #ask(request: ToolApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer> {
    const handler = this.#byTurn.get(origin.turnId);
    return handler ? handler(request, origin, signal) : noApproverDenial(request, 'no MCP client request is attached to this turn any more, so there was nobody to ask');
  }
}

/** The `server` of a question elicitation: names `request_user_input` in `codex_mcp_server` and warnings. */
export const USER_INPUT_ELICITATION_SOURCE = 'request_user_input';

/**
 * The model's questions as a form: one string property per question (titled with its header,
 * described by the question, its options as `enum` with their descriptions as `enumNames`), all
 * required.
 */
export function userInputElicitation(request: UserInputRequest): McpElicitationRequest {
  const properties = Object.fromEntries(
    request.questions.map((q) => {
      const labels = (q.options ?? []).map((o) => o.label);
      const choices = labels.length > 0 ? { enum: labels, enumNames: (q.options ?? []).map((o) => `${o.label}: ${o.description}`) } : {};
      return [q.id, { type: 'string', title: q.header, description: q.question, ...choices }];
    }),
  );
  const message = request.questions.map((q) => q.question).join('\n');
  return {
    kind: 'mcpElicitation',
    server: USER_INPUT_ELICITATION_SOURCE,
    message,
    mode: 'form',
    requestedSchema: { type: 'object', properties, required: request.questions.map((q) => q.id) },
    url: null,
    elicitationId: null,
  };
}

/** The answers in an accepted form (one string per question; other values are dropped); null unless accepted. */
export function userInputAnswers(request: UserInputRequest, response: McpElicitationResponse): UserInputResponse | null {
  if (response.action !== 'accept') return null;
  const content = response.content ?? {};
  const answers: UserInputResponse['answers'] = {};
  for (const q of request.questions) {
    const value = content[q.id];
    answers[q.id] = { answers: typeof value === 'string' ? [value] : [] };
  }
  return { answers };
}

/** What the approval is about, for a sentence: the command, the MCP tool call or the patch. */
export function approvalSubject(request: ToolApprovalRequest): string {
  if (request.kind === 'exec') return `the command \`${displayText(displayCommand(request.command))}\``;
  if (request.kind === 'mcpToolCall') return `the MCP tool call \`${displayText(request.server)}.${displayText(request.tool)}\``;
  return 'the proposed patch';
}

/**
 * The denial the model reads when nobody could be asked: not "rejected by user" (no user saw
 * it) but what happened and how to allow such actions.
 */
export function noApproverDenial(request: ToolApprovalRequest, why: string): ExplainedDenial {
  return {
    decision: 'denied',
    note:
      `No approver was available: ${why}. ${approvalSubject(request)[0]!.toUpperCase()}${approvalSubject(request).slice(1)} needed approval and was denied without being run; nobody judged it unsafe. ` +
      'To allow it, use an MCP client that answers elicitations, set mcp_server.approval_fallback = "approve" in the Deputy server\'s config.toml, ' +
      'or start the session with an approval-policy or sandbox that does not require approval for it (for example approval-policy "never" with sandbox "workspace-write").',
  };
}

/** Where an approval comes from, in wire terms. */
export interface ElicitationOrigin {
  threadId: string;
  /** The `tools/call` request id, as a string (`codex_mcp_tool_call_id`). */
  toolCallId: string;
  /** The turn's submission id (`codex_event_id`). */
  eventId: string;
}

/** `elicitation/create` params for an approval (docs/mcp-server.md, "Approvals", 2025-era clients). */
export function elicitationParams(request: ToolApprovalRequest, origin: ElicitationOrigin): Record<string, unknown> {
  const common = {
    requestedSchema: { type: 'object', properties: {} },
    threadId: origin.threadId,
    codex_mcp_tool_call_id: origin.toolCallId,
    codex_event_id: origin.eventId,
    codex_call_id: request.callId,
  };
  if (request.kind === 'mcpToolCall') {
    return {
      message: approvalMessage(request),
      ...common,
      codex_elicitation: 'mcp-tool-call-approval',
      codex_mcp_server: request.server,
      codex_mcp_tool: request.tool,
      codex_mcp_arguments: request.arguments ?? null,
      ...(request.toolTitle ? { codex_mcp_tool_title: request.toolTitle } : {}),
      ...(request.toolDescription ? { codex_mcp_tool_description: request.toolDescription } : {}),
      codex_persist: request.canRemember ? ['session'] : [],
    };
  }
  if (request.kind === 'exec') {
    return {
      message: approvalMessage(request),
      ...common,
      codex_elicitation: 'exec-approval',
      codex_command: request.command,
      codex_cwd: request.cwd,
      codex_parsed_cmd: parsedCommand(request.command),
      ...(request.reason ? { codex_reason: request.reason } : {}),
    };
  }
  return {
    message: approvalMessage(request),
    ...common,
    codex_elicitation: 'patch-approval',
    codex_changes: codexChanges(request.changes),
    ...(request.reason ? { codex_reason: request.reason } : {}),
    ...(request.grantRoot ? { codex_grant_root: request.grantRoot } : {}),
  };
}

/**
 * The question shown to the user, with the command as the engine displays it (shell-quoted), and
 * every control, bidi, zero-width or format character in it escaped (displayText); a reason,
 * when there is one, goes on the line before.
 */
export function approvalMessage(request: ToolApprovalRequest): string {
  if (request.kind === 'mcpToolCall') return displayText(request.message);
  const question =
    request.kind === 'exec' ? `Allow Deputy to run \`${displayText(displayCommand(request.command))}\` in \`${displayText(request.cwd)}\`?` : 'Allow Deputy to apply proposed code changes?';
  return request.reason ? `${displayText(request.reason)}\n${question}` : question;
}

const DECISIONS: ReadonlySet<string> = new Set(['approved', 'approved_for_session', 'approved_and_remember', 'denied', 'abort', 'timed_out']);

/**
 * The decision in a client's answer: a valid `decision` (string, or Codex's
 * `{approved_execpolicy_amendment: …}` object) wins; otherwise the standard `action` decides
 * (accept → approved, decline → denied, cancel → abort); anything else is denied (fail closed).
 */
export function decisionFromResponse(result: unknown): ReviewDecision {
  if (typeof result !== 'object' || result === null) return 'denied';
  const { decision, action } = result as Record<string, unknown>;
  const parsed = parseDecision(decision);
  if (parsed) return parsed;
  if (action === 'accept') return persistOf(result) === 'session' ? 'approved_for_session' : 'approved';
  if (action === 'cancel') return 'abort';
  return 'denied';
}

/** `_meta.persist` of an accept (the app-server's MCP approval answer), if any. */
function persistOf(result: object): unknown {
  const meta = (result as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null ? (meta as { persist?: unknown }).persist : undefined;
}

/** The decision in a 2026-era elicitation answer (`decision` in the content counts too). */
export function roundDecision(answer: unknown): ReviewDecision {
  if (typeof answer !== 'object' || answer === null) return 'denied';
  const content = (answer as { content?: unknown }).content;
  const fromContent = typeof content === 'object' && content !== null ? parseDecision((content as { decision?: unknown }).decision) : null;
  return fromContent ?? decisionFromResponse(answer);
}

/** A Codex ReviewDecision value (a string, or the `{approved_execpolicy_amendment: …}` object), else null. */
export function parseDecision(decision: unknown): ReviewDecision | null {
  if (typeof decision === 'string' && DECISIONS.has(decision)) return decision as ReviewDecision;
  if (typeof decision === 'object' && decision !== null && 'approved_execpolicy_amendment' in decision) return 'approved_and_remember';
  return null;
}

/**
 * `elicitation/create` params for an MCP server's own elicitation (docs/mcp-server.md,
 * "Elicitations from Deputy's MCP servers"): the server's message and form (or URL), plus
 * `threadId`, `codex_elicitation: "mcp-elicitation"`, `codex_mcp_server` and the ids of the call.
 */
export function mcpElicitationParams(request: McpElicitationRequest, origin: ElicitationOrigin): Record<string, unknown> {
  const common = {
    threadId: origin.threadId,
    codex_elicitation: request.server === USER_INPUT_ELICITATION_SOURCE ? 'request-user-input' : 'mcp-elicitation',
    codex_mcp_server: request.server,
    codex_mcp_tool_call_id: origin.toolCallId,
    codex_event_id: origin.eventId,
  };
  const message = displayLines(request.message);
  if (request.mode === 'url') return { mode: 'url', message, url: request.url ?? '', elicitationId: request.elicitationId ?? '', ...common };
  return { message, requestedSchema: displayFormSchema(request.requestedSchema ?? { type: 'object', properties: {} }), ...common };
}

/**
 * The MCP server's answer from the client's: `accept` (with its `content` object, `{}` when
 * absent), `decline`, `cancel`; anything else is a decline (fail closed).
 */
export function elicitationResponseFrom(result: unknown): McpElicitationResponse {
  if (typeof result !== 'object' || result === null) return DECLINE;
  const { action, content } = result as Record<string, unknown>;
  if (action === 'accept') return { action: 'accept', content: typeof content === 'object' && content !== null && !Array.isArray(content) ? (content as Record<string, unknown>) : {} };
  if (action === 'cancel') return { action: 'cancel', content: null };
  return DECLINE;
}
