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
import { isReservedId, restoreBigIds, standInBigId } from './big-ids.js';
import { paramsProblem } from './param-checks.js';
import type { ListenUrl } from './listen-url.js';

/** Options of the HTTP listener. */
export interface HttpServeOptions {
  listen: ListenUrl;
  /** The bearer token; null only with `--insecure-no-auth`. */
  token: string | null;
  factory: McpServerFactory;
  log: Logger;
  /** 2025-era sessions idle (no request, no open stream) this long are closed. Default 600 s. */
  sessionIdleMs?: number;
  /** Most 2025-era sessions at once; one more `initialize` gets 503. Default 256. */
  maxSessions?: number;
}

/** Largest accepted request body: 4 MiB. A larger one gets 413. */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

/** One 2025-era session: its transport, when it was last used, and its requests still open. */
interface Session {
  transport: NodeStreamableHTTPServerTransport;
  lastUsed: number;
  open: number;
}

/** Reads and drops the rest of a request body; resolves at its end or after `maxMs`. */
function discardBody(req: IncomingMessage, maxMs: number): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, maxMs);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    req.once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}

/** Writes a JSON-RPC error as the whole HTTP answer. */
function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** Parses a POST body as JSON; a single message's big integer id gets its stand-in (big-ids.ts). */
function parseBody(text: string): { body: unknown; bigId: boolean; reserved: boolean } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { body: undefined, bigId: false, reserved: false };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body, bigId: false, reserved: false };
  const message = body as Record<string, unknown>;
  return { body, reserved: isReservedId(message.id), bigId: standInBigId(text, message) };
}

/** Makes everything written to `res` carry the original digits of a big id (big-ids.ts). */
function restoreBigIdsOn(res: ServerResponse): void {
  const fix = (chunk: unknown): unknown => (typeof chunk === 'string' ? restoreBigIds(chunk) : chunk instanceof Uint8Array ? Buffer.from(restoreBigIds(Buffer.from(chunk).toString('utf8'))) : chunk);
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  // The answer's length changes, so a preset Content-Length would be wrong: drop it.
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  res.writeHead = ((...a: unknown[]) => {
    res.removeHeader('content-length');
    const headers = a.find((x, i) => i > 0 && typeof x === 'object' && x !== null && !Array.isArray(x)) as Record<string, unknown> | undefined;
    if (headers) for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-length') delete headers[k];
    return writeHead(...a);
  }) as ServerResponse['writeHead'];
  res.write = ((chunk: unknown, ...rest: unknown[]) => write(fix(chunk), ...rest)) as ServerResponse['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => (typeof chunk === 'function' || chunk === undefined ? end(chunk, ...rest) : end(fix(chunk), ...rest))) as ServerResponse['end'];
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
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 600_000;
  const maxSessions = options.maxSessions ?? 256;
  // Abandoned sessions (clients that never send DELETE) are closed once idle.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (session.open > 0 || now - session.lastUsed < idleMs) continue;
      sessions.delete(id);
      log.info(`http: closing session ${id}, idle for ${Math.round((now - session.lastUsed) / 1000)} s`);
      void session.transport.close().catch(() => undefined);
    }
  }, Math.max(250, Math.min(idleMs / 4, 30_000)));
  sweeper.unref();
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
    let web: Request;
    try {
      web = await toWebRequest(req, undefined, { maxRequestBodySize: MAX_REQUEST_BODY_BYTES });
    } catch (error) {
      if ((error as Error).name !== 'RequestBodyTooLargeError') throw error;
      // Let the client finish sending (for a second at most, the rest discarded), so it reads the
      // answer instead of failing its write on a closed socket.
      await discardBody(req, 1_000);
      return rpcError(res, 413, -32600, `Request body too large: the limit is ${MAX_REQUEST_BODY_BYTES} bytes (4 MiB)`, { connection: 'close' });
    }
    const parsed = req.method === 'POST' ? parseBody(await web.clone().text()) : { body: undefined, bigId: false, reserved: false };
    if (parsed.reserved) return rpcError(res, 400, -32600, 'Invalid Request: this string id is reserved');
    const body = parsed.body;
    const message = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    const problem = message && 'id' in message ? paramsProblem(message.method, message.params) : undefined;
    if (problem !== undefined && message) {
      if (parsed.bigId) restoreBigIdsOn(res);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: problem } }));
      return;
    }
    if (parsed.bigId) restoreBigIdsOn(res);
    if (!(await isLegacyRequest(web, body))) return modern(req, res, body);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(res, 404, -32001, 'Session not found');
      session.lastUsed = Date.now();
      session.open++;
      res.once('close', () => {
        session.open--;
        session.lastUsed = Date.now();
      });
      return session.transport.handleRequest(req, res, body);
    }
    if (sessions.size >= maxSessions) {
      return rpcError(res, 503, -32001, `Too many sessions: at most ${maxSessions} at once; end one with DELETE or wait until an idle one expires (${Math.round(idleMs / 1000)} s)`, { 'retry-after': '5' });
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, lastUsed: Date.now(), open: 0 }),
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
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      await modernHandler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
