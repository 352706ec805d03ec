/**
 * The approval step shared by commands and patches: ask the front door, apply "for this
 * session" and "remember" answers, and turn the decision into proceed / declined / timed out /
 * aborted, plus the texts the model reads for each refusal. Callers finish their item first and
 * then call `abortTurn()` for an abort, so no item is left in progress.
 */
import type { ApprovalRequest, ReviewDecision } from '@deputy/protocol';
import { FatalToolError, type ToolContext } from '../types.js';
import type { ShellServices } from './services.js';

/** The outcome of asking; `{ declined: note }` is a denial that tells the model why. */
export type ApprovalOutcome = 'proceed' | 'declined' | 'timed_out' | 'aborted' | { declined: string };

/** An outcome that does not let the action run. */
export type Refusal = Exclude<ApprovalOutcome, 'proceed'>;

/** What the model reads when the user denied a command (reference wording). */
export const COMMAND_REJECTED_TEXT = 'rejected by user';
/** What the model reads when the user denied a patch (reference wording). */
export const PATCH_REJECTED_TEXT = 'patch rejected by user';
/**
 * What the model reads when nobody answered in time: unlike a denial it does not say the action
 * is unsafe (reference: `guardian_timeout_message`, paraphrased).
 */
export const APPROVAL_TIMED_OUT_TEXT =
  'the approval request timed out before anyone answered; this does not mean the action was judged unsafe. You may retry once, or ask the user for guidance or explicit approval.';

/** The model-facing text of a refusal that is not an abort. */
export function refusalText(outcome: Exclude<Refusal, 'aborted'>, kind: 'exec' | 'patch'): string {
  if (typeof outcome === 'object') return outcome.declined;
  if (outcome === 'timed_out') return APPROVAL_TIMED_OUT_TEXT;
  return kind === 'exec' ? COMMAND_REJECTED_TEXT : PATCH_REJECTED_TEXT;
}

/** Ends the turn as interrupted (the user answered "abort"). */
export function abortTurn(): never {
  throw new FatalToolError('the user aborted the turn', 'aborted');
}

/** Asks for approval and records session/remembered approvals. */
export async function askApproval(
  ctx: ToolContext,
  services: ShellServices,
  request: ApprovalRequest,
  remember: { argv?: string[]; prefixRule?: string[] | null; paths?: string[]; isUnsandboxed?: boolean },
): Promise<ApprovalOutcome> {
  const answer = await ctx.requestApproval(request);
  if (typeof answer === 'object') return { declined: answer.note };
  const decision: ReviewDecision = answer;
  switch (decision) {
    case 'approved':
      return 'proceed';
    case 'approved_for_session':
      // Approving a sandboxed run for the session does not approve running it without the sandbox.
      if (remember.argv) services.sessionApprovals.approveCommand(remember.argv, { prefixRule: remember.prefixRule ?? undefined, isUnsandboxed: remember.isUnsandboxed });
      if (remember.paths) services.sessionApprovals.approvePaths(remember.paths);
      return 'proceed';
    case 'approved_and_remember':
      if (remember.argv) await services.rules.remember(remember.prefixRule ?? remember.argv);
      // The session memory keeps what this question was about; the stored rule speaks for later calls.
      if (remember.argv) services.sessionApprovals.approveCommand(remember.argv, { prefixRule: remember.prefixRule ?? undefined, isUnsandboxed: remember.isUnsandboxed });
      if (remember.paths) services.sessionApprovals.approvePaths(remember.paths);
      return 'proceed';
    case 'abort':
      return 'aborted';
    case 'timed_out':
      return 'timed_out';
    case 'denied':
      return 'declined';
  }
}
