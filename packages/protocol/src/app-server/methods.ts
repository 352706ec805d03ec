/**
 * The app-server method tables: the one place that maps wire method names to their schemas.
 * `clientRequests` (method → params, result, experimental gate), `serverNotifications`
 * (method → params, audience), `serverRequests` (method → params, result) and `clientNotifications`. The
 * dispatcher, handler types, test clients and the registry test all read these tables; nothing
 * else may repeat the list. Reference methods we do not serve are listed in `unsupported.ts`.
 */
import type { z } from 'zod';
import {
  CancelLoginAccountParamsSchema,
  CancelLoginAccountResultSchema,
  GetAccountParamsSchema,
  GetAccountRateLimitsResultSchema,
  GetAccountResultSchema,
  LoginAccountParamsSchema,
  LoginAccountResultSchema,
} from './account.js';
import {
  ProcessExitedSchema,
  ProcessKillParamsSchema,
  ProcessOutputDeltaSchema,
  ProcessResizePtyParamsSchema,
  ProcessSpawnParamsSchema,
  ProcessWriteStdinParamsSchema,
} from './process.js';
import {
  DynamicToolCallParamsSchema,
  DynamicToolCallResultSchema,
  ToolRequestUserInputParamsSchema,
  ToolRequestUserInputResultSchema,
} from './client-tools.js';
import {
  AppsListParamsSchema,
  AppsListResultSchema,
  CollaborationModeListParamsSchema,
  CollaborationModeListResultSchema,
  ExperimentalFeatureListParamsSchema,
  ExperimentalFeatureListResultSchema,
  HooksListParamsSchema,
  HooksListResultSchema,
  SkillsListParamsSchema,
  SkillsListResultSchema,
} from './catalog.js';
import {
  CommandExecOutputDeltaSchema,
  CommandExecParamsSchema,
  CommandExecResizeParamsSchema,
  CommandExecResultSchema,
  CommandExecTerminateParamsSchema,
  CommandExecWriteParamsSchema,
} from './command.js';
import { HookRunNotificationSchema, SkillsConfigWriteParamsSchema, SkillsConfigWriteResultSchema } from './hooks.js';
import {
  ConfigBatchWriteParamsSchema,
  ConfigReadParamsSchema,
  ConfigReadResultSchema,
  ConfigRequirementsReadResultSchema,
  ConfigValueWriteParamsSchema,
  ConfigWriteResultSchema,
} from './config.js';
import {
  FsChangedSchema,
  FsCopyParamsSchema,
  FsCreateDirectoryParamsSchema,
  FsGetMetadataResultSchema,
  FsPathParamsSchema,
  FsReadDirectoryResultSchema,
  FsReadFileResultSchema,
  FsRemoveParamsSchema,
  FsUnwatchParamsSchema,
  FsWatchParamsSchema,
  FsWatchResultSchema,
  FsWriteFileParamsSchema,
} from './fs.js';
import {
  FuzzyFileSearchParamsSchema,
  FuzzyFileSearchResponseSchema,
  FuzzyFileSearchSessionCompletedNotificationSchema,
  FuzzyFileSearchSessionStartParamsSchema,
  FuzzyFileSearchSessionStopParamsSchema,
  FuzzyFileSearchSessionUpdatedNotificationSchema,
  FuzzyFileSearchSessionUpdateParamsSchema,
} from './fuzzy-search.js';
import { handshakeNotifications, handshakeRequests } from './handshake.js';
import { currentClientRequests, currentServerNotifications } from './methods-current.js';
import {
  notification,
  request,
  requestWithoutParams,
  type ClientRequestSpec,
  type ExperimentalGate,
  type ServerNotificationSpec,
  type ServerRequestSpec,
} from './method-spec.js';
import {
  ListMcpServerStatusParamsSchema,
  ListMcpServerStatusResultSchema,
  McpResourceReadParamsSchema,
  McpResourceReadResultSchema,
  McpServerElicitationRequestParamsSchema,
  McpServerElicitationRequestResultSchema,
  McpServerOauthLoginCompletedNotificationSchema,
  McpServerOauthLoginParamsSchema,
  McpServerOauthLoginResultSchema,
  McpServerStatusUpdatedNotificationSchema,
  McpServerToolCallParamsSchema,
  McpServerToolCallResultSchema,
  McpToolCallProgressNotificationSchema,
} from './mcp.js';
import {
  ModelListParamsSchema,
  ModelListResultSchema,
  ModelProviderCapabilitiesReadParamsSchema,
  ModelProviderCapabilitiesReadResultSchema,
} from './model.js';
import {
  AccountLoginCompletedNotificationSchema,
  AccountRateLimitsUpdatedNotificationSchema,
  AccountUpdatedNotificationSchema,
  ConfigWarningNotificationSchema,
  ContextCompactedNotificationSchema,
  DeprecationNoticeNotificationSchema,
  ErrorNotificationSchema,
  ItemCompletedNotificationSchema,
  ItemDeltaNotificationSchema,
  ItemStartedNotificationSchema,
  ModelReroutedNotificationSchema,
  ReasoningSummaryPartAddedNotificationSchema,
  ReasoningSummaryTextDeltaNotificationSchema,
  ReasoningTextDeltaNotificationSchema,
  RemoteControlStatusChangedNotificationSchema,
  ServerRequestResolvedNotificationSchema,
  SkillsChangedNotificationSchema,
  ThreadIdNotificationSchema,
  ThreadNameUpdatedNotificationSchema,
  ThreadStartedNotificationSchema,
  ThreadStatusChangedNotificationSchema,
  ThreadTokenUsageUpdatedNotificationSchema,
  TurnDiffUpdatedNotificationSchema,
  TurnNotificationSchema,
  TurnPlanUpdatedNotificationSchema,
  WarningNotificationSchema,
} from './notifications.js';
import { EmptyResultSchema } from './primitives.js';
import { ThreadMetadataUpdateParamsSchema } from './project.js';
import {
  CommandExecutionRequestApprovalParamsSchema,
  CommandExecutionRequestApprovalResultSchema,
  FileChangeRequestApprovalParamsSchema,
  FileChangeRequestApprovalResultSchema,
} from './server-requests.js';
import { ReviewStartParamsSchema, ReviewStartResultSchema } from './review.js';
import { ThreadShellCommandParamsSchema, ThreadShellCommandResultSchema } from './shell-command.js';
import {
  ThreadForkParamsSchema,
  ThreadIdParamsSchema,
  ThreadListParamsSchema,
  ThreadListResultSchema,
  ThreadLoadedListParamsSchema,
  ThreadLoadedListResultSchema,
  ThreadReadParamsSchema,
  ThreadResultSchema,
  ThreadReadResultSchema,
  ThreadResumeParamsSchema,
  ThreadRollbackParamsSchema,
  ThreadSessionResultSchema,
  ThreadSetNameParamsSchema,
  ThreadStartParamsSchema,
  ThreadUnsubscribeResultSchema,
} from './thread.js';
import {
  ThreadGoalClearParamsSchema,
  ThreadGoalClearResultSchema,
  ThreadGoalGetParamsSchema,
  ThreadGoalGetResultSchema,
  ThreadGoalSetParamsSchema,
  ThreadGoalSetResultSchema,
  ThreadGoalUpdatedNotificationSchema,
  ThreadIdOnlyNotificationSchema,
} from './thread-0171.js';
import {
  TurnInterruptParamsSchema,
  TurnStartParamsSchema,
  TurnStartResultSchema,
  TurnSteerParamsSchema,
  TurnSteerResultSchema,
} from './turn.js';
import {
  ThreadTurnsItemsListParamsSchema,
  ThreadTurnsItemsListResultSchema,
  ThreadTurnsListParamsSchema,
  ThreadTurnsListResultSchema,
} from './turns-list.js';

export type { ClientRequestSpec, ExperimentalGate, NotificationAudience, ServerNotificationSpec, ServerRequestSpec } from './method-spec.js';

/** Descriptor of the `{granular: …}` approval policy, gated wherever an `approvalPolicy` appears. */
export const GRANULAR_APPROVAL_DESCRIPTOR = 'askForApproval.granular';

/** Client→server requests we serve, in the reference's order. */
export const clientRequests = {
  initialize: handshakeRequests.initialize,
  'thread/start': request(ThreadStartParamsSchema, ThreadSessionResultSchema, {
    fields: {
      permissions: 'thread/start.permissions',
      dynamicTools: 'thread/start.dynamicTools',
      environments: 'thread/start.environments',
      mockExperimentalField: 'thread/start.mockExperimentalField',
      experimentalRawEvents: 'thread/start.experimentalRawEvents',
      persistExtendedHistory: 'thread/start.persistFullHistory',
      projectId: 'thread/start.projectId',
    },
  }),
  'thread/resume': request(ThreadResumeParamsSchema, ThreadSessionResultSchema, {
    fields: {
      history: 'thread/resume.history',
      path: 'thread/resume.path',
      permissions: 'thread/resume.permissions',
      excludeTurns: 'thread/resume.excludeTurns',
      persistExtendedHistory: 'thread/resume.persistFullHistory',
    },
  }),
  'thread/fork': request(ThreadForkParamsSchema, ThreadSessionResultSchema, {
    fields: {
      path: 'thread/fork.path',
      permissions: 'thread/fork.permissions',
      excludeTurns: 'thread/fork.excludeTurns',
      persistExtendedHistory: 'thread/fork.persistFullHistory',
    },
  }),
  'thread/archive': request(ThreadIdParamsSchema, EmptyResultSchema),
  'thread/unsubscribe': request(ThreadIdParamsSchema, ThreadUnsubscribeResultSchema),
  'thread/name/set': request(ThreadSetNameParamsSchema, EmptyResultSchema),
  'thread/goal/set': request(ThreadGoalSetParamsSchema, ThreadGoalSetResultSchema),
  'thread/goal/get': request(ThreadGoalGetParamsSchema, ThreadGoalGetResultSchema),
  'thread/goal/clear': request(ThreadGoalClearParamsSchema, ThreadGoalClearResultSchema),
  'thread/metadata/update': request(ThreadMetadataUpdateParamsSchema, ThreadResultSchema),
  'thread/unarchive': request(ThreadIdParamsSchema, ThreadResultSchema),
  'thread/compact/start': request(ThreadIdParamsSchema, EmptyResultSchema),
  'thread/shellCommand': request(ThreadShellCommandParamsSchema, ThreadShellCommandResultSchema),
  'thread/backgroundTerminals/clean': request(ThreadIdParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'thread/rollback': request(ThreadRollbackParamsSchema, ThreadResultSchema),
  'thread/list': request(ThreadListParamsSchema, ThreadListResultSchema, { fields: { projectId: 'thread/list.projectId' } }),
  'thread/loaded/list': request(ThreadLoadedListParamsSchema, ThreadLoadedListResultSchema),
  'thread/read': request(ThreadReadParamsSchema, ThreadReadResultSchema),
  'thread/turns/list': request(ThreadTurnsListParamsSchema, ThreadTurnsListResultSchema, { wholeMethod: true }),
  'thread/turns/items/list': request(ThreadTurnsItemsListParamsSchema, ThreadTurnsItemsListResultSchema, {
    wholeMethod: true,
  }),
  'skills/list': request(SkillsListParamsSchema, SkillsListResultSchema),
  'hooks/list': request(HooksListParamsSchema, HooksListResultSchema),
  'app/list': request(AppsListParamsSchema, AppsListResultSchema),
  'fs/readFile': request(FsPathParamsSchema, FsReadFileResultSchema),
  'fs/writeFile': request(FsWriteFileParamsSchema, EmptyResultSchema),
  'fs/createDirectory': request(FsCreateDirectoryParamsSchema, EmptyResultSchema),
  'fs/getMetadata': request(FsPathParamsSchema, FsGetMetadataResultSchema),
  'fs/readDirectory': request(FsPathParamsSchema, FsReadDirectoryResultSchema),
  'fs/remove': request(FsRemoveParamsSchema, EmptyResultSchema),
  'fs/copy': request(FsCopyParamsSchema, EmptyResultSchema),
  'fs/watch': request(FsWatchParamsSchema, FsWatchResultSchema),
  'fs/unwatch': request(FsUnwatchParamsSchema, EmptyResultSchema),
  'skills/config/write': request(SkillsConfigWriteParamsSchema, SkillsConfigWriteResultSchema),
  'turn/start': request(TurnStartParamsSchema, TurnStartResultSchema, {
    fields: {
      permissions: 'turn/start.permissions',
      environments: 'turn/start.environments',
      responsesapiClientMetadata: 'turn/start.responsesapiClientMetadata',
      collaborationMode: 'turn/start.collaborationMode',
    },
  }),
  'turn/steer': request(TurnSteerParamsSchema, TurnSteerResultSchema),
  'turn/interrupt': request(TurnInterruptParamsSchema, EmptyResultSchema),
  'review/start': request(ReviewStartParamsSchema, ReviewStartResultSchema),
  'model/list': request(ModelListParamsSchema, ModelListResultSchema),
  'modelProvider/capabilities/read': request(
    ModelProviderCapabilitiesReadParamsSchema,
    ModelProviderCapabilitiesReadResultSchema,
  ),
  'experimentalFeature/list': request(ExperimentalFeatureListParamsSchema, ExperimentalFeatureListResultSchema),
  'collaborationMode/list': request(CollaborationModeListParamsSchema, CollaborationModeListResultSchema, {
    wholeMethod: true,
  }),
  'mcpServer/oauth/login': request(McpServerOauthLoginParamsSchema, McpServerOauthLoginResultSchema),
  'config/mcpServer/reload': requestWithoutParams(EmptyResultSchema),
  'mcpServerStatus/list': request(ListMcpServerStatusParamsSchema, ListMcpServerStatusResultSchema),
  'mcpServer/resource/read': request(McpResourceReadParamsSchema, McpResourceReadResultSchema),
  'mcpServer/tool/call': request(McpServerToolCallParamsSchema, McpServerToolCallResultSchema),
  'account/login/start': request(LoginAccountParamsSchema, LoginAccountResultSchema, {
    variants: { chatgptAuthTokens: 'account/login/start.chatgptAuthTokens' },
  }),
  'account/login/cancel': request(CancelLoginAccountParamsSchema, CancelLoginAccountResultSchema),
  'account/logout': requestWithoutParams(EmptyResultSchema),
  'account/rateLimits/read': requestWithoutParams(GetAccountRateLimitsResultSchema),
  'command/exec': request(CommandExecParamsSchema, CommandExecResultSchema),
  'command/exec/write': request(CommandExecWriteParamsSchema, EmptyResultSchema),
  'command/exec/terminate': request(CommandExecTerminateParamsSchema, EmptyResultSchema),
  'command/exec/resize': request(CommandExecResizeParamsSchema, EmptyResultSchema),
  'process/spawn': request(ProcessSpawnParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'process/writeStdin': request(ProcessWriteStdinParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'process/kill': request(ProcessKillParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'process/resizePty': request(ProcessResizePtyParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'config/read': request(ConfigReadParamsSchema, ConfigReadResultSchema),
  'config/value/write': request(ConfigValueWriteParamsSchema, ConfigWriteResultSchema),
  'config/batchWrite': request(ConfigBatchWriteParamsSchema, ConfigWriteResultSchema),
  'configRequirements/read': requestWithoutParams(ConfigRequirementsReadResultSchema),
  'account/read': request(GetAccountParamsSchema, GetAccountResultSchema),
  fuzzyFileSearch: request(FuzzyFileSearchParamsSchema, FuzzyFileSearchResponseSchema),
  'fuzzyFileSearch/sessionStart': request(FuzzyFileSearchSessionStartParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'fuzzyFileSearch/sessionUpdate': request(FuzzyFileSearchSessionUpdateParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'fuzzyFileSearch/sessionStop': request(FuzzyFileSearchSessionStopParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  // Then the methods only current clients (reference 0.171) call, in its order.
  ...currentClientRequests,
} as const satisfies Readonly<Record<string, ClientRequestSpec>>;

/** Server→client notifications we send: method → params schema and audience. */
export const serverNotifications = {
  error: notification(ErrorNotificationSchema, 'subscribers'),
  'thread/started': notification(ThreadStartedNotificationSchema, 'all'),
  'thread/status/changed': notification(ThreadStatusChangedNotificationSchema, 'all'),
  'thread/archived': notification(ThreadIdNotificationSchema, 'all'),
  'thread/unarchived': notification(ThreadIdNotificationSchema, 'all'),
  'thread/closed': notification(ThreadIdNotificationSchema, 'all'),
  'skills/changed': notification(SkillsChangedNotificationSchema, 'all'),
  'thread/name/updated': notification(ThreadNameUpdatedNotificationSchema, 'all'),
  'thread/goal/updated': notification(ThreadGoalUpdatedNotificationSchema, 'subscribers'),
  'thread/goal/cleared': notification(ThreadIdOnlyNotificationSchema, 'subscribers'),
  'thread/tokenUsage/updated': notification(ThreadTokenUsageUpdatedNotificationSchema, 'subscribers'),
  'turn/started': notification(TurnNotificationSchema, 'subscribers'),
  'hook/started': notification(HookRunNotificationSchema, 'subscribers'),
  'turn/completed': notification(TurnNotificationSchema, 'subscribers'),
  'hook/completed': notification(HookRunNotificationSchema, 'subscribers'),
  'turn/diff/updated': notification(TurnDiffUpdatedNotificationSchema, 'subscribers'),
  'turn/plan/updated': notification(TurnPlanUpdatedNotificationSchema, 'subscribers'),
  'item/started': notification(ItemStartedNotificationSchema, 'subscribers'),
  'item/completed': notification(ItemCompletedNotificationSchema, 'subscribers'),
  'item/agentMessage/delta': notification(ItemDeltaNotificationSchema, 'subscribers'),
  'item/plan/delta': notification(ItemDeltaNotificationSchema, 'subscribers'),
  'command/exec/outputDelta': notification(CommandExecOutputDeltaSchema, 'connection'),
  'process/outputDelta': notification(ProcessOutputDeltaSchema, 'connection'),
  'process/exited': notification(ProcessExitedSchema, 'connection'),
  'item/commandExecution/outputDelta': notification(ItemDeltaNotificationSchema, 'subscribers'),
  'item/fileChange/outputDelta': notification(ItemDeltaNotificationSchema, 'subscribers'),
  'serverRequest/resolved': notification(ServerRequestResolvedNotificationSchema, 'subscribers'),
  'item/mcpToolCall/progress': notification(McpToolCallProgressNotificationSchema, 'subscribers'),
  'mcpServer/oauthLogin/completed': notification(McpServerOauthLoginCompletedNotificationSchema, 'all'),
  'mcpServer/startupStatus/updated': notification(McpServerStatusUpdatedNotificationSchema, 'subscribers'),
  'account/updated': notification(AccountUpdatedNotificationSchema, 'all'),
  'account/rateLimits/updated': notification(AccountRateLimitsUpdatedNotificationSchema, 'subscribers'),
  'remoteControl/status/changed': notification(RemoteControlStatusChangedNotificationSchema, 'connection'),
  'fs/changed': notification(FsChangedSchema, 'connection'),
  'item/reasoning/summaryTextDelta': notification(ReasoningSummaryTextDeltaNotificationSchema, 'subscribers'),
  'item/reasoning/summaryPartAdded': notification(ReasoningSummaryPartAddedNotificationSchema, 'subscribers'),
  'item/reasoning/textDelta': notification(ReasoningTextDeltaNotificationSchema, 'subscribers'),
  'thread/compacted': notification(ContextCompactedNotificationSchema, 'subscribers'),
  'model/rerouted': notification(ModelReroutedNotificationSchema, 'subscribers'),
  warning: notification(WarningNotificationSchema, 'subscribers'),
  deprecationNotice: notification(DeprecationNoticeNotificationSchema, 'connection'),
  configWarning: notification(ConfigWarningNotificationSchema, 'connection'),
  'fuzzyFileSearch/sessionUpdated': notification(FuzzyFileSearchSessionUpdatedNotificationSchema, 'connection'),
  'fuzzyFileSearch/sessionCompleted': notification(FuzzyFileSearchSessionCompletedNotificationSchema, 'connection'),
  'account/login/completed': notification(AccountLoginCompletedNotificationSchema, 'all'),
  ...currentServerNotifications,
} as const satisfies Readonly<Record<string, ServerNotificationSpec>>;

/** Server→client requests we send: method → params and the client's result. */
export const serverRequests = {
  'item/commandExecution/requestApproval': {
    params: CommandExecutionRequestApprovalParamsSchema,
    result: CommandExecutionRequestApprovalResultSchema,
  },
  'item/fileChange/requestApproval': {
    params: FileChangeRequestApprovalParamsSchema,
    result: FileChangeRequestApprovalResultSchema,
  },
  'item/tool/requestUserInput': { params: ToolRequestUserInputParamsSchema, result: ToolRequestUserInputResultSchema },
  'mcpServer/elicitation/request': {
    params: McpServerElicitationRequestParamsSchema,
    result: McpServerElicitationRequestResultSchema,
  },
  'item/tool/call': { params: DynamicToolCallParamsSchema, result: DynamicToolCallResultSchema },
} as const satisfies Readonly<Record<string, ServerRequestSpec>>;

/** Client→server notifications: only `initialized` (no params; optional, harmless twice). */
export const clientNotifications = {
  initialized: handshakeNotifications.initialized,
} as const satisfies Readonly<Record<string, z.ZodType>>;

/** A client→server request method we serve. */
export type ClientRequestMethod = keyof typeof clientRequests;
/** Parsed params of a client request. */
export type ParamsOf<M extends ClientRequestMethod> = z.output<(typeof clientRequests)[M]['params']>;
/** Params of a client request as a client writes them (before defaults and parsing). */
export type ParamsInputOf<M extends ClientRequestMethod> = z.input<(typeof clientRequests)[M]['params']>;
/** Result of a client request. */
export type ResultOf<M extends ClientRequestMethod> = z.output<(typeof clientRequests)[M]['result']>;
/** A server→client notification method we send. */
export type ServerNotificationMethod = keyof typeof serverNotifications;
/** Params of a server notification. */
export type NotificationParamsOf<M extends ServerNotificationMethod> = z.output<(typeof serverNotifications)[M]['params']>;
/** A server→client request method we send. */
export type ServerRequestMethod = keyof typeof serverRequests;
/** Params of a server request. */
export type ServerRequestParamsOf<M extends ServerRequestMethod> = z.output<(typeof serverRequests)[M]['params']>;
/** The client's result for a server request. */
export type ServerRequestResultOf<M extends ServerRequestMethod> = z.output<(typeof serverRequests)[M]['result']>;
/** A client→server notification method. */
export type ClientNotificationMethod = keyof typeof clientNotifications;

/** True when `method` is a client request we serve. */
export function isClientRequestMethod(method: string): method is ClientRequestMethod {
  return Object.hasOwn(clientRequests, method);
}

/** True when `method` is a server notification we send. */
export function isServerNotificationMethod(method: string): method is ServerNotificationMethod {
  return Object.hasOwn(serverNotifications, method);
}

/** True when `method` is a server request we send. */
export function isServerRequestMethod(method: string): method is ServerRequestMethod {
  return Object.hasOwn(serverRequests, method);
}

/** True when `method` is a client notification we accept. */
export function isClientNotificationMethod(method: string): method is ClientNotificationMethod {
  return Object.hasOwn(clientNotifications, method);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The experimental descriptor a request uses, or undefined when it is stable. Checks the whole
 * method, then gated fields in table order, then gated variants, then a `{granular}` approval
 * policy. Call it on parsed params (the reference deserializes before gating).
 */
export function experimentalReasonOf(method: ClientRequestMethod, params: unknown): string | undefined {
  const gate: ExperimentalGate | undefined = clientRequests[method].experimental;
  if (gate?.wholeMethod === true) return method;
  const fields = isRecord(params) ? params : {};
  for (const [field, descriptor] of Object.entries(gate?.fields ?? {})) {
    const value = fields[field];
    if (value !== undefined && value !== null && value !== false) return descriptor;
  }
  const tag = fields['type'];
  if (typeof tag === 'string' && gate?.variants !== undefined && Object.hasOwn(gate.variants, tag)) {
    return gate.variants[tag];
  }
  const approvalPolicy = fields['approvalPolicy'];
  if (isRecord(approvalPolicy) && Object.hasOwn(approvalPolicy, 'granular')) return GRANULAR_APPROVAL_DESCRIPTOR;
  return undefined;
}
