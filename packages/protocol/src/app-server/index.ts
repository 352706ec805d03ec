/**
 * Public surface of the app-server wire contract: zod schemas with their types, one module per
 * area, and the method tables in `methods.ts`. Explicit named exports only; nothing here opens a
 * socket or knows about the engine.
 */
export {
  isAbsolutePath, AbsolutePathSchema, Int64Schema, Int32Schema, UInt32Schema, UInt16Schema, UIntSchema,
  PayloadRequestIdSchema, NoParamsSchema, EmptyResultSchema,
} from './primitives.js';
export type {
  AbsolutePath, PayloadRequestId, NoParams, EmptyResult,
} from './primitives.js';
export {
  GranularApprovalSchema, AskForApprovalSchema, ApprovalsReviewerSchema, PersonalitySchema,
  NetworkAccessSchema, SandboxPolicySchema, FileSystemSpecialPathSchema, FileSystemPathSchema,
  FileSystemAccessModeSchema, FileSystemSandboxEntrySchema, PermissionProfileNetworkSchema,
  PermissionProfileSchema, PermissionProfileModificationSchema, ActivePermissionProfileSchema,
  PermissionProfileSelectionSchema,
} from './policies.js';
export type {
  GranularApproval, AskForApproval, ApprovalsReviewer, Personality, NetworkAccess, SandboxPolicy,
  FileSystemSpecialPath, FileSystemPath, FileSystemAccessMode, FileSystemSandboxEntry, PermissionProfile,
  PermissionProfileModification, ActivePermissionProfile, PermissionProfileSelection,
} from './policies.js';
export {
  UserInputSchema, CommandActionSchema, CommandExecutionSourceSchema, ToolItemStatusSchema, CallStatusSchema,
  PatchChangeKindSchema, FileUpdateChangeSchema, MessagePhaseSchema, MemoryCitationSchema,
  DynamicToolCallOutputContentItemSchema, WebSearchActionSchema, CollabAgentStateSchema, ThreadItemSchema,
} from './items.js';
export type {
  UserInput, CommandAction, CommandExecutionSource, ToolItemStatus, CallStatus, MessagePhase, MemoryCitation,
  ThreadItem, ThreadItemType,
} from './items.js';
export {
  ThreadActiveFlagSchema, ThreadStatusSchema, TurnStatusSchema, TurnItemsViewSchema, CodexErrorInfoSchema,
  TurnErrorSchema, TurnSchema, SubAgentSourceSchema, SessionSourceSchema, ThreadSourceSchema, GitInfoSchema,
  ThreadSchema, ThreadTokenUsageSchema,
} from './shared.js';
export type {
  ThreadActiveFlag, ThreadStatus, TurnItemsView, CodexErrorInfo, TurnError, Turn, SessionSource,
  ThreadSource, GitInfo, Thread, ThreadTokenUsage,
} from './shared.js';
export {
  ThreadRevertParamsSchema, ThreadRevertResultSchema, ThreadItemsListAnchorSchema, ThreadItemsListParamsSchema,
  ThreadItemEntrySchema, ThreadItemsListResultSchema, ThreadItemsReadParamsSchema, ThreadItemsReadResultSchema,
  ThreadGoalStatusSchema, ThreadGoalSchema, ThreadGoalSetParamsSchema, QueuedSubmissionSchema,
  ThreadQueueAddParamsSchema, ThreadQueueUpdateParamsSchema, ThreadSearchParamsSchema,
  ThreadSearchResultEntrySchema, ThreadSearchResultSchema, ThreadSearchOccurrenceSchema, ThreadSectionSchema,
  ThreadReadStateUpdateParamsSchema, ThreadSectionUpdateParamsSchema,
} from './thread-0171.js';
export { ExternalAgentConfigImportHistoryRecordParamsSchema, ExternalAgentConfigImportHistorySchema } from './external-agent-import.js';
export type { ExternalAgentConfigImportHistoryRecordParams, ExternalAgentConfigImportHistory } from './external-agent-import.js';
export { McpServerEventStreamStartParamsSchema } from './mcp-event-stream.js';
export type { McpServerEventStreamStartParams } from './mcp-event-stream.js';
export { FeedbackSaveParamsSchema } from './server-local.js';
export type { FeedbackSaveParams } from './server-local.js';
export { ThreadTimelineEntrySchema } from './thread-timeline.js';
export type { ThreadTimelineEntry } from './thread-timeline.js';
export { ThreadAttachmentSchema, ThreadAttachmentAddParamsSchema } from './thread-attachment.js';
export type { ThreadAttachment } from './thread-attachment.js';
export { ThreadUnreadPositionSchema, ThreadReadStateSchema } from './thread-read-state.js';
export {
  ProjectRootSchema, ProjectSchema, ProjectSortKeySchema, ProjectListParamsSchema, ProjectCreateParamsSchema,
  ProjectImportParamsSchema, ProjectUpdateParamsSchema, ThreadMetadataUpdateParamsSchema,
} from './project.js';
export type { Project, ProjectListParams, ProjectCreateParams, ProjectImportParams, ProjectUpdateParams, ThreadMetadataUpdateParams } from './project.js';
export type { ThreadUnreadPosition, ThreadReadState } from './thread-read-state.js';
export type {
  ThreadRevertParams, ThreadRevertResult, ThreadItemsListAnchor, ThreadItemsListParams, ThreadItemEntry,
  ThreadItemsListResult, ThreadItemsReadParams, ThreadItemsReadResult, ThreadGoalStatus, ThreadGoal,
  ThreadGoalGetResult, ThreadGoalSetParams, QueuedSubmission, ThreadQueueAddParams, ThreadQueueUpdateParams,
  ThreadSearchParams, ThreadSearchResultEntry, ThreadSearchResult, ThreadSearchOccurrencesParams, ThreadSearchOccurrence,
  ThreadSection, ThreadReadStateUpdateParams, ThreadSectionUpdateParams,
} from './thread-0171.js';
export {
  ClientInfoSchema, InitializeCapabilitiesSchema, InitializeParamsSchema, InitializeResultSchema,
} from './initialize.js';
export type {
  ClientInfo, InitializeCapabilities, InitializeParams, InitializeResult,
} from './initialize.js';
export {
  DynamicToolSpecSchema, TurnEnvironmentSchema, ThreadStartParamsSchema, ThreadSessionResultSchema,
  ThreadResumeParamsSchema, ThreadForkParamsSchema, ThreadIdParamsSchema, ThreadResultSchema, ThreadReadResultSchema,
  ThreadUnsubscribeResultSchema, ThreadSetNameParamsSchema, ThreadRollbackParamsSchema,
  ThreadSourceKindSchema, ThreadListParamsSchema, ThreadListResultSchema, ThreadLoadedListParamsSchema,
  ThreadLoadedListResultSchema, ThreadReadParamsSchema,
} from './thread.js';
export type {
  DynamicToolSpec, TurnEnvironment, ThreadStartParams, ThreadSessionResult, ThreadResumeParams,
  ThreadForkParams, ThreadIdParams, ThreadResult, ThreadReadResult, ThreadUnsubscribeResult, ThreadSetNameParams,
  ThreadRollbackParams, ThreadSourceKind, ThreadListParams, ThreadListResult, ThreadLoadedListParams,
  ThreadLoadedListResult, ThreadReadParams,
} from './thread.js';
export {
  ModeKindSchema, CollaborationModeSchema, TurnStartParamsSchema, TurnStartResultSchema,
  TurnSteerParamsSchema, TurnSteerResultSchema, TurnInterruptParamsSchema,
} from './turn.js';
export type {
  ModeKind, CollaborationMode, TurnStartParams, TurnStartResult, TurnSteerParams, TurnSteerResult,
  TurnInterruptParams,
} from './turn.js';
export { ThreadShellCommandParamsSchema, ThreadShellCommandResultSchema } from './shell-command.js';
export { ReviewTargetSchema, ReviewDeliverySchema, ReviewStartParamsSchema, ReviewStartResultSchema } from './review.js';
export type { ReviewTarget, ReviewDelivery, ReviewStartParams, ReviewStartResult } from './review.js';
export type { ThreadShellCommandParams, ThreadShellCommandResult } from './shell-command.js';
export {
  PageSortDirectionSchema, ThreadTurnsListParamsSchema, ThreadTurnsListResultSchema, ThreadTurnsItemsListParamsSchema,
  ThreadTurnsItemsListResultSchema,
} from './turns-list.js';
export type {
  PageSortDirection, ThreadTurnsListParams, ThreadTurnsListResult, ThreadTurnsItemsListParams,
  ThreadTurnsItemsListResult,
} from './turns-list.js';
export {
  PlanTypeSchema, AccountSchema, AuthModeSchema, GetAccountParamsSchema, GetAccountResultSchema,
  LoginAccountParamsSchema, LoginAccountResultSchema, CancelLoginAccountParamsSchema,
  CancelLoginAccountResultSchema, RateLimitWindowSchema, CreditsSnapshotSchema, RateLimitSnapshotSchema,
  GetAccountRateLimitsResultSchema,
} from './account.js';
export type {
  PlanType, Account, AuthMode, GetAccountParams, GetAccountResult, LoginAccountParams, LoginAccountResult,
  CancelLoginAccountParams, CancelLoginAccountResult, RateLimitWindow, CreditsSnapshot, RateLimitSnapshot,
  GetAccountRateLimitsResult,
} from './account.js';
export {
  ConfigLayerSourceSchema, ConfigLayerMetadataSchema, ConfigLayerSchema, ConfigSchema,
  ConfigReadParamsSchema, ConfigReadResultSchema, MergeStrategySchema, ConfigEditSchema,
  ConfigValueWriteParamsSchema, ConfigBatchWriteParamsSchema, ConfigWriteResultSchema,
  ConfigRequirementsSchema, ConfigRequirementsReadResultSchema,
} from './config.js';
export type {
  ConfigLayerSource, ConfigLayerMetadata, ConfigLayer, Config, ConfigReadParams, ConfigReadResult,
  MergeStrategy, ConfigEdit, ConfigValueWriteParams, ConfigBatchWriteParams, ConfigWriteResult,
  ConfigRequirements, ConfigRequirementsReadResult,
} from './config.js';
export {
  ModelListParamsSchema, ReasoningEffortOptionSchema, ModelSchema, ModelListResultSchema,
  ModelProviderCapabilitiesReadParamsSchema, ModelProviderCapabilitiesReadResultSchema,
} from './model.js';
export type {
  ModelListParams, ReasoningEffortOption, Model, ModelListResult, ModelProviderCapabilitiesReadParams,
  ModelProviderCapabilitiesReadResult,
} from './model.js';
export {
  LoadErrorSchema, SkillsListParamsSchema, SkillInterfaceSchema, SkillMetadataSchema, SkillsListResultSchema,
  HooksListParamsSchema, HookMetadataSchema, HooksListResultSchema, AppsListParamsSchema, AppInfoSchema,
  AppsListResultSchema, CollaborationModeListParamsSchema, CollaborationModeMaskSchema,
  CollaborationModeListResultSchema, ExperimentalFeatureListParamsSchema, ExperimentalFeatureSchema,
  ExperimentalFeatureListResultSchema,
} from './catalog.js';
export type {
  LoadError, SkillsListParams, SkillMetadata, SkillsListResult, HooksListParams, HookMetadata,
  HooksListResult, AppsListParams, AppInfo, AppsListResult, CollaborationModeListParams,
  CollaborationModeMask, CollaborationModeListResult, ExperimentalFeatureListParams, ExperimentalFeature,
  ExperimentalFeatureListResult,
} from './catalog.js';
export {
  HookOutputEntrySchema, HookRunSummarySchema, HookRunNotificationSchema, SkillsConfigWriteParamsSchema,
  SkillsConfigWriteResultSchema,
} from './hooks.js';
export type { HookRunSummary, HookRunNotification, SkillsConfigWriteParams, SkillsConfigWriteResult } from './hooks.js';
export {
  TerminalSizeSchema, CommandExecParamsSchema, CommandExecResultSchema, CommandExecWriteParamsSchema,
  CommandExecResizeParamsSchema, CommandExecTerminateParamsSchema, CommandExecOutputDeltaSchema,
} from './command.js';
export type {
  TerminalSize, CommandExecParams, CommandExecResult, CommandExecWriteParams, CommandExecResizeParams,
  CommandExecTerminateParams, CommandExecOutputDelta,
} from './command.js';
export {
  FsPathParamsSchema, FsReadFileResultSchema, FsWriteFileParamsSchema, FsCreateDirectoryParamsSchema,
  FsGetMetadataResultSchema, FsReadDirectoryResultSchema, FsRemoveParamsSchema, FsCopyParamsSchema,
  FsWatchParamsSchema, FsWatchResultSchema, FsUnwatchParamsSchema, FsChangedSchema,
} from './fs.js';
export type {
  FsPathParams, FsReadFileResult, FsWriteFileParams, FsCreateDirectoryParams, FsGetMetadataResult,
  FsReadDirectoryResult, FsRemoveParams, FsCopyParams, FsWatchParams, FsWatchResult, FsUnwatchParams,
  FsChanged,
} from './fs.js';
export {
  FuzzyFileSearchMatchTypeSchema, FuzzyFileSearchResultSchema, FuzzyFileSearchParamsSchema,
  FuzzyFileSearchResponseSchema, FuzzyFileSearchSessionStartParamsSchema, FuzzyFileSearchSessionUpdateParamsSchema,
  FuzzyFileSearchSessionStopParamsSchema, FuzzyFileSearchSessionUpdatedNotificationSchema,
  FuzzyFileSearchSessionCompletedNotificationSchema,
} from './fuzzy-search.js';
export type {
  FuzzyFileSearchMatchType, FuzzyFileSearchResult, FuzzyFileSearchParams, FuzzyFileSearchResponse,
  FuzzyFileSearchSessionStartParams, FuzzyFileSearchSessionUpdateParams, FuzzyFileSearchSessionStopParams,
  FuzzyFileSearchSessionUpdatedNotification, FuzzyFileSearchSessionCompletedNotification,
} from './fuzzy-search.js';
export {
  ThreadIdNotificationSchema, ThreadStartedNotificationSchema, ThreadStatusChangedNotificationSchema,
  ThreadNameUpdatedNotificationSchema, ThreadTokenUsageUpdatedNotificationSchema, TurnNotificationSchema,
  TurnDiffUpdatedNotificationSchema, TurnPlanStepSchema, TurnPlanUpdatedNotificationSchema,
  ItemStartedNotificationSchema, ItemCompletedNotificationSchema, ItemDeltaNotificationSchema,
  ReasoningSummaryTextDeltaNotificationSchema, ReasoningSummaryPartAddedNotificationSchema,
  ReasoningTextDeltaNotificationSchema, ServerRequestResolvedNotificationSchema, ErrorNotificationSchema,
  WarningNotificationSchema, ConfigWarningNotificationSchema, DeprecationNoticeNotificationSchema,
  ContextCompactedNotificationSchema, ModelReroutedNotificationSchema, AccountUpdatedNotificationSchema,
  AccountLoginCompletedNotificationSchema, AccountRateLimitsUpdatedNotificationSchema,
  RemoteControlStatusChangedNotificationSchema, SkillsChangedNotificationSchema,
} from './notifications.js';
export type {
  ThreadIdNotification, ThreadStartedNotification, ThreadStatusChangedNotification,
  ThreadNameUpdatedNotification, ThreadTokenUsageUpdatedNotification, TurnNotification,
  TurnDiffUpdatedNotification, TurnPlanStep, TurnPlanUpdatedNotification, ItemStartedNotification,
  ItemCompletedNotification, ItemDeltaNotification, ReasoningSummaryTextDeltaNotification,
  ReasoningSummaryPartAddedNotification, ReasoningTextDeltaNotification, ServerRequestResolvedNotification,
  ErrorNotification, WarningNotification, ConfigWarningNotification, DeprecationNoticeNotification,
  ContextCompactedNotification, ModelReroutedNotification, AccountUpdatedNotification,
  AccountLoginCompletedNotification, AccountRateLimitsUpdatedNotification,
  RemoteControlStatusChangedNotification, SkillsChangedNotification,
} from './notifications.js';
export {
  NetworkPolicyAmendmentSchema, CommandExecutionApprovalDecisionSchema, AdditionalPermissionProfileSchema,
  CommandExecutionRequestApprovalParamsSchema, CommandExecutionRequestApprovalResultSchema,
  FileChangeRequestApprovalParamsSchema, FileChangeApprovalDecisionSchema,
  FileChangeRequestApprovalResultSchema,
} from './server-requests.js';
export type {
  NetworkPolicyAmendment, CommandExecutionApprovalDecision, CommandExecutionRequestApprovalParams,
  CommandExecutionRequestApprovalResult, FileChangeRequestApprovalParams, FileChangeApprovalDecision,
  FileChangeRequestApprovalResult,
} from './server-requests.js';
export {
  McpServerStatusDetailSchema, ListMcpServerStatusParamsSchema, McpToolSchema, McpResourceSchema,
  McpResourceTemplateSchema, McpAuthStatusSchema, McpServerStartupStateSchema, McpServerStatusSchema,
  ListMcpServerStatusResultSchema, McpServerToolCallParamsSchema, McpServerToolCallResultSchema,
  McpResourceReadParamsSchema, McpResourceContentSchema, McpResourceReadResultSchema,
  McpServerStatusUpdatedNotificationSchema, McpToolCallProgressNotificationSchema,
  McpServerElicitationRequestParamsSchema, McpServerElicitationRequestResultSchema,
} from './mcp.js';
export type {
  McpServerStatusDetail, ListMcpServerStatusParams, McpTool, McpResource, McpResourceTemplate, McpAuthStatus,
  McpServerStartupState, McpServerStatus, ListMcpServerStatusResult, McpServerToolCallParams,
  McpServerToolCallResult, McpResourceReadParams, McpResourceContent, McpResourceReadResult,
  McpServerStatusUpdatedNotification, McpToolCallProgressNotification, McpServerElicitationRequestParams,
  McpServerElicitationRequestResult,
} from './mcp.js';
export {
  GRANULAR_APPROVAL_DESCRIPTOR, clientRequests, serverNotifications, serverRequests, clientNotifications,
  isClientRequestMethod, isServerNotificationMethod, isServerRequestMethod, isClientNotificationMethod,
  experimentalReasonOf,
} from './methods.js';
export type {
  ExperimentalGate, ClientRequestSpec, ServerRequestSpec, ServerNotificationSpec, NotificationAudience,
  ClientRequestMethod, ParamsOf, ParamsInputOf,
  ResultOf, ServerNotificationMethod, NotificationParamsOf, ServerRequestMethod, ServerRequestParamsOf,
  ServerRequestResultOf, ClientNotificationMethod,
} from './methods.js';
export {
  DELIBERATELY_UNSUPPORTED, NOT_YET, LEGACY_CLIENT_REQUESTS, ACCEPTED_CLIENT_REQUEST_METHODS,
  isAcceptedClientRequestMethod,
} from './unsupported.js';
export {
  InputReasoningEffortSchema,
} from './policies.js';
export {
  TurnUserInputSchema,
} from './items.js';
export {
  PermissionProfileListParamsSchema, PermissionProfileListResultSchema, ThreadSettingsUpdateParamsSchema,
  TurnSettingsUpdateParamsSchema, TurnSettingsUpdateResultSchema,
  ThreadSettingsSchema, ThreadSettingsUpdatedNotificationSchema, RemoteControlStatusSchema,
  ModelProviderListResultSchema, ModelProviderConfigWriteParamsSchema,
} from './current.js';
export type {
  ThreadSettingsUpdateParams, ThreadSettings, ModelProviderConfigWriteParams,
  TurnSettingsUpdateParams, TurnSettingsUpdateResult,
} from './current.js';
export {
  CURRENT_ONLY_CLIENT_REQUESTS, CURRENT_UNSERVED, CURRENT_ONLY_SERVER_NOTIFICATIONS,
} from './unsupported-current.js';
export {
  DynamicToolCallParamsSchema, DynamicToolCallResultSchema, ToolRequestUserInputOptionSchema,
  ToolRequestUserInputQuestionSchema, ToolRequestUserInputParamsSchema, ToolRequestUserInputResultSchema,
} from './client-tools.js';
export type {
  DynamicToolCallParams, DynamicToolCallResult, ToolRequestUserInputParams, ToolRequestUserInputResult,
} from './client-tools.js';
export {
  DynamicToolFunctionSpecSchema, DynamicToolNamespaceSpecSchema, LegacyDynamicToolSpecSchema,
} from './thread.js';
export {
  ProcessSpawnParamsSchema, ProcessWriteStdinParamsSchema, ProcessKillParamsSchema, ProcessResizePtyParamsSchema,
  ProcessOutputDeltaSchema, ProcessExitedSchema,
} from './process.js';
export type {
  ProcessSpawnParams, ProcessWriteStdinParams, ProcessKillParams, ProcessResizePtyParams, ProcessOutputDelta,
  ProcessExited,
} from './process.js';
