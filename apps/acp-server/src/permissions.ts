/**
 * Approvals over ACP: the engine's ApprovalPort answered with `session/request_permission`
 * (docs/acp.md, "Permissions"). The options map one to one to Deputy's review decisions; a
 * `cancelled` outcome aborts the turn and an unknown option id is a denial (fail closed). When
 * the engine stops waiting (the turn was cancelled), the outstanding request is cancelled with
 * `$/cancel_request` through the SDK's cancellation signal. The title, the option labels and the
 * text content the editor shows on the card are neutralised (displayText, displayLines): a CR, an
 * ANSI sequence, a bidi override or a zero-width character in a command, path or reason shows as
 * an escape; `rawInput` and `locations` stay exact data.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { displayCommand, type ApprovalOrigin, type ApprovalPort } from '@deputy/engine';
import { displayLines, displayText, type ApprovalRequest, type McpToolCallApprovalRequest, type ReviewDecision } from '@deputy/protocol';

type AnyRequest = ApprovalRequest | McpToolCallApprovalRequest;

/** Sends one permission request for a thread; undefined when no session shows that thread. */
export type PermissionSender = (threadId: string, params: { toolCall: acp.ToolCall; options: acp.PermissionOption[] }, signal: AbortSignal) => Promise<acp.RequestPermissionResponse> | undefined;

const DECISIONS = new Set<string>(['approved', 'approved_for_session', 'approved_and_remember', 'denied', 'abort']);

/** The options offered for a request, in the order shown. */
export function permissionOptions(request: AnyRequest): acp.PermissionOption[] {
  const options: acp.PermissionOption[] = [{ optionId: 'approved', name: 'Yes', kind: 'allow_once' }];
  if (request.kind === 'exec') {
    options.push({ optionId: 'approved_for_session', name: "Yes, and don't ask again for this command in this session", kind: 'allow_always' });
    if (request.proposedPrefixRule) {
      options.push({ optionId: 'approved_and_remember', name: `Yes, and always allow commands starting with \`${displayText(displayCommand(request.proposedPrefixRule))}\``, kind: 'allow_always' });
    }
  } else if (request.kind === 'patch' && request.grantRoot) {
    options.push({ optionId: 'approved_for_session', name: `Yes, and allow edits under \`${displayText(request.grantRoot)}\` for this session`, kind: 'allow_always' });
  } else if (request.kind === 'mcpToolCall' && request.canRemember) {
    options.push({ optionId: 'approved_for_session', name: 'Yes, and allow this tool for this session', kind: 'allow_always' });
  }
  options.push({ optionId: 'denied', name: 'No, continue without it', kind: 'reject_once' }, { optionId: 'abort', name: 'No, and stop', kind: 'reject_once' });
  return options;
}

/** The decision an answer stands for. */
export function decisionOf(response: acp.RequestPermissionResponse): ReviewDecision {
  if (response.outcome.outcome === 'cancelled') return 'abort';
  return DECISIONS.has(response.outcome.optionId) ? (response.outcome.optionId as ReviewDecision) : 'denied';
}

/** The tool call a request is about, as the client shows it on the permission card. */
export function permissionToolCall(request: AnyRequest): acp.ToolCall {
  if (request.kind === 'exec') {
    const command = displayText(displayCommand(request.command));
    const title = request.isSandboxRetry ? `Run without sandbox: ${command}` : command;
    return {
      toolCallId: request.callId,
      title,
      kind: 'execute',
      status: 'pending',
      locations: [{ path: request.cwd }],
      rawInput: { command: request.command, cwd: request.cwd },
      ...(request.reason ? { content: [{ type: 'content', content: { type: 'text', text: displayText(request.reason) } }] } : {}),
    };
  }
  if (request.kind === 'patch') {
    return {
      toolCallId: request.callId,
      title: `Edit ${request.changes.map((c) => displayText(c.path)).join(', ')}`,
      kind: 'edit',
      status: 'pending',
      locations: request.changes.map((c) => ({ path: c.path })),
      rawInput: { changes: request.changes },
      content: request.changes.map((c) => ({ type: 'content' as const, content: { type: 'text' as const, text: displayLines(c.diff) } })),
    };
  }
  return { toolCallId: request.callId, title: `${displayText(request.server)}.${displayText(request.tool)}`, kind: 'other', status: 'pending', rawInput: request.arguments ?? null };
}

/** The ApprovalPort of the ACP front door. */
export class AcpApprovals implements ApprovalPort {
  constructor(private readonly send: PermissionSender) {}

  requestExec(request: Extract<ApprovalRequest, { kind: 'exec' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    return this.#ask(request, origin, signal);
  }

  requestPatch(request: Extract<ApprovalRequest, { kind: 'patch' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    return this.#ask(request, origin, signal);
  }

  requestMcpToolCall(request: McpToolCallApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    return this.#ask(request, origin, signal);
  }

  async #ask(request: AnyRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    if (signal.aborted) return 'abort';
    const pending = this.send(origin.threadId, { toolCall: permissionToolCall(request), options: permissionOptions(request) }, signal);
    if (!pending) return 'denied';
    const aborted = new Promise<ReviewDecision>((resolve) => signal.addEventListener('abort', () => resolve('abort'), { once: true }));
    try {
      return await Promise.race([pending.then(decisionOf), aborted]);
    } catch {
      return signal.aborted ? 'abort' : 'denied';
    }
  }
}
