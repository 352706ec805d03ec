/**
 * The types a thread is described by: its static facts, its collaborators, its turns as it keeps
 * them and the handles it gives out. A leaf module: it holds types only and imports no other
 * module of `thread/` except leaf type modules, so every module may import it without a cycle.
 */
import type { ApprovalRequest, DynamicTool, ThreadItem, TurnInfo } from '@deputy/protocol';
import type { ApprovalPort } from '../approvals/approval-port.js';
import type { ExecSessionManager } from '../exec/exec-session.js';
import type { HookSet } from '../hooks/discovery.js';
import type { ModelClient } from '../model/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { McpManager } from '../mcp/manager.js';
import type { SkillSet } from '../skills/discovery.js';
import type { RolloutSink } from './rollout-sink.js';
import type { ThreadSettings, TurnOverrides } from './settings.js';

/** What the model runs on, as the catalogue describes it. */
export interface ModelInfo {
  contextWindow: number | null;
  supportsReasoning: boolean;
  supportsReasoningSummaries: boolean;
  /** Whether the model reads images (absent: it does, the reference's default). */
  supportsImageInput?: boolean;
  known: boolean;
}

/** What the index learns of a thread after a persisted change. */
export interface ThreadActivity {
  readonly id: string;
  readonly updatedAtMs: number;
  readonly preview: string;
}

/** Collaborators a thread needs; the ThreadManager provides them. */
export interface ThreadDeps {
  modelClient: ModelClient;
  wire: 'responses' | 'chat';
  describeModel(model: string): ModelInfo;
  approvals: ApprovalPort;
  rollout: RolloutSink;
  tools: ToolRegistry;
  projectDocMaxBytes: number;
  autoCompactTokenLimit: number | null;
  /** Called after each persisted change that the index cares about. */
  onActivity(thread: ThreadActivity): void;
  /** Called when the thread is closed (kills background processes). */
  onClose?(): void | Promise<void>;
  /** The environment child processes get (shell_environment_policy); default: the default policy. */
  childEnv?(): Record<string, string>;
  /** The thread's MCP servers; absent in tests that build a thread by hand. */
  mcp?: McpManager;
  /** How long a client tool call waits for the client's answer, ms (0: forever; default 300 s). */
  clientToolTimeoutMs?: number;
  /** The exec sessions of the thread's shell tools (its background terminals); absent without them. */
  execSessions?: ExecSessionManager;
  /** Skills and hooks; absent in tests that build a thread by hand (then a thread has neither). */
  extensions?: ThreadExtensions;
  /** Called as a regular turn starts, with its settings (starts taking the shell snapshot). */
  onTurnStart?(settings: ThreadSettings): void;
}

/**
 * Where a thread's turns read skills and hooks from. Both are read again for each turn, from the
 * current config, so a trust decision or a skill toggle written meanwhile applies to the next turn.
 */
export interface ThreadExtensions {
  /** The skills visible from `cwd`. */
  skills(cwd: string): Promise<SkillSet>;
  /** The hooks configured for `cwd`, with their trust. */
  hooks(cwd: string): Promise<HookSet>;
  /** Cap on the characters of the skill list the model sees. */
  readonly skillsMaxChars: number;
  /** Paths hooks, like sandboxed commands, never see. */
  readonly hiddenPaths: readonly string[];
  /** The thread's rollout file (hooks get it as `transcript_path`). */
  readonly transcriptPath: string | null;
}

/** Static facts about a thread. */
export interface ThreadMeta {
  id: string;
  /** The client-provided tools the thread offers (empty: none). */
  dynamicTools?: DynamicTool[];
  createdAtMs: number;
  modelProvider: string;
  source: string;
  forkedFromId: string | null;
  cliVersion: string;
  /** In memory only: no rollout, no index row; gone once unloaded. */
  ephemeral?: boolean;
}

/** A turn as the thread keeps it: its info and its completed items. */
export interface TurnRecord {
  info: TurnInfo;
  items: ThreadItem[];
}

/** A pending approval, for status views. */
export interface PendingApproval {
  approvalId: string;
  turnId: string;
  request: ApprovalRequest;
}

/** A running turn's handle. */
export interface TurnHandle {
  turnId: string;
  /** Resolves with the final turn info (completed, interrupted or failed); never rejects. */
  done: Promise<TurnInfo>;
}

/** Options to start a thread; unset fields come from the config. */
export type StartThreadOptions = TurnOverrides & {
  baseInstructions?: string | null;
  developerInstructions?: string | null;
  compactPrompt?: string | null;
  /** Who created it (`exec`, `mcp`, `vscode`, …); defaults to the manager's source. */
  source?: string;
  /** Keep the thread in memory only: nothing is written, it is never listed. */
  ephemeral?: boolean;
  /** Tools the client provides (run by the front door's clients); persisted with the thread. */
  dynamicTools?: DynamicTool[];
};
