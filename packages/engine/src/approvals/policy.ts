/**
 * Pure approval decisions with Codex semantics: whether a command runs (and whether inside the
 * sandbox), must be asked about, or is refused; what happens after the sandbox blocks a command;
 * and whether a patch is applied, asked about or refused. No I/O, no prompting: the turn runner
 * feeds facts in (policy, sandbox, session approvals, rule matches) and acts on the answer.
 *
 * Exec decision table, first matching row wins (after openai/codex `exec_policy.rs`,
 * `tools/handlers/shell.rs` and `tools/sandboxing.rs`). "sandboxed" is false under
 * danger-full-access, and false after approving an escalation request.
 *
 * | # | condition                                              | decision                           |
 * |---|--------------------------------------------------------|------------------------------------|
 * | 1 | `require_escalated` and policy is not on-request        | reject (tell the model not to ask) |
 * | 2 | a rule says `forbidden`                                 | reject                             |
 * | 3 | a rule says `allow` (every command of the script)       | run, not sandboxed                 |
 * | 4 | a rule says `prompt`                                    | never: reject; else ask            |
 * | 5 | untrusted and the command is known safe                 | run sandboxed; with git: run in a  |
 * |   |                                                         | read-only sandbox, and under       |
 * |   |                                                         | danger-full-access ask             |
 * | 6 | the command looks dangerous (`rm -rf`, `git reset`, …)  | never: reject; else ask            |
 * | 7 | never, on-failure                                       | run sandboxed                      |
 * | 8 | untrusted                                               | ask                                |
 * | 9 | on-request under danger-full-access                     | run (no sandbox to escape)         |
 * |10 | on-request with `require_escalated`                     | ask; approved → run unsandboxed    |
 * |11 | on-request                                              | run sandboxed                      |
 *
 * Row 5 and git: git runs programs that the configuration of the repository it finds names
 * (`core.fsmonitor`, hooks, filter and textconv drivers, gpg), and the repository is chosen by
 * the working directory, which workspace content decides (a plain-file git dir with a
 * `core.worktree`, a planted `sub/.git`). No option turns every one of them off (filters are
 * named by `.gitattributes`), so a safe git that runs without asking runs in a read-only
 * sandbox with the network off, where such a program can change nothing; where there is no
 * sandbox (danger-full-access) it is asked about like any other command.
 *
 * Every "ask" becomes "run" when the same command was approved for the session; the caller
 * passes, for an escalation (an ask whose approval runs it outside the sandbox), only approvals
 * of unsandboxed runs (`SessionApprovals.isCommandApproved(argv, { isUnsandboxed: true })`).
 */
import type { ApprovalPolicy, SandboxPolicy } from '@deputy/protocol';
import { commandMightBeDangerous, isKnownSafeCommand } from './safe-commands.js';

/** Whether the model asked to run outside the sandbox (the shell tool's `sandbox_permissions`). */
export type SandboxPermissions = 'use_default' | 'require_escalated';

/** What a matching rule from `rules/default.rules` says (Codex execpolicy decisions). */
export type RuleDecision = 'allow' | 'prompt' | 'forbidden';

/** Facts about one command the model wants to run. */
export interface ExecDecisionInput {
  argv: readonly string[];
  approvalPolicy: ApprovalPolicy;
  sandbox: SandboxPolicy;
  sandboxPermissions: SandboxPermissions;
  /** The same command was approved for the session earlier in this thread. */
  isApprovedForSession: boolean;
  /** An `allow` prefix rule matches (every command of a plain shell script). */
  matchesAllowRule: boolean;
  /** The strictest matching rule decision, when known; takes precedence over `matchesAllowRule`. */
  ruleDecision?: RuleDecision | null;
}

/**
 * Where a safe-list command with git runs instead of the turn's sandbox: nothing writable, no
 * network (row 5).
 */
export const SAFE_GIT_SANDBOX: SandboxPolicy = { type: 'read-only', networkAccess: false };

/** What a command may do unless the user was asked: git's configured programs included. */
const GIT_NEEDS_SANDBOX_REASON =
  'git runs programs that the repository configuration names (fsmonitor, filters, textconv), and nothing confines them under danger-full-access';

/** The outcome for a command. */
export type ExecDecision =
  /** `sandbox`: the policy to confine it with instead of the turn's (a safe git, row 5). */
  | { kind: 'run'; sandboxed: boolean; sandbox?: SandboxPolicy }
  | { kind: 'ask'; reason: string; sandboxedAfterApproval: boolean }
  | { kind: 'reject'; reason: string };

/** Decides whether a command runs, is asked about, or is refused. See the table above. */
export function decideExec(input: ExecDecisionInput): ExecDecision {
  const { approvalPolicy: policy, sandbox } = input;
  const hasSandbox = sandbox.type !== 'danger-full-access';
  const escalated = input.sandboxPermissions === 'require_escalated';
  const rule = input.ruleDecision ?? (input.matchesAllowRule ? 'allow' : null);
  const ask = (reason: string): ExecDecision => {
    const sandboxedAfterApproval = hasSandbox && !escalated;
    return input.isApprovedForSession ? { kind: 'run', sandboxed: sandboxedAfterApproval } : { kind: 'ask', reason, sandboxedAfterApproval };
  };

  if (escalated && policy !== 'on-request') {
    return {
      kind: 'reject',
      reason: `approval policy is ${policy}; running outside the sandbox cannot be requested under this policy, so run the command without asking for escalated permissions`,
    };
  }
  if (rule === 'forbidden') return { kind: 'reject', reason: 'the command is forbidden by an exec policy rule' };
  if (rule === 'allow') return { kind: 'run', sandboxed: false };
  if (rule === 'prompt') {
    if (policy === 'never') return { kind: 'reject', reason: 'an exec policy rule requires approval, but the approval policy is never' };
    return ask('an exec policy rule requires approval for this command');
  }
  // Row 5: known safe; with git only where it cannot change anything.
  const isSafe = policy === 'untrusted' && isKnownSafeCommand(input.argv);
  if (isSafe && isKnownSafeCommand(input.argv, { allowGit: false })) return { kind: 'run', sandboxed: hasSandbox };
  if (isSafe && hasSandbox) return { kind: 'run', sandboxed: true, sandbox: SAFE_GIT_SANDBOX };
  if (commandMightBeDangerous(input.argv)) {
    if (policy === 'never') return { kind: 'reject', reason: 'the command looks destructive and the approval policy is never, so it was not run' };
    return ask('the command looks destructive');
  }
  switch (policy) {
    case 'never':
    case 'on-failure':
      return { kind: 'run', sandboxed: hasSandbox };
    case 'untrusted':
      return ask(isSafe ? GIT_NEEDS_SANDBOX_REASON : 'the command is not known to be read-only');
    case 'on-request':
      if (!hasSandbox) return { kind: 'run', sandboxed: false };
      if (escalated) return ask('the command asks to run outside the sandbox');
      return { kind: 'run', sandboxed: true };
  }
}

/** What to do after the sandbox denied a command. */
export type SandboxFailureDecision = 'ask-unsandboxed' | 'retry-unsandboxed' | 'report';

/** The reason of the question before a rerun without the sandbox (the reference's wording). */
export const SANDBOX_RETRY_REASON = 'command failed; retry without sandbox?';

/**
 * After a sandboxed command was blocked: `untrusted` and `on-failure` ask whether to rerun it
 * without the sandbox, a question of its own whose reason says so ({@link SANDBOX_RETRY_REASON});
 * an approval of the sandboxed run, in this call or for the session, never answers it. Only a
 * session approval of running this command *without* the sandbox (`isUnsandboxedApproved`, an
 * earlier "for this session" answer to this very question or to an escalation) reruns it without
 * asking. `on-request` and `never` report the failure to the model, which may escalate itself under
 * on-request (reference: `wants_no_sandbox_approval` in `tools/sandboxing.rs`, which asks again).
 */
export function decideAfterSandboxFailure(input: { approvalPolicy: ApprovalPolicy; isUnsandboxedApproved?: boolean }): SandboxFailureDecision {
  switch (input.approvalPolicy) {
    case 'untrusted':
    case 'on-failure':
      return input.isUnsandboxedApproved === true ? 'retry-unsandboxed' : 'ask-unsandboxed';
    case 'on-request':
    case 'never':
      return 'report';
  }
}

/** The reason given to the model when a patch is refused (Codex wording, paraphrased). */
export const PATCH_REJECTED_REASON = 'writing outside of the writable roots was rejected by the approval policy (never)';

/** Facts about one patch the model wants to apply. */
export interface PatchDecisionInput {
  approvalPolicy: ApprovalPolicy;
  /** Every path the patch adds, changes, deletes or moves to is writable (see `isWritablePath` in exec/sandbox.ts). */
  allPathsWritable: boolean;
  /** Every path of the patch was approved for the session earlier in this thread. */
  isApprovedForSession: boolean;
}

/**
 * Decides a patch (reference: `assess_patch_safety` in `core/src/safety.rs`): `untrusted` always
 * asks; otherwise patches inside the writable roots apply; outside them `never` refuses and the
 * other policies ask. A session approval of all its paths turns "ask" into "apply".
 * Deviation: the reference lets `on-failure` try an outside write in the sandbox and asks when
 * that fails; here the paths are checked before writing (the sandboxed writer would refuse an
 * outside write anyway), so `on-failure` asks up front.
 */
export function decidePatch(input: PatchDecisionInput): 'apply' | 'ask' | 'reject' {
  const askOrApply = input.isApprovedForSession ? 'apply' : 'ask';
  if (input.approvalPolicy === 'untrusted') return askOrApply;
  if (input.allPathsWritable) return 'apply';
  if (input.approvalPolicy === 'never') return 'reject';
  return askOrApply;
}
