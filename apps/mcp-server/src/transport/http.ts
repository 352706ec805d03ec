/**
 * Streamable HTTP on node:http, serving both protocol eras from one factory: 2026-07-28 requests
 * go to the SDK's per-request handler; 2025-era traffic goes to session-keeping transports (one
 * per `Mcp-Session-Id`), so elicitation and `notifications/cancelled` work for those clients too.
 * In front of both: the one configured path, Host checks on a loopback bind (DNS rebinding),
 * Origin checks (cross-site browsers), and the bearer token unless auth is switched off.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  bearerAuthChallengeResponse,
  createMcpHandler,
  isLegacyRequest,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, hostHeaderValidation, originValidation, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { wholeSeconds } from '@deputy/engine/facts';
import type { Logger } from '../log.js';
import { tokensMatch } from './auth-token.js';
import type { ListenUrl } from './listen-url.js';

/** Options of the HTTP listener. */
export interface HttpServeOptions {
  listen: ListenUrl;
  /** The bearer token; null only with `--insecure-no-auth`. */
  token: string | null;
  factory: McpServerFactory;
  log: Logger;
}

/** A running listener. */
export interface HttpListener {
  /** The URL clients use (with the real port). */
  url: string;
  close(): Promise<void>;
}

const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Starts listening; rejects when the port cannot be bound. */
export async function serveHttp(options: HttpServeOptions): Promise<HttpListener> {
  const { listen, token, factory, log } = options;
  const modernHandler = createMcpHandler(factory, { legacy: 'reject', onerror: (e) => log.debug(`http: ${e.message}`) });
  const modern = toNodeHandler(modernHandler);
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const bindName = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const hostOk = listen.isLoopback ? hostHeaderValidation(LOCAL_NAMES) : null;
  const originOk = originValidation(listen.isLoopback ? LOCAL_NAMES : [...LOCAL_NAMES, bindName]);
  const verifier = {
    async verifyAccessToken(presented: string): Promise<AuthInfo> {
      if (token === null || !tokensMatch(presented, token)) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown bearer token');
      return { token: presented, clientId: 'deputy-mcp-client', scopes: [], expiresAt: wholeSeconds(Date.now()) + 3600 };
    },
  };

  const handle = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname !== listen.path) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if ((hostOk && !hostOk(req, res)) || !originOk(req, res)) return;
    if (token !== null) {
      try {
        req.auth = await verifyBearerToken(req.headers.authorization, { verifier });
      } catch (error) {
        const answer = bearerAuthChallengeResponse(error);
        res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text());
        return;
      }
    }
    const web = await toWebRequest(req);
    const body: unknown = req.method === 'POST' ? await web.clone().json().catch(() => undefined) : undefined;
    if (!(await isLegacyRequest(web, body))) return modern(req, res, body);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return session.handleRequest(req, res, body);
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = await factory({ era: 'legacy', ...(req.auth ? { authInfo: req.auth } : {}) });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.warn(`http: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(listen.port, listen.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://${bindName}:${port}${listen.path}`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      await modernHandler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
