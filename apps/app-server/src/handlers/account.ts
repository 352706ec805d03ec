/**
 * Handlers of the `account/*` methods (docs/app-server.md "Methods served"). The account comes from
 * the configured provider and its key: a provider that uses OpenAI auth reports `apiKey` when a key
 * is set (environment or auth.json) and no account otherwise; any other provider needs no OpenAI
 * account (`account: null, requiresOpenaiAuth: false`). An API-key login stores the key through the
 * engine (auth.json, used from the next model request on) and a logout forgets it; both are then
 * announced to every initialized connection, as the reference broadcasts them. Deputy does not do
 * ChatGPT auth: those logins are refused, no login is ever pending, and rate limits (ChatGPT only)
 * fail with the reference's messages.
 */
import { RpcError } from '@deputy/rpc/core';
import type { AppServer } from '@deputy/protocol';
import { afterResponse, type AppContext } from '../app-context.js';
import { notification, type Outbound } from '../project/outbound.js';
import { uuidProblem } from './common.js';
import type { Handlers } from './types.js';

/** The refusal of every ChatGPT login type. */
export const CHATGPT_LOGIN_UNSUPPORTED = 'ChatGPT login is not supported by this server; use {type:"apiKey"}';

/**
 * Broadcasts go through the router's publish, which needs a delivery key: this one is never held
 * and is not a thread id (account notifications are in the router's broadcast set).
 */
const ACCOUNT_DELIVERY_KEY = 'account';

/** The account as `account/read` reports it for the active provider. */
export function accountOf(app: Pick<AppContext, 'runtime'>): AppServer.GetAccountResult {
  const { config } = app.runtime;
  const requiresOpenaiAuth = config.modelProviders[config.modelProviderId]?.requiresOpenaiAuth ?? false;
  if (!requiresOpenaiAuth) return { account: null, requiresOpenaiAuth: false };
  return { account: config.provider.apiKey ? { type: 'apiKey' } : null, requiresOpenaiAuth: true };
}

/** `account/login/completed` of an API-key login (it completes at once, without a login id). */
function apiKeyLoginCompleted(): Outbound {
  return notification('account/login/completed', { loginId: null, success: true, error: null });
}

/** `account/updated`: the stored auth mode (`apikey` after a login, null after a logout). */
function accountUpdated(authMode: AppServer.AuthMode | null): Outbound {
  return notification('account/updated', { authMode, planType: null });
}

/** The handlers of this area. */
export function accountHandlers(app: AppContext): Handlers {
  const broadcast = (messages: Outbound[]): void => app.router.publish(ACCOUNT_DELIVERY_KEY, messages);
  return {
    'account/read': () => accountOf(app),
    'account/login/start': async (params, ctx) => {
      if (params.type !== 'apiKey') throw RpcError.invalidRequest(CHATGPT_LOGIN_UNSUPPORTED);
      await app.runtime.setStoredApiKey(params.apiKey);
      app.logger.info('stored an API key (account/login/start)');
      afterResponse(ctx, () => broadcast([apiKeyLoginCompleted(), accountUpdated('apikey')]));
      return { type: 'apiKey' };
    },
    'account/login/cancel': (params) => {
      if (uuidProblem(params.loginId) !== null) throw RpcError.invalidRequest(`invalid login id: ${params.loginId}`);
      // Only ChatGPT logins can be pending, and this server starts none.
      return { status: 'notFound' };
    },
    'account/logout': async (_params, ctx) => {
      await app.runtime.setStoredApiKey(null);
      app.logger.info('removed the stored API key (account/logout)');
      afterResponse(ctx, () => broadcast([accountUpdated(null)]));
      return {};
    },
    'account/rateLimits/read': () => {
      const { account } = accountOf(app);
      throw RpcError.invalidRequest(
        account ? 'chatgpt authentication required to read rate limits' : 'codex account authentication required to read rate limits',
      );
    },
  };
}
