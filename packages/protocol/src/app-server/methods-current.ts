/**
 * The rows of the method tables that only current clients (the Codex 0.171 reference, the
 * 0.169+ TUI and the IDE extension) use, in the 0.171 reference's order. `methods.ts` appends
 * them after the 0.130 rows; the registry test checks both orders.
 */
/**
 * The app-server method tables: the one place that maps wire method names to their schemas.
 * `clientRequests` (method → params, result, experimental gate), `serverNotifications`
 * (method → params, audience), `serverRequests` (method → params, result) and `clientNotifications`. The
 * dispatcher, handler types, test clients and the registry test all read these tables; nothing
 * else may repeat the list. Reference methods we do not serve are listed in `unsupported.ts`.
 */
import {
  AccountSecuritySetupReadResultSchema,
  AccountSessionListResultSchema,
  AccountUsageReadResultSchema,
  AccountWorkspaceMessagesReadResultSchema,
  AnyObjectParamsSchema,
  AppsInstalledParamsSchema,
  AppsInstalledResultSchema,
  BedrockCheckGovCloudRequirementsResultSchema,
  GatewayOAuthReadResultSchema,
  ModelProviderConfigWriteParamsSchema,
  ModelProviderConfigWriteResultSchema,
  ModelProviderDefaultSetParamsSchema,
  ModelProviderListResultSchema,
  PermissionProfileListParamsSchema,
  PermissionProfileListResultSchema,
  PluginInstalledParamsSchema,
  PluginInstalledResultSchema,
  RemoteControlClientsListParamsSchema,
  RemoteControlClientsListResultSchema,
  RemoteControlStatusSchema,
  ThreadBackgroundTerminalsListParamsSchema,
  ThreadBackgroundTerminalsListResultSchema,
  ThreadBackgroundTerminalsTerminateParamsSchema,
  ThreadBackgroundTerminalsTerminateResultSchema,
  ThreadRealtimeListParamsSchema,
  ThreadRealtimeListResultSchema,
  ThreadSettingsUpdatedNotificationSchema,
  ThreadSettingsUpdateParamsSchema,
  UserVerificationCancelParamsSchema,
  UserVerificationStatusResultSchema,
} from './current.js';
import { EmptyResultSchema } from './primitives.js';
import { ThreadIdParamsSchema } from './thread.js';
import {
  QueuedSubmissionResultSchema,
  ThreadIdOnlyNotificationSchema,
  ThreadItemsListParamsSchema,
  ThreadItemsListResultSchema,
  ThreadItemsReadParamsSchema,
  ThreadItemsReadResultSchema,
  ThreadQueueAddParamsSchema,
  ThreadQueueDeleteParamsSchema,
  ThreadQueueDeleteResultSchema,
  ThreadQueueListParamsSchema,
  ThreadQueueListResultSchema,
  ThreadQueueReorderParamsSchema,
  ThreadQueueStartParamsSchema,
  ThreadQueueStartResultSchema,
  ThreadQueueUpdateParamsSchema,
  ThreadRevertParamsSchema,
  ThreadRevertResultSchema,
  ThreadSearchCancelParamsSchema,
  ThreadSearchOccurrencesParamsSchema,
  ThreadSearchOccurrencesResultSchema,
  ThreadSearchParamsSchema,
  ThreadSearchPartialNotificationSchema,
  ThreadSearchResultSchema,
  ThreadReadStateChangedNotificationSchema,
  ThreadReadStateUpdateParamsSchema,
  ThreadReadStateUpdateResultSchema,
  ThreadSectionChangedNotificationSchema,
  ThreadSectionCreateParamsSchema,
  ThreadSectionDeleteParamsSchema,
  ThreadSectionListParamsSchema,
  ThreadSectionListResultSchema,
  ThreadSectionMoveParamsSchema,
  ThreadSectionResultSchema,
  ThreadSectionUpdateParamsSchema,
} from './thread-0171.js';
import {
  notification,
  request,
  requestWithoutParams,
  type ClientRequestSpec,
  type ServerNotificationSpec,
} from './method-spec.js';

/** Client requests only current clients send. */
export const currentClientRequests = {
  'userVerification/status': request(AnyObjectParamsSchema, UserVerificationStatusResultSchema, { wholeMethod: true }),
  'userVerification/delete': request(AnyObjectParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'userVerification/cancel': request(UserVerificationCancelParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'thread/delete': request(ThreadIdParamsSchema, EmptyResultSchema),
  'thread/queue/add': request(ThreadQueueAddParamsSchema, QueuedSubmissionResultSchema, { wholeMethod: true }),
  'thread/queue/list': request(ThreadQueueListParamsSchema, ThreadQueueListResultSchema, { wholeMethod: true }),
  'thread/queue/update': request(ThreadQueueUpdateParamsSchema, QueuedSubmissionResultSchema, { wholeMethod: true }),
  'thread/queue/delete': request(ThreadQueueDeleteParamsSchema, ThreadQueueDeleteResultSchema, { wholeMethod: true }),
  'thread/queue/reorder': request(ThreadQueueReorderParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'thread/queue/start': request(ThreadQueueStartParamsSchema, ThreadQueueStartResultSchema, { wholeMethod: true }),
  'thread/section/move': request(ThreadSectionMoveParamsSchema, EmptyResultSchema),
  'thread/settings/update': request(ThreadSettingsUpdateParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'thread/backgroundTerminals/list': request(ThreadBackgroundTerminalsListParamsSchema, ThreadBackgroundTerminalsListResultSchema, {
    wholeMethod: true,
  }),
  'thread/backgroundTerminals/terminate': request(
    ThreadBackgroundTerminalsTerminateParamsSchema,
    ThreadBackgroundTerminalsTerminateResultSchema,
    { wholeMethod: true },
  ),
  'thread/revert': request(ThreadRevertParamsSchema, ThreadRevertResultSchema),
  'threadSection/list': request(ThreadSectionListParamsSchema, ThreadSectionListResultSchema),
  'threadSection/create': request(ThreadSectionCreateParamsSchema, ThreadSectionResultSchema),
  'threadSection/update': request(ThreadSectionUpdateParamsSchema, ThreadSectionResultSchema),
  'threadSection/delete': request(ThreadSectionDeleteParamsSchema, EmptyResultSchema),
  'thread/search': request(ThreadSearchParamsSchema, ThreadSearchResultSchema, { wholeMethod: true }),
  'thread/search/stream': request(ThreadSearchParamsSchema, ThreadSearchResultSchema, { wholeMethod: true }),
  'thread/search/cancel': request(ThreadSearchCancelParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'thread/search/stream/cancel': request(ThreadSearchCancelParamsSchema, EmptyResultSchema, { wholeMethod: true }),
  'thread/searchOccurrences': request(ThreadSearchOccurrencesParamsSchema, ThreadSearchOccurrencesResultSchema, { wholeMethod: true }),
  'thread/readState/update': request(ThreadReadStateUpdateParamsSchema, ThreadReadStateUpdateResultSchema, { wholeMethod: true }),
  'thread/items/list': request(ThreadItemsListParamsSchema, ThreadItemsListResultSchema),
  'thread/items/read': request(ThreadItemsReadParamsSchema, ThreadItemsReadResultSchema, { wholeMethod: true }),
  'plugin/installed': request(PluginInstalledParamsSchema, PluginInstalledResultSchema),
  'app/installed': request(AppsInstalledParamsSchema, AppsInstalledResultSchema),
  'thread/realtime/list': request(ThreadRealtimeListParamsSchema, ThreadRealtimeListResultSchema, { wholeMethod: true }),
  'account/gatewayOAuth/read': requestWithoutParams(GatewayOAuthReadResultSchema),
  'account/gatewayOAuth/cancel': requestWithoutParams(EmptyResultSchema),
  'modelProvider/list': request(AnyObjectParamsSchema, ModelProviderListResultSchema),
  'modelProvider/config/write': request(ModelProviderConfigWriteParamsSchema, ModelProviderConfigWriteResultSchema),
  'modelProvider/default/set': request(ModelProviderDefaultSetParamsSchema, EmptyResultSchema),
  'permissionProfile/list': request(PermissionProfileListParamsSchema, PermissionProfileListResultSchema),
  'remoteControl/disable': requestWithoutParams(RemoteControlStatusSchema),
  'remoteControl/status/read': requestWithoutParams(RemoteControlStatusSchema),
  'remoteControl/client/list': request(RemoteControlClientsListParamsSchema, RemoteControlClientsListResultSchema, {
    wholeMethod: true,
  }),
  'account/bedrock/checkGovCloudRequirements': request(AnyObjectParamsSchema, BedrockCheckGovCloudRequirementsResultSchema, {
    wholeMethod: true,
  }),
  'accountSession/list': request(AnyObjectParamsSchema, AccountSessionListResultSchema, { wholeMethod: true }),
  'account/securitySetup/read': requestWithoutParams(AccountSecuritySetupReadResultSchema),
  'account/usage/read': requestWithoutParams(AccountUsageReadResultSchema),
  'account/workspaceMessages/read': requestWithoutParams(AccountWorkspaceMessagesReadResultSchema),
} as const satisfies Readonly<Record<string, ClientRequestSpec>>;

/** Server notifications only current clients know (sent only to current connections). */
export const currentServerNotifications = {
  'thread/readState/changed': notification(ThreadReadStateChangedNotificationSchema, 'all'),
  'thread/deleted': notification(ThreadIdOnlyNotificationSchema, 'all'),
  'thread/reverted': notification(ThreadIdOnlyNotificationSchema, 'subscribers'),
  'thread/section/changed': notification(ThreadSectionChangedNotificationSchema, 'all'),
  'thread/queue/changed': notification(ThreadIdOnlyNotificationSchema, 'subscribers'),
  'thread/settings/updated': notification(ThreadSettingsUpdatedNotificationSchema, 'subscribers'),
  'thread/search/partial': notification(ThreadSearchPartialNotificationSchema, 'connection'),
} as const satisfies Readonly<Record<string, ServerNotificationSpec>>;
