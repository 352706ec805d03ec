/**
 * Params and results of methods that only current clients (the 0.169+ protocol, reference 0.171)
 * call and that Deputy serves from local state or answers with a defined empty value:
 * permission profiles and thread settings, background terminals, installed plugins and apps,
 * model providers, and the ChatGPT-backend families (remote control, user verification, Bedrock
 * and gateway OAuth, usage, workspace messages, account sessions, realtime listing). Params are
 * lenient about unknown fields, as elsewhere; which of them are experimental lives in `methods.ts`.
 */
import { z } from 'zod';
import { ReasoningSummarySchema } from '../core/policies.js';
import {
  ActivePermissionProfileSchema,
  ApprovalsReviewerSchema,
  AskForApprovalSchema,
  InputReasoningEffortSchema,
  PermissionProfileSelectionSchema,
  SandboxPolicySchema,
} from './policies.js';
import { AbsolutePathSchema, UInt32Schema } from './primitives.js';
import { CollaborationModeSchema } from './turn.js';

/** Paging fields most list methods take. */
const paging = {
  /** Opaque cursor from a previous page. */
  cursor: z.string().nullish(),
  /** Page size. */
  limit: UInt32Schema.nullish(),
};

/** `permissionProfile/list` params. */
export const PermissionProfileListParamsSchema = z.object({
  ...paging,
  /** Working directory whose project layers apply (Deputy's profiles do not depend on it). */
  cwd: z.string().nullish(),
});

/** One selectable permission profile. */
export const PermissionProfileSummarySchema = z.object({
  /** Profile id, e.g. `:workspace`. */
  id: z.string(),
  /** Text for clients to show, null when none. */
  description: z.string().nullish(),
  /** False when the configured requirements forbid this profile. */
  allowed: z.boolean(),
});

/** `permissionProfile/list` result. */
export const PermissionProfileListResultSchema = z.object({
  data: z.array(PermissionProfileSummarySchema),
  nextCursor: z.string().nullish(),
});

/** `thread/settings/update` params: every field optional; applies to the thread's next turns. */
export const ThreadSettingsUpdateParamsSchema = z.object({
  threadId: z.string(),
  cwd: z.string().nullish(),
  approvalPolicy: AskForApprovalSchema.nullish(),
  approvalsReviewer: ApprovalsReviewerSchema.nullish(),
  sandboxPolicy: SandboxPolicySchema.nullish(),
  /** A profile id (`:read-only`, `:workspace`, `:danger-full-access`) or the 0.130 object. */
  permissions: PermissionProfileSelectionSchema.nullish(),
  model: z.string().nullish(),
  effort: InputReasoningEffortSchema.nullish(),
  summary: ReasoningSummarySchema.nullish(),
  collaborationMode: CollaborationModeSchema.nullish(),
});
export type ThreadSettingsUpdateParams = z.infer<typeof ThreadSettingsUpdateParamsSchema>;

/**
 * `turn/settings/update` params (experimental): changes for one running turn's later steps, not
 * future turns. Omitted or null fields leave a setting unchanged (`serviceTier: null` clears the
 * tier; `environments: []` clears the selection).
 */
export const TurnSettingsUpdateParamsSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  model: z.string().nullish(),
  effort: InputReasoningEffortSchema.nullish(),
  summary: ReasoningSummarySchema.nullish(),
  approvalsReviewer: ApprovalsReviewerSchema.nullish(),
  serviceTier: z.string().nullish(),
  environments: z.array(z.object({ cwd: z.string(), environmentId: z.string(), runtimeWorkspaceRoots: z.array(z.string()).nullish() })).nullish(),
});
export type TurnSettingsUpdateParams = z.infer<typeof TurnSettingsUpdateParamsSchema>;

/** `turn/settings/update` result: `applied`, or `targetUnavailable` when that turn is not running. */
export const TurnSettingsUpdateResultSchema = z.object({ status: z.enum(['applied', 'targetUnavailable']) });
export type TurnSettingsUpdateResult = z.infer<typeof TurnSettingsUpdateResultSchema>;

/** A thread's effective settings (`thread/settings/updated`). */
export const ThreadSettingsSchema = z.object({
  cwd: AbsolutePathSchema,
  approvalPolicy: AskForApprovalSchema,
  approvalsReviewer: ApprovalsReviewerSchema,
  sandboxPolicy: SandboxPolicySchema,
  activePermissionProfile: ActivePermissionProfileSchema.nullish(),
  model: z.string(),
  modelProvider: z.string(),
  effort: z.string().min(1).nullish(),
  summary: ReasoningSummarySchema.nullish(),
  collaborationMode: CollaborationModeSchema,
  serviceTier: z.string().nullish(),
});
export type ThreadSettings = z.infer<typeof ThreadSettingsSchema>;

/** `thread/settings/updated`: the full effective settings after a change. */
export const ThreadSettingsUpdatedNotificationSchema = z.object({
  threadId: z.string(),
  threadSettings: ThreadSettingsSchema,
});

/** `thread/backgroundTerminals/list` params. */
export const ThreadBackgroundTerminalsListParamsSchema = z.object({ threadId: z.string(), ...paging });

/** A terminal a thread keeps running in the background (Deputy keeps none). */
export const ThreadBackgroundTerminalSchema = z.object({
  processId: z.string(),
  itemId: z.string(),
  command: z.string(),
  cwd: z.string(),
});

/** `thread/backgroundTerminals/list` result. */
export const ThreadBackgroundTerminalsListResultSchema = z.object({
  data: z.array(ThreadBackgroundTerminalSchema),
  nextCursor: z.string().nullish(),
});

/** `thread/backgroundTerminals/terminate` params. */
export const ThreadBackgroundTerminalsTerminateParamsSchema = z.object({ threadId: z.string(), processId: z.string() });

/** `thread/backgroundTerminals/terminate` result: false for an unknown process. */
export const ThreadBackgroundTerminalsTerminateResultSchema = z.object({ terminated: z.boolean() });

/** `plugin/installed` params. */
/** `plugin/search` params (experimental). */
export const PluginSearchParamsSchema = z.object({
  searchTerm: z.string(),
  cursor: z.string().nullish(),
  cwds: z.array(z.string()).nullish(),
  limit: UInt32Schema.nullish(),
  scope: z.string().nullish(),
});

/** `plugin/search` result: Deputy has no plugin marketplaces, so nothing is ever found. */
export const PluginSearchResultSchema = z.object({ data: z.array(z.never()), nextCursor: z.string().nullish() });

/** `plugin/reconcile` params. */
export const PluginReconcileParamsSchema = z.object({ reason: z.string().nullish() });

/** `plugin/reconcile` result: no plugins, so nothing changed or failed. */
export const PluginReconcileResultSchema = z.object({
  changedPlugins: z.array(z.never()),
  failedRemotePluginIds: z.array(z.never()),
  failedMaterializationRemotePluginIds: z.array(z.never()),
});

/** `thread/memory/read` params (experimental). */
export const ThreadMemoryReadParamsSchema = z.object({ threadId: z.string() });

/** `thread/memory/read` result: Deputy consolidates no memories, so there is no summary. */
export const ThreadMemoryReadResultSchema = z.object({ summary: z.string().nullish() });

/** `memory/status` params (experimental). */
export const MemoryStatusParamsSchema = z.object({ minConsolidatedThreads: z.number().int().nullish() });

/** `memory/status` result: the memory pipeline is not there. */
export const MemoryStatusResultSchema = z.object({ v2Ready: z.boolean(), v2ConsolidatedThreads: z.number().int() });

export const PluginInstalledParamsSchema = z.object({
  cwds: z.array(AbsolutePathSchema).nullish(),
  installSuggestionPluginNames: z.array(z.string()).nullish(),
});

/** `plugin/installed` result: Deputy has no plugin marketplaces, so both lists are empty. */
export const PluginInstalledResultSchema = z.object({
  marketplaces: z.array(z.never()),
  marketplaceLoadErrors: z.array(z.never()),
});

/** `app/installed` params. */
export const AppsInstalledParamsSchema = z.object({
  forceRefresh: z.boolean().optional(),
  threadId: z.string().nullish(),
});

/** `app/installed` result: apps (connectors) are a ChatGPT-backend feature; always empty. */
export const AppsInstalledResultSchema = z.object({ apps: z.array(z.never()) });

/** How a configured provider authenticates, as `modelProvider/list` reports it. */
export const ProviderSettingsSchema = z.union([
  z.object({ type: z.literal('openai') }),
  z.object({
    type: z.literal('customGateway'),
    auth: z.union([
      z.object({ mode: z.literal('none') }),
      z.object({ mode: z.literal('environmentVariable'), envKey: z.string() }),
      z.object({ mode: z.literal('externallyConfigured'), envKey: z.string().nullish() }),
    ]),
  }),
]);

/** One configured model provider. */
export const ModelProviderSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Null when the endpoint is absent. */
  baseUrl: z.string().nullish(),
  /** Whether the user config layer can edit it (Deputy: no provider edits over the wire). */
  canEdit: z.boolean(),
  settings: ProviderSettingsSchema,
});

/** `modelProvider/list` result. */
export const ModelProviderListResultSchema = z.object({
  data: z.array(ModelProviderSummarySchema),
  defaultProviderId: z.string(),
  canChangeDefault: z.boolean(),
});

/**
 * `modelProvider/config/write` params: a patch of one provider's settings. Only custom gateways
 * are Deputy's kind of provider; the Bedrock and GCP forms are parsed so they can be refused
 * plainly.
 */
export const ModelProviderConfigWriteParamsSchema = z.object({
  settings: z.discriminatedUnion('type', [
    z.object({
      type: z.literal('customGateway'),
      /** The provider to edit or create; absent means the current (custom) provider. */
      providerId: z.string().min(1).nullish(),
      name: z.string().optional(),
      /** Null removes the key. */
      baseUrl: z.string().nullish(),
      envKey: z.string().nullish(),
    }),
    z.object({ type: z.literal('bedrock'), providerId: z.string() }),
    z.object({ type: z.literal('gcp'), providerId: z.string() }),
  ]),
});
export type ModelProviderConfigWriteParams = z.infer<typeof ModelProviderConfigWriteParamsSchema>;

/** `modelProvider/config/write` result: the provider as `modelProvider/list` now shows it. */
export const ModelProviderConfigWriteResultSchema = z.object({ provider: ModelProviderSummarySchema });

/** `modelProvider/default/set` params. */
export const ModelProviderDefaultSetParamsSchema = z.object({ providerId: z.string() });

/** `account/bedrock/checkGovCloudRequirements` result. */
export const BedrockCheckGovCloudRequirementsResultSchema = z.object({ isGovCloud: z.boolean(), shouldWarn: z.boolean() });

/** Remote-control state (`remoteControl/status/read`, `disable`, `status/changed`). */
export const RemoteControlStatusSchema = z.object({
  /** Connection state of remote control; Deputy's is always `disabled`. */
  status: z.enum(['disabled', 'connecting', 'connected', 'errored']),
  /** This machine's name. */
  serverName: z.string(),
  /** A stable id of this Deputy installation (kept in its home). */
  installationId: z.string(),
  /** Remote environment id, null when none. */
  environmentId: z.string().nullable(),
});

/** `remoteControl/client/list` result: no paired clients. */
export const RemoteControlClientsListResultSchema = z.object({ data: z.array(z.never()), nextCursor: z.string().nullish() });

/** `account/usage/read` result: no usage data (a ChatGPT-backend feature). */
export const AccountUsageReadResultSchema = z.object({
  summary: z.object({}),
  dailyUsageBuckets: z.null(),
  threadUsage: z.null(),
});

/** `account/securitySetup/read` result: no notice. */
export const AccountSecuritySetupReadResultSchema = z.object({ notice: z.null() });

/** `account/workspaceMessages/read` result: the feature is off. */
export const AccountWorkspaceMessagesReadResultSchema = z.object({ featureEnabled: z.literal(false), messages: z.array(z.never()) });

/** `accountSession/list` result: no ChatGPT sessions. */
export const AccountSessionListResultSchema = z.object({ sessions: z.array(z.never()), activeSessionId: z.null() });

/** `userVerification/status` result: no native verification provider. */
export const UserVerificationStatusResultSchema = z.object({
  credentialId: z.null(),
  unavailableReason: z.literal('providerUnavailable'),
  unavailableMessage: z.string(),
});

/** `thread/realtime/list` params. */
export const ThreadRealtimeListParamsSchema = z.object({ threadId: z.string() });

/** `thread/realtime/list` result: realtime is unsupported, so no entries. */
export const ThreadRealtimeListResultSchema = z.object({
  coverage: z.literal('unsupported'),
  data: z.array(z.never()),
  nextCursor: z.null(),
  snapshotEnd: z.literal(0),
  projectedThroughItemIndex: z.literal(0),
});

/** `account/gatewayOAuth/read` result: the selected provider needs no gateway OAuth. */
export const GatewayOAuthReadResultSchema = z.object({
  providerId: z.string(),
  providerName: z.string(),
  required: z.literal(false),
});

/** `userVerification/cancel` params. */
export const UserVerificationCancelParamsSchema = z.object({ requestId: z.string() });

/** `remoteControl/client/list` params. */
export const RemoteControlClientsListParamsSchema = z.object({ environmentId: z.string(), ...paging });

/** Params that are an object whose fields Deputy does not read. */
export const AnyObjectParamsSchema = z.object({});
