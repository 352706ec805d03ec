/**
 * Policy vocabulary shared by the engine and both front doors: approval policy, sandbox mode,
 * reasoning effort. Wire spellings are Codex's (kebab-case), and input is strict.
 */
import { z } from 'zod';

/** When the agent must ask before running something (Codex `AskForApproval`). */
export const ApprovalPolicySchema = z.enum(['untrusted', 'on-failure', 'on-request', 'never']);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** How commands are confined (Codex `SandboxMode`). */
export const SandboxModeSchema = z.enum(['read-only', 'workspace-write', 'danger-full-access']);
export type SandboxMode = z.infer<typeof SandboxModeSchema>;

/** Reasoning effort requested from reasoning models. */
export const ReasoningEffortSchema = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/** Reasoning summary verbosity. */
export const ReasoningSummarySchema = z.enum(['auto', 'concise', 'detailed', 'none']);
export type ReasoningSummary = z.infer<typeof ReasoningSummarySchema>;

/**
 * The resolved sandbox policy a turn runs under. `writableRoots` are absolute paths added to the
 * turn's cwd in workspace-write mode.
 */
export const SandboxPolicySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('danger-full-access') }),
  z.object({ type: z.literal('read-only'), networkAccess: z.boolean().default(false) }),
  z.object({
    type: z.literal('workspace-write'),
    writableRoots: z.array(z.string()).default([]),
    networkAccess: z.boolean().default(false),
    excludeTmpdirEnvVar: z.boolean().default(false),
    excludeSlashTmp: z.boolean().default(false),
  }),
]);
export type SandboxPolicy = z.infer<typeof SandboxPolicySchema>;

/** The decision a user gives to an approval request (Codex `ReviewDecision`, simplified). */
export const ReviewDecisionSchema = z.enum([
  'approved',
  'approved_for_session',
  'approved_and_remember',
  'denied',
  'abort',
  'timed_out',
]);
export type ReviewDecision = z.infer<typeof ReviewDecisionSchema>;
