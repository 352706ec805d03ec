/**
 * The one seam every kind of turn shares: an ordinary turn, a compaction, a review and a user
 * shell command each run against a `TurnScope`, which is what the turn may see of its thread and
 * the only way it changes it (events, history, approvals). `Thread` makes one scope per turn;
 * tests make fake ones. A leaf module: types only, no value imports, so the turn modules depend
 * on it and never on `thread.ts`.
 */
import type { ApprovalRequest, EngineEventBody, ThreadTokenUsage, UserInput } from '@deputy/protocol';
import type { HookEntry } from '../hooks/discovery.js';
import type { ApprovalAnswer } from '../approvals/approval-port.js';
import type { ResponseItem } from '../model/types.js';
import type { SkillSet } from '../skills/discovery.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ThreadSettings } from './settings.js';
import type { ThreadDeps } from './thread-types.js';

/**
 * The kinds of turn. `compact`: a turn that only compacts the history (`Thread.startCompaction`);
 * it takes no steer input. `userShell`: a turn that only runs a user shell command
 * (`Thread.runUserShellCommand`). `review`: a code review (`Thread.startReview`, see review.ts);
 * it takes no steer input either.
 */
export type TurnKind = 'regular' | 'compact' | 'userShell' | 'review';

/** A review ready to run: the reviewer's prompt and the short text shown to users. */
export interface ReviewRequest {
  prompt: string;
  /** What is reviewed, for display (`current changes`, `changes against 'main'`, `commit abc1234: …`). */
  hint: string;
}

/** The mutable state of the active turn, shared by the thread (steer, interrupt) and the runner. */
export interface ActiveTurn {
  id: string;
  kind: TurnKind;
  /** What a `review` turn reviews (its prompt and the text shown to users). */
  review?: ReviewRequest;
  settings: ThreadSettings;
  outputSchema: Record<string, unknown> | null;
  controller: AbortController;
  /** Steer input waiting for the next model request, each with the client's id of the message. */
  steerQueue: Array<{ input: UserInput[]; clientId: string | null }>;
  /** The first turn of the chain of work this turn belongs to (its own id unless its starter named another). */
  rootTurnId: string;
  /** The client's id of the turn's user message, or null. */
  clientUserMessageId: string | null;
  startedAtMs: number;
  /** Per-turn scratch space for tools (e.g. the aggregate diff tracker). */
  toolState: Map<string, unknown>;
  /** User shell commands that joined this turn and still run; the turn completes after them. */
  userShells: Set<Promise<void>>;
  /** Model items waiting for the turn's next model request (user shell records). */
  pendingHistory: ResponseItem[];
  /** Set on the thread's first turn since it was loaded: `SessionStart` hooks run with this source. */
  sessionStart?: 'startup' | 'resume';
  /** The skills and hooks this turn runs with, read when it starts (see `loadTurnExtensions`). */
  extensions?: TurnExtensionState;
}

/** The skills and runnable hooks a turn read at its start. */
export interface TurnExtensionState {
  skills: SkillSet | null;
  hooks: HookEntry[];
  /** The `<skills_instructions>` text for the context messages, or null. */
  skillsInstructions: string | null;
}

/** A tool call the model made. */
export type ToolCall = Extract<ResponseItem, { type: 'function_call' | 'custom_tool_call' }>;

/** The collaborators a turn uses: the thread's model, catalogue facts, tools and child environment. */
export type TurnDeps = Pick<ThreadDeps, 'modelClient' | 'wire' | 'describeModel' | 'projectDocMaxBytes' | 'autoCompactTokenLimit' | 'childEnv' | 'extensions' | 'clientToolTimeoutMs'> & {
  tools: Pick<ToolRegistry, 'specs' | 'dispatch'> & Partial<Pick<ToolRegistry, 'prepare' | 'supportsParallel'>>;
  /** The thread's approval port (MCP tool calls ask it directly); absent in fakes. */
  approvals?: ThreadDeps['approvals'];
};

/** What a turn sees of its thread, and the only way it changes the thread. */
export interface TurnScope {
  readonly threadId: string;
  readonly turn: ActiveTurn;
  readonly deps: TurnDeps;
  /** The model history, in order. Read-only: only the methods below change it. */
  readonly history: readonly ResponseItem[];
  /** The settings key (`contextKeyOf`) of the context messages the history holds; null when unknown. */
  readonly contextKey: string | null;
  /** The thread's token usage so far. */
  readonly usage: ThreadTokenUsage | null;
  /** True after a compaction until a request reports fresh usage. */
  readonly usageIsStale: boolean;
  /** The user input this turn has recorded so far, in order (what a compaction keeps). */
  userInputs(): UserInput[][];
  /** Stamps, persists and publishes an event of this turn. */
  emit(body: EngineEventBody): void;
  /** Appends an item to the model history (and the rollout), and publishes it raw. */
  record(item: ResponseItem): void;
  /** Records the context messages of `contextKey`'s settings (see `contextKeyOf`). */
  recordContext(items: readonly ResponseItem[], contextKey: string): void;
  /**
   * Replaces the whole history with `items` (the context messages of `contextKey`, a compaction
   * summary, the turn's input): the rollout gets a `compacted` line carrying `summary`, then the
   * items; usage counts as stale until the next request reports it.
   */
  replaceHistory(summary: string, items: readonly ResponseItem[], contextKey: string): void;
  /** Asks the approval port, emitting approval events; settles as `abort` when the turn aborts. */
  requestApproval(request: ApprovalRequest): Promise<ApprovalAnswer>;
}
