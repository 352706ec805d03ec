/**
 * The handshake (docs/app-server.md "Handshake"): `initialize` records the client and its opt-ins
 * on the connection and answers with the user agent, the home and the platform; the server's
 * greeting (`remoteControl/status/changed`, then one `configWarning` per configuration warning once
 * the configuration is known) follows the response. A second `initialize` is `Already initialized`;
 * the `initialized` notification is accepted and changes nothing (the reference serves requests
 * before it). Nothing here needs the engine, so the first response never waits for it.
 */
import os from 'node:os';
import type { AppServer } from '@deputy/protocol';
import { RpcError, type Connection } from '@deputy/rpc/core';
import { afterResponse } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import { APP_SERVER_VERSION } from '../identity.js';
import type { AppLogger } from '../logger.js';
import type { Handlers } from './types.js';

/** What `initialize` works with (the server provides it before the engine is loaded). */
export interface Handshake {
  readonly logger: AppLogger;
  /** The Deputy home, reported as `codexHome`. */
  readonly home: string;
  /** The state of a connection. */
  stateOf(connection: Connection): ConnectionState;
  /** Sends the post-initialize notifications; runs once the response is queued. */
  greet(state: ConnectionState): void;
}

/**
 * The Codex protocol version Deputy implements. Current clients read the server's version from
 * the user agent's first token and warn about a server older than themselves, so that token
 * carries the protocol Deputy speaks; Deputy's own version follows as a product token.
 */
export const CODEX_PROTOCOL_VERSION = '0.171.0';

/**
 * `<originator>/<protocol version> (<os> <os version>; <arch>) <$TERM> (<client name>; <client
 * version>) deputy/<Deputy version>`. The originator is this connection's client name (the
 * reference fixes it for the whole process at the first initialize; per connection is the
 * documented difference). The same value goes to clients of both generations (docs/app-server.md
 * "Handshake").
 */
export function userAgentOf(clientInfo: AppServer.ClientInfo, term: string | undefined = process.env.TERM): string {
  const platform = `${os.type()} ${os.release()}; ${os.arch()}`;
  const client = `(${clientInfo.name}; ${clientInfo.version})`;
  return `${clientInfo.name}/${CODEX_PROTOCOL_VERSION} (${platform}) ${term || 'unknown'} ${client} deputy/${APP_SERVER_VERSION}`;
}

/** `platformFamily` and `platformOs` of this process. */
export function platformOf(platform: NodeJS.Platform = process.platform): { platformFamily: string; platformOs: string } {
  if (platform === 'win32') return { platformFamily: 'windows', platformOs: 'windows' };
  return { platformFamily: 'unix', platformOs: platform === 'darwin' ? 'macos' : 'linux' };
}

/** The handlers of this area. */
export function initializeHandlers(handshake: Handshake): Handlers {
  return {
    initialize: (params, ctx) => {
      const state = handshake.stateOf(ctx.connection);
      // Two pipelined initialize requests can both pass the guard; only the first one wins.
      if (state.isInitialized) throw RpcError.alreadyInitialized();
      state.initialize(params);
      handshake.logger.info('client initialized', {
        connection: state.id,
        transport: state.transportKind,
        client: params.clientInfo.name,
        generation: state.generation,
      });
      afterResponse(ctx, () => handshake.greet(state));
      return { userAgent: userAgentOf(params.clientInfo), codexHome: handshake.home, ...platformOf() };
    },
  };
}
