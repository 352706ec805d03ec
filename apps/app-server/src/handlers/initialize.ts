/**
 * The handshake (spec §4): `initialize` records the client and its opt-ins on the connection and
 * answers with the user agent, the home and the platform; `remoteControl/status/changed` and one
 * `configWarning` per configuration warning follow the response. A second `initialize` is `Already initialized`; the `initialized` notification
 * is accepted and changes nothing (the reference serves requests before it).
 */
import os from 'node:os';
import { DEPUTY_VERSION } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc';
import { afterResponse, type AppContext } from '../app-context.js';
import { configWarning, remoteControlDisabled } from '../project/lifecycle.js';
import type { Handlers } from './types.js';

/**
 * `<originator>/<version> (<os> <os version>; <arch>) <$TERM> (<client name>; <client version>)`.
 * The originator is this connection's client name (the reference fixes it for the whole process
 * at the first initialize; per connection is the documented difference).
 */
export function userAgentOf(clientInfo: AppServer.ClientInfo, term: string | undefined = process.env.TERM): string {
  const platform = `${os.type()} ${os.release()}; ${os.arch()}`;
  return `${clientInfo.name}/${DEPUTY_VERSION} (${platform}) ${term || 'unknown'} (${clientInfo.name}; ${clientInfo.version})`;
}

/** `platformFamily` and `platformOs` of this process. */
export function platformOf(platform: NodeJS.Platform = process.platform): { platformFamily: string; platformOs: string } {
  if (platform === 'win32') return { platformFamily: 'windows', platformOs: 'windows' };
  return { platformFamily: 'unix', platformOs: platform === 'darwin' ? 'macos' : 'linux' };
}

/** The handlers of this area. */
export function initializeHandlers(app: AppContext): Handlers {
  return {
    initialize: (params, ctx) => {
      const state = app.stateOf(ctx.connection);
      // Two pipelined initialize requests can both pass the guard; only the first one wins.
      if (state.isInitialized) throw RpcError.alreadyInitialized();
      state.initialize(params);
      app.logger.info('client initialized', { connection: state.id, transport: state.transportKind, client: params.clientInfo.name });
      afterResponse(ctx, () => {
        app.router.sendTo(state, remoteControlDisabled());
        for (const warning of app.config.warnings) app.router.sendTo(state, configWarning(warning));
      });
      return { userAgent: userAgentOf(params.clientInfo), codexHome: app.config.home, ...platformOf() };
    },
  };
}
