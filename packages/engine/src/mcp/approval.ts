/**
 * Whether a model-driven MCP tool call runs, is asked about, or is declined: the reference's
 * decision table (Codex 0.130.0) with Deputy's rule for `never`. Pure.
 *
 * | policy / sandbox                 | mode      | annotations                         | decision |
 * |----------------------------------|-----------|-------------------------------------|----------|
 * | never + danger-full-access       | any       | any                                 | run      |
 * | any                              | approve   | any                                 | run      |
 * | any                              | auto      | readOnly, or !destructive && !open  | run      |
 * | any                              | auto/prompt | remembered for the session (auto) | run      |
 * | never (other sandboxes)          | auto/prompt | otherwise                         | decline (B3: never prompts) |
 * | untrusted, on-failure, on-request| auto/prompt | otherwise                         | ask      |
 */
import type { ApprovalPolicy, SandboxPolicy } from '@deputy/protocol';
import type { McpApprovalMode } from './config.js';

/** The decision for one call. */
export type McpApprovalDecision = 'run' | 'ask' | 'decline';

/** MCP tool annotations (hints). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

/** What the model reads when `never` declines a gated call. */
export const NEVER_DECLINE_TEXT =
  'MCP tool call needs approval but the approval policy is never; allow it with approval_mode = "approve" for this tool or server';

/** Decides one call (see the table above). */
export function decideMcpApproval(input: {
  policy: ApprovalPolicy;
  sandbox: SandboxPolicy;
  mode: McpApprovalMode;
  hints: ToolHints | undefined;
  isSessionApproved: boolean;
}): McpApprovalDecision {
  if (input.policy === 'never' && input.sandbox.type === 'danger-full-access') return 'run';
  if (input.mode === 'approve') return 'run';
  if (input.mode === 'auto') {
    const h = input.hints ?? {};
    if (h.readOnlyHint === true || (h.destructiveHint === false && h.openWorldHint === false)) return 'run';
    if (input.isSessionApproved) return 'run';
  }
  return input.policy === 'never' ? 'decline' : 'ask';
}
