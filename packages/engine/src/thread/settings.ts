/**
 * Thread settings: what a turn runs with (cwd, model, policies, instructions). A thread has
 * defaults; a turn may override them, and, as in Codex, overrides become the thread's defaults.
 */
import { resolve } from 'node:path';
import type { ApprovalPolicy, ReasoningEffort, ReasoningSummary, SandboxMode, SandboxPolicy } from '@deputy/protocol';

/** The settings a turn runs with. */
export interface ThreadSettings {
  cwd: string;
  model: string;
  reasoningEffort: ReasoningEffort | null;
  reasoningSummary: ReasoningSummary | null;
  approvalPolicy: ApprovalPolicy;
  sandboxPolicy: SandboxPolicy;
  /** Replaces Deputy's base instructions when set. */
  baseInstructions: string | null;
  /** Extra developer instructions sent with every request. */
  developerInstructions: string | null;
  /** Prompt used to summarise history when compacting. */
  compactPrompt: string | null;
  /** The collaboration mode (`plan` offers `request_user_input`); absent: `default`. */
  collaborationMode?: CollaborationModeKind;
}

/** A collaboration mode preset: `plan` (the model may ask the user) or `default`. */
export type CollaborationModeKind = 'plan' | 'default';

/**
 * What the context messages (environment context, instructions) depend on: when a turn's key
 * equals the one the model has seen, they are not sent again. Stored on each `turn_started` line
 * so a resumed thread knows what its history already holds.
 */
export function contextKeyOf(s: ThreadSettings): string {
  return JSON.stringify([s.cwd, s.sandboxPolicy, s.approvalPolicy, s.developerInstructions]);
}

/** Per-turn overrides (all optional). */
export interface TurnOverrides {
  cwd?: string;
  model?: string;
  reasoningEffort?: ReasoningEffort | null;
  reasoningSummary?: ReasoningSummary | null;
  approvalPolicy?: ApprovalPolicy;
  sandboxPolicy?: SandboxPolicy;
  /** JSON Schema the final answer must follow; this turn only. */
  outputSchema?: Record<string, unknown> | null;
  /** Collaboration mode from this turn on. */
  collaborationMode?: CollaborationModeKind;
  /** The client's id of this turn's user message (becomes the message's `clientId`); this turn only. */
  clientUserMessageId?: string | null;
  /** The first turn of the chain of work this turn continues; absent: the turn is its own root. This turn only. */
  rootTurnId?: string | null;
}

/** Extra writable-root settings used to expand a sandbox mode into a policy. */
export interface WorkspaceWriteOptions {
  writableRoots?: string[];
  networkAccess?: boolean;
  excludeTmpdirEnvVar?: boolean;
  excludeSlashTmp?: boolean;
}

/** Expands a sandbox mode (config, CLI, MCP argument) into a full policy. */
export function sandboxPolicyFromMode(mode: SandboxMode, options: WorkspaceWriteOptions = {}): SandboxPolicy {
  switch (mode) {
    case 'danger-full-access':
      return { type: 'danger-full-access' };
    case 'read-only':
      return { type: 'read-only', networkAccess: false };
    case 'workspace-write':
      return {
        type: 'workspace-write',
        writableRoots: options.writableRoots ?? [],
        networkAccess: options.networkAccess ?? false,
        excludeTmpdirEnvVar: options.excludeTmpdirEnvVar ?? false,
        excludeSlashTmp: options.excludeSlashTmp ?? false,
      };
  }
}

/** The mode a policy was made from. */
export function sandboxModeOf(policy: SandboxPolicy): SandboxMode {
  return policy.type;
}

/** Applies overrides to settings (returns a new object). */
export function applyTurnOverrides(settings: ThreadSettings, overrides: TurnOverrides): ThreadSettings {
  const next = { ...settings };
  if (overrides.cwd !== undefined) next.cwd = resolve(overrides.cwd);
  if (overrides.model !== undefined) next.model = overrides.model;
  if (overrides.reasoningEffort !== undefined) next.reasoningEffort = overrides.reasoningEffort;
  if (overrides.reasoningSummary !== undefined) next.reasoningSummary = overrides.reasoningSummary;
  if (overrides.approvalPolicy !== undefined) next.approvalPolicy = overrides.approvalPolicy;
  if (overrides.sandboxPolicy !== undefined) next.sandboxPolicy = overrides.sandboxPolicy;
  if (overrides.collaborationMode !== undefined) next.collaborationMode = overrides.collaborationMode;
  return next;
}
