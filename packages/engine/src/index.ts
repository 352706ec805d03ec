/**
 * @deputy/engine: the coding agent. Front doors use ThreadManager (threads, turns, events),
 * EngineRuntime (config → model client, tools), the ApprovalPort they implement, and config
 * loading. Internals stay private.
 */
export { decisionOf, fixedApprovals, type ApprovalAnswer, type ApprovalOrigin, type ApprovalPort, type ElicitationOrigin, type ExplainedDenial } from './approvals/approval-port.js';
export { readStoredApiKey, removeAuthFile, writeStoredApiKey } from './config/auth.js';
export { canonicalJson } from './config/canonical-json.js';
export { CONFIG_ARGS_USAGE, configArgOptions, overrideSyntaxError } from './config/config-args.js';
export { ConfigError, type ConfigErrorKind } from './config/errors.js';
export { ConfigWriteError, reloadUserConfig, writeUserConfig, type ConfigEdit, type ConfigMergeStrategy, type ConfigWriteRefusal, type OverriddenKey, type UserConfigWrite, type WriteUserConfigOptions } from './config/config-write.js';
export { loadConfig, type ResolvedConfig } from './config/load-config.js';
export { resolveProvider } from './config/resolve-config.js';
export { resolveHome } from './config/home.js';
export { findRepositoryRoot, instructionSources, PROJECT_DOC_FILE, workspaceDirs } from './config/workspace.js';
export {
  EngineError,
  InvalidInputError,
  McpRequiredServersError,
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
export { codexPermissionProfile, codexSandboxPolicy, PROTECTED_DIR_NAMES, sandboxGrants, type SandboxGrants, type WritableGrant } from './exec/sandbox-grants.js';
export { displayCommand, scriptOf, shellQuote } from './exec/shell.js';
export { discoverHooks, HOOK_EVENTS, hookEventLabel, type HookEntry, type HookEvent, type HookSet, type HookTrustStatus } from './hooks/discovery.js';
export { describeModel, listProviderModels } from './model/catalog.js';
export { BUILT_IN_LOCAL_PROVIDERS, type LocalModelServer, type LocalProvider, type LocalProviders } from './model/local-providers.js';
export type { ModelClient, ModelRequest, ModelStreamEvent, ResponseItem, ToolSpec } from './model/types.js';
export { MCP_SERVER_DEFAULTS } from './mcp/config.js';
export { DEFAULT_LOGIN_TIMEOUT_MS, McpOAuth, type McpAuthStatusValue, type McpOAuthLogin, type McpOAuthLoginOutcome } from './mcp/oauth/index.js';
export { discoverSkills, isSkillEnabled, skillToggles, type Skill, type SkillLoadError, type SkillScope, type SkillSet } from './skills/discovery.js';
export { renderSkillsInstructions } from './skills/instructions.js';
export { SkillsWatcher } from './skills/watcher.js';
export { DEPUTY_VERSION, EngineRuntime, type EngineRuntimeOptions } from './thread/runtime.js';
export { diffHunks, diffSideText, type DiffSide } from './tools/apply-patch/diff-sides.js';
export type { EditorFiles, ThreadEditor } from './tools/editor-files.js';
export { cleanBackgroundTerminals } from './tools/shell/services.js';
export { sandboxModeOf, sandboxPolicyFromMode, type ThreadSettings, type TurnOverrides } from './thread/settings.js';
export { MAX_REVIEW_DIFF_CHARS, REVIEW_INTERRUPTED_TEXT, resolveReviewRequest, type ReviewRequest, type ReviewTarget } from './thread/review.js';
export { Thread, type PendingApproval, type ThreadMeta, type TurnHandle, type TurnRecord } from './thread/thread.js';
export { AttachmentStore, type StoredAttachment } from './persistence/attachment-store.js';
export { ImportHistoryStore, type StoredImportHistory } from './persistence/import-history-store.js';
export { ProjectStore, type NewProject, type StoredProject } from './persistence/project-store.js';
export { ThreadStateStore, THREAD_STATE_FILE, type StoredGoal, type StoredMembership, type StoredReadState, type StoredSection, type StoredSubmission } from './persistence/thread-state-store.js';
export {
  ThreadManager,
  type ForkOptions,
  type ManagerEvent,
  type StartThreadOptions,
  type ThreadSnapshot,
  type ThreadSummary,
} from './thread/thread-manager.js';
