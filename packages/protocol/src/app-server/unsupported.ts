/**
 * The gap between the reference (Codex 0.130.0) and our method tables, kept in one place so it
 * stays visible: what we will not implement and why, what we have not implemented yet, the
 * legacy names the reference accepts outside its schema, and the reference's full list of
 * accepted request names in its own order (used for the `unknown variant` error text). The
 * registry test fails when a reference method is neither in `methods.ts` nor listed here.
 */

import { CURRENT_ONLY_CLIENT_REQUESTS } from './unsupported-current.js';

const REALTIME = 'voice/realtime sessions need the OpenAI Realtime API; out of scope';
const WINDOWS = 'Windows sandbox only; Deputy sandboxes with bubblewrap on Linux';
const CHATGPT_BACKEND = 'talks to ChatGPT back-end services we do not reach';
const LEGACY_APPROVAL = 'legacy v1 approval flow; v2 clients get item/*/requestApproval instead';

/** Reference methods we do not intend to implement, each with the reason. */
export const DELIBERATELY_UNSUPPORTED = {
  clientRequests: {
    'thread/realtime/start': REALTIME,
    'thread/realtime/appendAudio': REALTIME,
    'thread/realtime/appendText': REALTIME,
    'thread/realtime/stop': REALTIME,
    'thread/realtime/listVoices': REALTIME,
    'windowsSandbox/setupStart': WINDOWS,
    'windowsSandbox/readiness': WINDOWS,
    'account/sendAddCreditsNudgeEmail': CHATGPT_BACKEND,
    'feedback/upload': CHATGPT_BACKEND,
    'plugin/share/save': CHATGPT_BACKEND,
    'plugin/share/updateTargets': CHATGPT_BACKEND,
    'plugin/share/list': CHATGPT_BACKEND,
    'plugin/share/delete': CHATGPT_BACKEND,
    'mock/experimentalMethod': "test hook of the reference's experimental gating",
  },
  serverNotifications: {
    'thread/realtime/started': REALTIME,
    'thread/realtime/itemAdded': REALTIME,
    'thread/realtime/transcript/delta': REALTIME,
    'thread/realtime/transcript/done': REALTIME,
    'thread/realtime/outputAudio/delta': REALTIME,
    'thread/realtime/sdp': REALTIME,
    'thread/realtime/error': REALTIME,
    'thread/realtime/closed': REALTIME,
    'windows/worldWritableWarning': WINDOWS,
    'windowsSandbox/setupCompleted': WINDOWS,
  },
  serverRequests: {
    applyPatchApproval: LEGACY_APPROVAL,
    execCommandApproval: LEGACY_APPROVAL,
    'account/chatgptAuthTokens/refresh': 'only for host-supplied ChatGPT tokens (experimental login type)',
  },
} as const;

/** Reference methods we mean to implement but have not yet. */
export const NOT_YET = {
  clientRequests: [
    'thread/increment_elicitation',
    'thread/decrement_elicitation',
    'thread/memoryMode/set',
    'memory/reset',
    'thread/approveGuardianDeniedAction',
    'thread/inject_items',
    'marketplace/add',
    'marketplace/remove',
    'marketplace/upgrade',
    'plugin/list',
    'plugin/read',
    'plugin/skill/read',
    'plugin/install',
    'plugin/uninstall',
    'experimentalFeature/enablement/set',
    'externalAgentConfig/detect',
    'externalAgentConfig/import',
  ],
  serverNotifications: [
    'item/autoApprovalReview/started',
    'item/autoApprovalReview/completed',
    'item/commandExecution/terminalInteraction',
    'item/fileChange/patchUpdated',
    'app/list/updated',
    'externalAgentConfig/import/completed',
    'model/verification',
    'guardianWarning',
  ],
  serverRequests: [
    'item/permissions/requestApproval',
  ],
} as const;

/** Legacy request names the reference accepts although its schema does not list them. */
export const LEGACY_CLIENT_REQUESTS = ['getConversationSummary', 'gitDiffToRemote', 'getAuthStatus'] as const;

/**
 * Every request name the reference accepts, in its order. An unknown method gets -32600
 * ``Invalid request: unknown variant `<m>`, expected one of `initialize`, … `` listing these;
 * an accepted name we do not serve must get a well-formed -32600 rather than be dropped.
 */
export const ACCEPTED_CLIENT_REQUEST_METHODS: readonly string[] = [
  'initialize', 'thread/start', 'thread/resume', 'thread/fork', 'thread/archive', 'thread/unsubscribe',
  'thread/increment_elicitation', 'thread/decrement_elicitation', 'thread/name/set', 'thread/goal/set',
  'thread/goal/get', 'thread/goal/clear', 'thread/metadata/update', 'thread/memoryMode/set', 'memory/reset',
  'thread/unarchive', 'thread/compact/start', 'thread/shellCommand', 'thread/approveGuardianDeniedAction',
  'thread/backgroundTerminals/clean', 'thread/rollback', 'thread/list', 'thread/loaded/list', 'thread/read',
  'thread/turns/list', 'thread/turns/items/list', 'thread/inject_items', 'skills/list', 'hooks/list',
  'marketplace/add', 'marketplace/remove', 'marketplace/upgrade', 'plugin/list', 'plugin/read',
  'plugin/skill/read', 'plugin/share/save', 'plugin/share/updateTargets', 'plugin/share/list',
  'plugin/share/delete', 'app/list', 'fs/readFile', 'fs/writeFile', 'fs/createDirectory', 'fs/getMetadata',
  'fs/readDirectory', 'fs/remove', 'fs/copy', 'fs/watch', 'fs/unwatch', 'skills/config/write', 'plugin/install',
  'plugin/uninstall', 'turn/start', 'turn/steer', 'turn/interrupt', 'thread/realtime/start',
  'thread/realtime/appendAudio', 'thread/realtime/appendText', 'thread/realtime/stop',
  'thread/realtime/listVoices', 'review/start', 'model/list', 'modelProvider/capabilities/read',
  'experimentalFeature/list', 'experimentalFeature/enablement/set', 'collaborationMode/list',
  'mock/experimentalMethod', 'mcpServer/oauth/login', 'config/mcpServer/reload', 'mcpServerStatus/list',
  'mcpServer/resource/read', 'mcpServer/tool/call', 'windowsSandbox/setupStart', 'windowsSandbox/readiness',
  'account/login/start', 'account/login/cancel', 'account/logout', 'account/rateLimits/read',
  'account/sendAddCreditsNudgeEmail', 'feedback/upload', 'command/exec', 'command/exec/write',
  'command/exec/terminate', 'command/exec/resize', 'process/spawn', 'process/writeStdin', 'process/kill',
  'process/resizePty', 'config/read', 'externalAgentConfig/detect', 'externalAgentConfig/import',
  'config/value/write', 'config/batchWrite', 'configRequirements/read', 'account/read',
  'getConversationSummary', 'gitDiffToRemote', 'getAuthStatus', 'fuzzyFileSearch',
  'fuzzyFileSearch/sessionStart', 'fuzzyFileSearch/sessionUpdate', 'fuzzyFileSearch/sessionStop',
  // Then the names only current clients send (reference 0.171), in its order.
  ...CURRENT_ONLY_CLIENT_REQUESTS,
];

/** True when the reference accepts `method` as a request name (whether or not we serve it). */
export function isAcceptedClientRequestMethod(method: string): boolean {
  return ACCEPTED_CLIENT_REQUEST_METHODS.includes(method);
}
