/**
 * Approvals over MCP: the engine's ApprovalPort routed to the `tools/call` that started the turn,
 * the `elicitation/create` parameters of docs/mcp-server.md, "Approvals" (message, empty
 * requestedSchema, `threadId`, `codex_*` fields), and the mapping of whatever the client answers
 * to a ReviewDecision: `decision` first (every ReviewDecision form), else the standard `action`,
 * else denied. Sending the request and timing it out belong to the call (turn-call.ts), not to
 * this module.
 */
import type { ApprovalOrigin, ApprovalPort } from '@deputy/engine';
import { displayCommand } from '@deputy/engine/facts';
import type { ApprovalRequest, ReviewDecision } from '@deputy/protocol';
import { codexChanges, parsedCommand } from './project-events.js';

/** Asks one client for one decision. Must settle when `signal` aborts. */
export type ApprovalHandler = (request: ApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal) => Promise<ReviewDecision>;

/**
 * The process-wide ApprovalPort: each running turn registers the handler of the request that
 * started it. An approval for a turn nobody listens to is denied at once (it can never be asked).
 */
export class ApprovalRouter implements ApprovalPort {
  readonly #byTurn = new Map<string, ApprovalHandler>();

  /** Routes approvals of `turnId` to `handler` until the returned function is called. */
  route(turnId: string, handler: ApprovalHandler): () => void {
    this.#byTurn.set(turnId, handler);
    return () => {
      if (this.#byTurn.get(turnId) === handler) this.#byTurn.delete(turnId);
    };
  }

  requestExec(request: Extract<ApprovalRequest, { kind: 'exec' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    return this.#ask(request, origin, signal);
  }

  requestPatch(request: Extract<ApprovalRequest, { kind: 'patch' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    return this.#ask(request, origin, signal);
  }

  async #ask(request: ApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    const handler = this.#byTurn.get(origin.turnId);
    return handler ? handler(request, origin, signal) : 'denied';
  }
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
export function elicitationParams(request: ApprovalRequest, origin: ElicitationOrigin): Record<string, unknown> {
  const common = {
    requestedSchema: { type: 'object', properties: {} },
    threadId: origin.threadId,
    codex_mcp_tool_call_id: origin.toolCallId,
    codex_event_id: origin.eventId,
    codex_call_id: request.callId,
  };
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
 * The question shown to the user, with the command as the engine displays it (shell-quoted); a
 * reason, when there is one, goes on the line before.
 */
export function approvalMessage(request: ApprovalRequest): string {
  const question = request.kind === 'exec' ? `Allow Deputy to run \`${displayCommand(request.command)}\` in \`${request.cwd}\`?` : 'Allow Deputy to apply proposed code changes?';
  return request.reason ? `${request.reason}\n${question}` : question;
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
  if (action === 'accept') return 'approved';
  if (action === 'cancel') return 'abort';
  return 'denied';
}

/** A Codex ReviewDecision value (a string, or the `{approved_execpolicy_amendment: …}` object), else null. */
export function parseDecision(decision: unknown): ReviewDecision | null {
  if (typeof decision === 'string' && DECISIONS.has(decision)) return decision as ReviewDecision;
  if (typeof decision === 'object' && decision !== null && 'approved_execpolicy_amendment' in decision) return 'approved_and_remember';
  return null;
}
