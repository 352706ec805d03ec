/**
 * Handlers of `account/read` and `account/rateLimits/read` (spec §11). The account comes from
 * the configured provider and its key: a provider that uses OpenAI auth reports `apiKey` when a
 * key is set (environment or auth.json) and no account otherwise; any other provider needs no
 * OpenAI account (`account: null, requiresOpenaiAuth: false`). Rate limits need ChatGPT auth,
 * which Deputy does not do, so that call fails with the reference's messages.
 */
import { RpcError } from '@deputy/rpc/core';
import type { AppServer } from '@deputy/protocol';
import type { AppContext } from '../app-context.js';
import type { Handlers } from './types.js';

/** The account as `account/read` reports it for the active provider. */
export function accountOf(app: Pick<AppContext, 'config'>): AppServer.GetAccountResult {
  const { config } = app;
  const requiresOpenaiAuth = config.modelProviders[config.modelProviderId]?.requiresOpenaiAuth ?? false;
  if (!requiresOpenaiAuth) return { account: null, requiresOpenaiAuth: false };
  return { account: config.provider.apiKey ? { type: 'apiKey' } : null, requiresOpenaiAuth: true };
}

/** The handlers of this area. */
export function accountHandlers(app: AppContext): Handlers {
  return {
    'account/read': () => accountOf(app),
    'account/rateLimits/read': () => {
      const { account } = accountOf(app);
      throw RpcError.invalidRequest(
        account ? 'chatgpt authentication required to read rate limits' : 'codex account authentication required to read rate limits',
      );
    },
  };
}
