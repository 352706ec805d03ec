/**
 * @deputy/engine: the coding agent. Front doors use ThreadManager (threads, turns, events),
 * EngineRuntime (config → model client, tools), the ApprovalPort they implement, and config
 * loading. Internals stay private.
 */
export { decisionOf, fixedApprovals, type ApprovalAnswer, type ApprovalOrigin, type ApprovalPort, type ElicitationOrigin, type ExplainedDenial } from './approvals/approval-port.js';
export { ConfigError } from './config/errors.js';
export { ConfigWriteError, reloadUserConfig, writeUserConfig, type ConfigEdit, type ConfigMergeStrategy, type ConfigWriteRefusal, type OverriddenKey, type UserConfigWrite, type WriteUserConfigOptions } from './config/config-write.js';
export { loadConfig, type ResolvedConfig } from './config/load-config.js';
export { resolveHome } from './config/home.js';
export { findRepositoryRoot, instructionSources, PROJECT_DOC_FILE, workspaceDirs } from './config/workspace.js';
export {
  EngineError,
  InvalidInputError,
  NoActiveTurnError,
  ThreadNotFoundError,
  TurnInProgressError,
  TurnMismatchError,
  TurnNotSteerableError,
} from './errors.js';
export { EventStream } from './events/event-stream.js';
export { wholeSeconds } from './events/timestamps.js';
export { buildChildEnv, ShellEnvironmentPolicySchema, type ShellEnvironmentPolicy } from './exec/env.js';
export { ExecChild, type ExecChildOptions, type OutputStream, type ProcessExit, type TerminalSize } from './exec/child.js';
export { ExecSpawnError, SandboxUnavailableError } from './exec/errors.js';
export { checkSandboxAvailable } from './exec/sandbox-probe.js';
export { PROTECTED_DIR_NAMES, sandboxGrants, type SandboxGrants, type WritableGrant } from './exec/sandbox-grants.js';
export { displayCommand, scriptOf, shellQuote } from './exec/shell.js';
export { describeModel, listProviderModels } from './model/catalog.js';
export { BUILT_IN_LOCAL_PROVIDERS, type LocalModelServer, type LocalProvider, type LocalProviders } from './model/local-providers.js';
export type { ModelClient, ModelRequest, ModelStreamEvent, ResponseItem, ToolSpec } from './model/types.js';
export { DEPUTY_VERSION, EngineRuntime, type EngineRuntimeOptions } from './thread/runtime.js';
export { diffHunks, diffSideText, type DiffSide } from './tools/apply-patch/diff-sides.js';
export { cleanBackgroundTerminals } from './tools/shell/services.js';
export { sandboxModeOf, sandboxPolicyFromMode, type ThreadSettings, type TurnOverrides } from './thread/settings.js';
export { MAX_REVIEW_DIFF_CHARS, REVIEW_INTERRUPTED_TEXT, resolveReviewRequest, type ReviewRequest, type ReviewTarget } from './thread/review.js';
export { Thread, type PendingApproval, type ThreadMeta, type TurnHandle, type TurnRecord } from './thread/thread.js';
export {
  ThreadManager,
  type ForkOptions,
  type ManagerEvent,
  type StartThreadOptions,
  type ThreadSnapshot,
  type ThreadSummary,
} from './thread/thread-manager.js';
