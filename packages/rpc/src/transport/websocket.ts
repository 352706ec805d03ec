/**
 * The `ws://IP:PORT` listener: WebSocket over TCP (docs/app-server.md "Transports"). The same port
 * answers `GET /readyz` and `GET /healthz` with 200, refuses any request with an `Origin` header
 * with 403 (browsers must not reach a local agent), and checks the optional auth at the upgrade.
 * Each accepted connection is a `WebSocketTransport`. Refusing a non-loopback bind without auth is
 * the caller's decision (`isLoopbackHost`); this module binds what it is given.
 */
import type { AddressInfo } from 'node:net';
import type { WsAuthenticator } from '../auth.js';
import { formatWsUrl } from '../listen-url.js';
import type { Listener, Transport, TransportOptions } from './transport.js';
import { createUpgradeServer } from './upgrade-server.js';

/** Options of {@link listenWebSocket}. */
export interface WebSocketListenerOptions extends TransportOptions {
  /** A literal IP, e.g. `127.0.0.1` or `::1`. */
  host: string;
  /** 0 picks a free port; read it back from `address`. */
  port: number;
  /** Checked at the upgrade (401 on failure). */
  auth?: WsAuthenticator;
  /** Largest accepted frame in bytes; defaults to 100 MiB. */
  maxPayload?: number;
}

/** A bound WebSocket listener. */
export interface WebSocketListener extends Listener {
  /** The bound address (the real port when 0 was asked for). */
  readonly address: { host: string; port: number };
  /** `ws://host:port`. */
  readonly url: string;
}

/** Binds the listener; resolves once it accepts connections, rejects if the bind fails. */
export async function listenWebSocket(options: WebSocketListenerOptions): Promise<WebSocketListener> {
  const upgrade = await createUpgradeServer({
    label: 'ws',
    healthEndpoints: true,
    auth: options.auth,
    maxPayload: options.maxPayload,
    versionField: options.versionField,
    logger: options.logger,
  });
  const { server } = upgrade;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const address = { host: options.host, port: bound.port };
  return {
    address,
    url: formatWsUrl(address.host, address.port),
    connections: (): AsyncIterable<Transport> => upgrade.transports,
    close: () => upgrade.close(),
  };
}
