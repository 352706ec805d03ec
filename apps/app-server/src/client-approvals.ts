/**
 * The engine's `ApprovalPort`, answered by clients (docs/app-server.md "Approvals"): each request
 * goes as `item/commandExecution/requestApproval` or `item/fileChange/requestApproval` to every
 * subscriber of the thread, under that connection's own id. The first answer wins; the others'
 * requests are withdrawn (a late answer is dropped) and the router sends `serverRequest/resolved`
 * to everyone who got it. A subscriber that disconnects or unsubscribes gives its copy back: the
 * request goes on with the remaining holders, then with a subscriber that does not have it yet, and
 * resolves as `cancel` when nobody is left, so a turn never hangs on a vanished client. A new
 * subscriber (thread/resume) is offered pending requests after its response.
 */
import type { ApprovalRequest, ReviewDecision } from '@deputy/protocol';
import { AppServer } from '@deputy/protocol';
import type { ApprovalOrigin, ApprovalPort } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import type { ConnectionState, SentRequest } from './connection-state.js';
import type { AppLogger } from './logger.js';
import { commandActionsOf, commandLineOf } from './project/items.js';
import type { ResolvedRequestSource, Router } from './router.js';

type ExecRequest = Extract<ApprovalRequest, { kind: 'exec' }>;
type PatchRequest = Extract<ApprovalRequest, { kind: 'patch' }>;

/** A request being offered to a thread's subscribers. */
type Offer =
  | { method: 'item/commandExecution/requestApproval'; params: AppServer.CommandExecutionRequestApprovalParams }
  | { method: 'item/fileChange/requestApproval'; params: AppServer.FileChangeRequestApprovalParams };

interface Pending {
  readonly threadId: string;
  readonly offer: Offer;
  /** Turns the client's result into the engine's decision. */
  readonly decide: (result: unknown) => ReviewDecision;
  /** Holders: connections that received the request and have not given it back. */
  readonly sent: Map<ConnectionState, SentRequest & { controller: AbortController }>;
  /** Every connection that ever received it (for `serverRequest/resolved`). */
  readonly ids: Map<ConnectionState, number>;
  isSettled: boolean;
  settle(decision: ReviewDecision): void;
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
      ...(request.reason !== null ? { reason: request.reason } : {}),
      command: commandLineOf(request.command),
      cwd: request.cwd,
      commandActions: commandActionsOf(request.command, request.cwd),
      ...(prefix ? { proposedExecpolicyAmendment: prefix } : {}),
      availableDecisions: ['accept', ...(prefix ? [{ acceptWithExecpolicyAmendment: { execpolicy_amendment: prefix } }] : []), 'cancel'],
    };
    return this.#ask(origin, { method: 'item/commandExecution/requestApproval', params }, signal, execDecisionOf);
  }

  requestPatch(request: PatchRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ReviewDecision> {
    const params: AppServer.FileChangeRequestApprovalParams = {
      threadId: origin.threadId,
      turnId: origin.turnId,
      itemId: request.callId,
      startedAtMs: this.#startedAt(origin.threadId, request.callId),
      reason: request.reason,
      grantRoot: request.grantRoot,
    };
    return this.#ask(origin, { method: 'item/fileChange/requestApproval', params }, signal, patchDecisionOf);
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

  #ask(origin: ApprovalOrigin, offer: Offer, signal: AbortSignal, decide: (result: unknown) => ReviewDecision): Promise<ReviewDecision> {
    return new Promise<ReviewDecision>((resolve) => {
      const onAbort = (): void => pending.settle('abort');
      const pending: Pending = {
        threadId: origin.threadId,
        offer,
        decide,
        sent: new Map(),
        ids: new Map(),
        isSettled: false,
        settle: (decision) => {
          if (pending.isSettled) return;
          pending.isSettled = true;
          signal.removeEventListener('abort', onAbort);
          for (const held of pending.sent.values()) held.controller.abort(new Error('resolved'));
          pending.sent.clear();
          resolve(decision);
        },
      };
      this.#pending.set(origin.approvalId, pending);
      if (signal.aborted) return pending.settle('abort');
      signal.addEventListener('abort', onAbort, { once: true });
      // Sent through the thread's delivery so the request follows the item/started before it.
      this.router.deliver(origin.threadId, () => this.#reassign(pending));
    });
  }

  #sendTo(pending: Pending, state: ConnectionState): void {
    const controller = new AbortController();
    const sent = state.request(pending.offer.method, pending.offer.params as never, controller.signal);
    if (!sent) return;
    pending.sent.set(state, { ...sent, controller });
    pending.ids.set(state, sent.id);
    sent.result.then(
      (result) => pending.settle(pending.decide(result)),
      (error: unknown) => {
        if (pending.isSettled) return;
        if (error instanceof RpcError) {
          // The client answered with an error: treat it like an unparsable answer, as a decline.
          pending.settle('denied');
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
    if (pending.sent.size === 0) pending.settle('abort');
  }
}
