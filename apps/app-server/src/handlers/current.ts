/**
 * Handlers of methods only current clients (the 0.169+ protocol) call, that Deputy serves from
 * local state or answers with a defined empty value (docs/app-server.md "Methods for current
 * clients"): permission profiles and `thread/settings/update`, background terminals, installed
 * plugins and apps, and the ChatGPT-backend families (remote control, user verification, Bedrock
 * and gateway OAuth, usage, workspace messages, account sessions, realtime listing), which Deputy
 * does not have and says so with empty answers that current clients show without an error.
 * Model providers are in `config.ts`, next to the config writes they share.
 */
import path from 'node:path';
import type { AppServer } from '@deputy/protocol';
import type { Thread } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { reportedApprovalPolicy } from '../generation.js';
import { serverIdentity } from '../installation.js';
import { activeProfileOf, listProfiles } from '../permission-profiles.js';
import { remoteControlStatus } from '../project/lifecycle.js';
import { notification } from '../project/outbound.js';
import { engineApprovalPolicy, projectSandbox } from '../project/threads.js';
import { defined, parseThreadId, requireLoaded } from './common.js';
import { sandboxOverride } from './turn-input.js';
import type { Handlers } from './types.js';

/** A thread's effective settings, as `thread/settings/updated` reports them. */
export function projectThreadSettings(app: AppContext, thread: Thread): AppServer.ThreadSettings {
  const s = thread.settings;
  return {
    cwd: s.cwd,
    approvalPolicy: reportedApprovalPolicy(s.approvalPolicy),
    approvalsReviewer: 'user',
    sandboxPolicy: projectSandbox(s.sandboxPolicy),
    activePermissionProfile: activeProfileOf(s.sandboxPolicy),
    model: s.model,
    modelProvider: app.runtime.providerId,
    effort: s.reasoningEffort,
    summary: s.reasoningSummary,
    collaborationMode: { mode: 'default', settings: { model: s.model, reasoning_effort: s.reasoningEffort, developer_instructions: null } },
    serviceTier: null,
  };
}

/**
 * Applies a `thread/settings/update` to a loaded thread's settings for its next turns (a running
 * turn keeps its own); they are written to the rollout with that next turn. The collaboration
 * mode's model and effort count when `model` and `effort` are absent.
 */
function updateSettings(app: AppContext, thread: Thread, params: AppServer.ThreadSettingsUpdateParams): void {
  const mode = params.collaborationMode?.settings;
  const next = defined({
    cwd: params.cwd ? path.resolve(app.cwd, params.cwd) : undefined,
    model: params.model ?? mode?.model ?? undefined,
    reasoningEffort: params.effort ?? mode?.reasoning_effort ?? undefined,
    reasoningSummary: params.summary ?? undefined,
    approvalPolicy: params.approvalPolicy ? engineApprovalPolicy(params.approvalPolicy) : undefined,
    sandboxPolicy: sandboxOverride(params, app.runtime.config.sandboxWorkspaceWrite),
  });
  thread.settings = { ...thread.settings, ...next };
}

const NO_USER_VERIFICATION = 'user verification is a ChatGPT feature; this server has no verification provider';

/** The handlers of this area. */
export function currentHandlers(app: AppContext): Handlers {
  const remote = (): AppServer.RemoteControlStatusChangedNotification => remoteControlStatus(serverIdentity(app.runtime.config.home));
  return {
    'userVerification/status': () => ({ credentialId: null, unavailableReason: 'providerUnavailable', unavailableMessage: NO_USER_VERIFICATION }),
    'userVerification/delete': () => ({}),
    'userVerification/cancel': () => ({}),
    'thread/settings/update': (params, ctx) => {
      if (params.permissions && params.sandboxPolicy) {
        throw RpcError.invalidRequest('Invalid request: `permissions` cannot be combined with `sandboxPolicy`');
      }
      const thread = requireLoaded(app, params.threadId);
      updateSettings(app, thread, params);
      const threadSettings = projectThreadSettings(app, thread);
      afterResponseOn(app, ctx, thread.id, () =>
        app.router.publish(thread.id, [notification('thread/settings/updated', { threadId: thread.id, threadSettings })]),
      );
      return {};
    },
    'turn/settings/update': (params) => {
      const thread = requireLoaded(app, params.threadId);
      // Unsupported fields are refused, never ignored (as the reference does).
      if (params.approvalsReviewer != null && params.approvalsReviewer !== 'user') {
        throw RpcError.invalidRequest(`approvalsReviewer ${params.approvalsReviewer} is not supported by this server (approvals go to the client)`);
      }
      if (typeof params.serviceTier === 'string') throw RpcError.invalidRequest('serviceTier is not supported by this server');
      if (params.environments != null && params.environments.length > 0) {
        throw RpcError.invalidRequest('environments are not supported by this server (commands run on this host)');
      }
      const applied = thread.updateRunningTurn(
        params.turnId,
        defined({ model: params.model ?? undefined, reasoningEffort: params.effort ?? undefined, reasoningSummary: params.summary ?? undefined }),
      );
      return { status: applied ? 'applied' : 'targetUnavailable' };
    },
    // Deputy keeps no terminal running after its turn: the list is always empty.
    'thread/backgroundTerminals/list': (params) => {
      parseThreadId(params.threadId);
      return { data: [], nextCursor: null };
    },
    'thread/backgroundTerminals/terminate': (params) => {
      parseThreadId(params.threadId);
      return { terminated: false };
    },
    'plugin/installed': () => ({ marketplaces: [], marketplaceLoadErrors: [] }),
    // No plugin marketplaces and no memory pipeline: the honest empty answers.
    'plugin/search': () => ({ data: [], nextCursor: null }),
    'plugin/reconcile': () => ({ changedPlugins: [], failedRemotePluginIds: [], failedMaterializationRemotePluginIds: [] }),
    'thread/memory/read': (params) => {
      parseThreadId(params.threadId);
      return { summary: null };
    },
    'memory/status': () => ({ v2Ready: false, v2ConsolidatedThreads: 0 }),
    'app/installed': () => ({ apps: [] }),
    'thread/realtime/list': (params) => {
      parseThreadId(params.threadId);
      return { coverage: 'unsupported', data: [], nextCursor: null, snapshotEnd: 0, projectedThroughItemIndex: 0 };
    },
    'account/gatewayOAuth/read': () => {
      const provider = app.runtime.config.provider;
      return { providerId: provider.id, providerName: provider.name, required: false };
    },
    'account/gatewayOAuth/cancel': () => ({}),
    'permissionProfile/list': () => listProfiles(),
    'remoteControl/disable': () => remote(),
    'remoteControl/status/read': () => remote(),
    'remoteControl/client/list': () => ({ data: [], nextCursor: null }),
    'account/bedrock/checkGovCloudRequirements': () => ({ isGovCloud: false, shouldWarn: false }),
    'accountSession/list': () => ({ sessions: [], activeSessionId: null }),
    'account/securitySetup/read': () => ({ notice: null }),
    'account/usage/read': () => ({ summary: {}, dailyUsageBuckets: null, threadUsage: null }),
    'account/workspaceMessages/read': () => ({ featureEnabled: false, messages: [] }),
  };
}
