/**
 * The HTTP side shared by the `ws://` and `unix://` listeners: an `http.Server` that answers the
 * probes of docs/app-server.md "Transports" (`/readyz`, `/healthz`, 403 for any request with an
 * `Origin` header, 400 for a plain request) and turns an authorized Upgrade into a
 * `WebSocketTransport`. The `ws` server runs with `perMessageDeflate: false`, so a client that
 * offers the extension is accepted without it being negotiated (the reference's unix socket dropped
 * such clients; docs/app-server.md "What differs from codex app-server"). Binding the server to an
 * address or a path is the caller's job. `ws` is loaded when the first such server is created, so
 * processes that only serve stdio never load it.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WsAuthenticator } from '../auth.js';
import { AsyncQueue } from './async-queue.js';
import { NOOP_LOGGER, type Transport, type TransportOptions } from './transport.js';
import { WebSocketTransport } from './websocket-transport.js';

/** Options of {@link createUpgradeServer}. */
export interface UpgradeServerOptions extends TransportOptions {
  /** Checked at the upgrade; a failure is a 401. */
  auth?: WsAuthenticator;
  /** Answer `GET /readyz` and `GET /healthz` with 200 (TCP listener only). */
  healthEndpoints: boolean;
  /** Largest accepted frame in bytes; defaults to 100 MiB. */
  maxPayload?: number;
  /** Prefix of each transport's description, e.g. `ws` or `unix`. */
  label: string;
}

/** The server plus the stream of transports it produces. */
export interface UpgradeServer {
  /** Bind it with `listen()`. */
  readonly server: http.Server;
  /** Accepted transports; ends after `close()`. */
  readonly transports: AsyncQueue<Transport>;
  /** Stops accepting, closes every open transport, and waits for the server to close. */
  close(): Promise<void>;
}

const DEFAULT_MAX_PAYLOAD = 100 * 1024 * 1024;

/** Writes a bare HTTP response on a socket that has not been upgraded, then closes it. */
function rejectUpgrade(socket: Duplex, status: number, reason: string, body = ''): void {
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  if (status === 401) headers.push('WWW-Authenticate: Bearer');
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

function handlePlainRequest(req: http.IncomingMessage, res: http.ServerResponse, health: boolean): void {
  if (req.headers.origin !== undefined) {
    res.writeHead(403).end();
    return;
  }
  const pathname = (req.url ?? '/').split('?', 1)[0];
  if (health && (req.method === 'GET' || req.method === 'HEAD') && (pathname === '/readyz' || pathname === '/healthz')) {
    res.writeHead(200, { 'Content-Length': '0' }).end();
    return;
  }
  res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end("Connection header did not include 'upgrade'");
}

/** Builds the server; see the module comment. */
export async function createUpgradeServer(options: UpgradeServerOptions): Promise<UpgradeServer> {
  const { WebSocketServer } = await import('ws');
  const logger = options.logger ?? NOOP_LOGGER;
  const transports = new AsyncQueue<Transport>();
  const open = new Set<WebSocketTransport>();
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
  });
  const server = http.createServer((req, res) => handlePlainRequest(req, res, options.healthEndpoints));
  let isClosing = false;
  let nextId = 0;

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (isClosing) {
      rejectUpgrade(socket, 503, 'Service Unavailable');
      return;
    }
    if (req.headers.origin !== undefined) {
      rejectUpgrade(socket, 403, 'Forbidden');
      return;
    }
    void (async () => {
      const verdict = options.auth ? await options.auth.authorize(req.headers) : { ok: true as const };
      if (!verdict.ok) {
        logger.warn('rejected a websocket upgrade', { transport: options.label, reason: verdict.message });
        rejectUpgrade(socket, 401, 'Unauthorized', verdict.message);
        return;
      }
      if (isClosing || socket.destroyed) {
        socket.destroy();
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const remote = req.socket.remoteAddress ? `${req.socket.remoteAddress}:${req.socket.remotePort}` : `#${nextId}`;
        nextId += 1;
        const transport = new WebSocketTransport(ws, {
          description: `${options.label} ${remote}`,
          versionField: options.versionField,
          logger,
        });
        open.add(transport);
        void transport.closed.then(() => open.delete(transport));
        transports.push(transport);
      });
    })();
  });

  return {
    server,
    transports,
    async close() {
      if (isClosing) return;
      isClosing = true;
      transports.end();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([...open].map((t) => t.close('server shutting down')));
      wss.close();
      await serverClosed;
    },
  };
}
