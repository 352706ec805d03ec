/**
 * The gap between the current reference (Codex 0.171.0, what 0.169+ clients speak) and our method
 * tables, for the methods 0.130 does not have (the 0.130 gap is in `unsupported.ts`): the names
 * 0.171 added, in its order, and for each one we do not serve, why. An accepted name we do not
 * serve is answered -32600 ``Invalid request: `<method>` is not supported by this server``; a
 * client never sees `unknown variant` for it. The registry test fails when a 0.171 method is
 * neither served nor listed here or in `unsupported.ts`.
 */

/** Client requests 0.171 has and 0.130 lacks, in the 0.171 reference's order. */
export const CURRENT_ONLY_CLIENT_REQUESTS: readonly string[] = [
  'server/diagnostics', 'userVerification/status', 'userVerification/enroll', 'userVerification/delete',
  'userVerification/verify', 'userVerification/cancel', 'thread/sample', 'thread/sample/cancel',
  'thread/delete', 'thread/prediction/request', 'thread/queue/add', 'thread/queue/list',
  'thread/queue/update', 'thread/queue/delete', 'thread/queue/reorder', 'thread/queue/start',
  'thread/attachment/add', 'thread/attachment/list', 'thread/attachmentOwner/list',
  'thread/attachment/remove', 'thread/section/move', 'thread/settings/update', 'thread/memory/read',
  'memory/status', 'rollout/compress', 'thread/backgroundTerminals/list',
  'thread/backgroundTerminals/terminate', 'thread/revert', 'project/list', 'project/read',
  'project/create', 'project/import', 'project/update', 'project/move', 'project/delete',
  'threadSection/list', 'threadSection/create', 'threadSection/update', 'threadSection/delete',
  'thread/search', 'thread/search/stream', 'thread/search/cancel', 'thread/search/stream/cancel',
  'thread/searchOccurrences', 'thread/readState/update', 'thread/items/list', 'thread/items/read',
  'thread/guardianReview', 'thread/prepareApprovedPlan', 'skills/extraRoots/set', 'plugin/search',
  'plugin/installed', 'plugin/reconcile', 'plugin/share/checkout', 'app/read', 'app/installed',
  'turn/settings/update', 'thread/realtime/appendSpeech', 'thread/timeline/list', 'thread/realtime/list',
  'account/gatewayOAuth/read', 'account/gatewayOAuth/login', 'account/gatewayOAuth/cancel',
  'modelProvider/list', 'modelProvider/config/write', 'modelProvider/default/set',
  'permissionProfile/list', 'remoteControl/enable', 'remoteControl/disable', 'remoteControl/status/read',
  'remoteControl/pairing/start', 'remoteControl/pairing/status', 'remoteControl/client/list',
  'remoteControl/client/revoke', 'environment/add', 'environment/info', 'environment/status',
  'mcpServer/event/stream/start', 'mcpServer/event/stream/stop', 'account/bedrock/discover',
  'account/bedrock/setup', 'account/gcp/setup', 'account/bedrock/checkGovCloudRequirements',
  'accountSession/list', 'accountSession/switch', 'account/securitySetup/read',
  'account/rateLimitResetCredit/consume', 'account/usage/read', 'account/workspaceMessages/read',
  'feedback/save', 'externalAgentConfig/import/recordHistory', 'externalAgentConfig/import/readHistories',
];

const CHATGPT = 'a ChatGPT-backend feature; Deputy talks to a configured provider with a key';
const REMOTE_CONTROL = 'remote control pairs the server with ChatGPT’s relay, which Deputy does not reach';
const USER_VERIFICATION = 'native biometric signing for ChatGPT user verification';
const CLOUD_ACCOUNT = 'cloud-vendor account set-up (Bedrock, GCP, gateway OAuth); Deputy uses configured providers';
const REALTIME = 'voice/realtime sessions need the OpenAI Realtime API; out of scope';
const MODEL_SIDE = 'needs a model-side feature Deputy lacks (prediction, guardian reviewer, side sampling, plan mode)';
const ENVIRONMENTS = 'remote exec-server environments; Deputy runs everything in one local environment';

/** 0.171-only methods we do not serve, each with the reason. */
export const CURRENT_UNSERVED = {
  clientRequests: {
    'userVerification/enroll': USER_VERIFICATION,
    'userVerification/verify': USER_VERIFICATION,
    'thread/sample': MODEL_SIDE,
    'thread/sample/cancel': MODEL_SIDE,
    'thread/prediction/request': MODEL_SIDE,
    'thread/guardianReview': MODEL_SIDE,
    'thread/prepareApprovedPlan': MODEL_SIDE,
    'plugin/share/checkout': CHATGPT,
    'app/read': CHATGPT,
    'thread/realtime/appendSpeech': REALTIME,
    'account/gatewayOAuth/login': CLOUD_ACCOUNT,
    'remoteControl/enable': REMOTE_CONTROL,
    'remoteControl/pairing/start': REMOTE_CONTROL,
    'remoteControl/pairing/status': REMOTE_CONTROL,
    'remoteControl/client/revoke': REMOTE_CONTROL,
    'environment/add': ENVIRONMENTS,
    'environment/info': ENVIRONMENTS,
    'environment/status': ENVIRONMENTS,
    'account/bedrock/discover': CLOUD_ACCOUNT,
    'account/bedrock/setup': CLOUD_ACCOUNT,
    'account/gcp/setup': CLOUD_ACCOUNT,
    'accountSession/switch': CHATGPT,
    'account/rateLimitResetCredit/consume': CHATGPT,
  },
  serverNotifications: {
    'thread/prediction/updated': MODEL_SIDE,
    'thread/environment/connected': ENVIRONMENTS,
    'thread/environment/disconnected': ENVIRONMENTS,
    'autoApprovalReview/strictReviewRequired': 'produced by the guardian auto-reviewer, which Deputy lacks',
    'account/gatewayOAuth/changed': CLOUD_ACCOUNT,
    'externalAgentConfig/import/progress': 'never emitted: it reports imports Deputy runs, and Deputy has no externalAgentConfig/import yet (the import history is served)',
    'modelProvider/authRecoveryStarted': 'Deputy has no provider auth recovery',
    'modelProvider/authRecoveryCompleted': 'Deputy has no provider auth recovery',
    'turn/moderationMetadata': CHATGPT,
    'model/safetyBuffering/updated': CHATGPT,
    'thread/realtime/item/started': REALTIME,
    'thread/realtime/item/transcript/delta': REALTIME,
    'thread/realtime/item/completed': REALTIME,
  },
  serverRequests: {
    'attestation/generate': 'upstream attestation for the ChatGPT backend; never sent (clients opt in with requestAttestation)',
  },
} as const;

/**
 * Server notifications only current clients know. A connection classified as 0.130 never gets
 * them (docs/app-server.md "Client generations"); the fan-out filters, not the handlers.
 */
export const CURRENT_ONLY_SERVER_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'thread/readState/changed', 'thread/deleted', 'thread/reverted', 'thread/section/changed',
  'thread/attachment/updated', 'thread/prediction/updated', 'thread/queue/changed', 'project/changed',
  'thread/project/updated', 'thread/environment/connected', 'thread/environment/disconnected',
  'thread/settings/updated', 'autoApprovalReview/strictReviewRequired', 'thread/search/partial',
  'mcpServer/event/stream/notification', 'account/gatewayOAuth/changed', 'externalAgentConfig/import/progress',
  'modelProvider/authRecoveryStarted', 'modelProvider/authRecoveryCompleted', 'turn/moderationMetadata',
  'model/safetyBuffering/updated', 'thread/realtime/item/started', 'thread/realtime/item/transcript/delta',
  'thread/realtime/item/completed',
]);
