/**
 * The interactive OAuth login of one remote MCP server, and its logout. Login: discovery, then a
 * loopback callback listener (`http://127.0.0.1:<port>/callback`, a random port unless
 * `mcp_oauth_callback_port`), then the SDK's `auth()` builds the PKCE S256 authorization URL
 * (registering a client dynamically unless `oauth.client_id` is configured). The URL is returned
 * at once; `done` settles when the browser comes back with the right `state` (the code is
 * exchanged and the tokens stored), when the authorization server reports an error, on timeout, or
 * on `cancel()`. A callback with a wrong or missing `state` is refused and changes nothing.
 * Logout deletes the stored credentials and revokes the tokens at the authorization server's
 * RFC 7009 endpoint when its metadata names one.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpClientSdk } from '../client-sdk.js';
import { DeputyOAuthProvider, discoverOAuth, errorText, type McpOAuthServer } from './provider.js';
import type { McpOAuthStore } from './store.js';

/** Default of `timeoutSecs`. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;
const DISCOVERY_TIMEOUT_MS = 10_000;

/** How a login ended. */
export type McpOAuthLoginOutcome = { success: true } | { success: false; error: string };

/** Options of a login. */
export interface McpOAuthLoginOptions {
  server: McpOAuthServer;
  store: McpOAuthStore;
  /** Scopes of this login; else the config's `scopes`; else what the server advertises. */
  scopes?: string[] | null;
  timeoutMs?: number;
  /** `mcp_oauth_callback_port`; a random free port when absent. */
  callbackPort?: number | null;
  /** `mcp_oauth_callback_url`: the redirect URI to register and send instead of the loopback one (its path is served). */
  callbackUrl?: string | null;
}

/** A started login. */
export interface McpOAuthLogin {
  authorizationUrl: string;
  /** The redirect URI the authorization server sends the browser back to. */
  redirectUrl: string;
  /** Settles with the outcome (never rejects). */
  done: Promise<McpOAuthLoginOutcome>;
  /** Ends a pending login with `success:false` and `reason`. */
  cancel(reason: string): void;
}

/**
 * Starts a login; resolves with the authorization URL once the listener runs. Throws (with a
 * message naming the unreachable host) when no URL can be made: discovery, registration.
 */
export async function startMcpOAuthLogin(options: McpOAuthLoginOptions): Promise<McpOAuthLogin> {
  const { server, store } = options;
  const discovery = await discoverOAuth(server.url, DISCOVERY_TIMEOUT_MS);
  if (!discovery.supported || discovery.state === null) throw new Error(`MCP server '${server.name}' does not advertise OAuth: no authorization server metadata was found for ${server.url}`);
  const asOrigin = new URL(discovery.authorizationServerUrl ?? server.url).origin;

  const callbackPath = options.callbackUrl ? new URL(options.callbackUrl).pathname : '/callback';
  const listener = createServer();
  await new Promise<void>((resolve, reject) => {
    listener.once('error', (error) => reject(new Error(`cannot listen for the OAuth callback on 127.0.0.1:${options.callbackPort ?? 0}: ${error.message}`)));
    listener.listen(options.callbackPort ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (listener.address() as AddressInfo).port;
  const redirectUrl = options.callbackUrl ?? `http://127.0.0.1:${port}${callbackPath}`;
  const state = randomBytes(24).toString('base64url');
  let authorizationUrl: URL | undefined;
  const provider = new DeputyOAuthProvider(server, store, await store.load(server.name, server.url), {
    redirectUrl,
    state,
    discovery: discovery.state,
    onAuthorizationUrl: (url) => {
      authorizationUrl = url;
    },
  });
  const scopes = options.scopes && options.scopes.length > 0 ? options.scopes : server.scopes;
  const scope = scopes && scopes.length > 0 ? scopes.join(' ') : undefined;
  try {
    const { auth } = await mcpClientSdk();
    await auth(provider, { serverUrl: server.url, ...(scope ? { scope } : {}), forceReauthorization: true });
    if (!authorizationUrl) throw new Error('the authorization server did not produce an authorization URL');
  } catch (error) {
    closeListener(listener);
    throw new Error(describeFailure(error, asOrigin));
  }

  let settle!: (outcome: McpOAuthLoginOutcome) => void;
  const done = new Promise<McpOAuthLoginOutcome>((resolve) => (settle = resolve));
  let finished = false;
  const finish = (outcome: McpOAuthLoginOutcome): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    closeListener(listener);
    settle(outcome);
  };
  const timer = setTimeout(() => finish({ success: false, error: 'timed out waiting for OAuth callback' }), options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
  let exchanging = false;

  listener.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== callbackPath) return page(res, 404, 'Not found.');
    if (finished || exchanging) return page(res, 409, 'This login is already finished.');
    // Wrong or missing state: refused, nothing stored, the login keeps waiting for the real callback.
    if (url.searchParams.get('state') !== state) return page(res, 400, 'OAuth callback refused: the state parameter does not match this login.');
    const error = url.searchParams.get('error');
    if (error !== null) {
      const description = url.searchParams.get('error_description');
      const text = `the authorization server refused the login: ${error}${description ? `: ${description}` : ''}`;
      page(res, 400, `Login failed: ${text}.`);
      return finish({ success: false, error: text });
    }
    const code = url.searchParams.get('code');
    if (!code) return page(res, 400, 'OAuth callback refused: no authorization code.');
    exchanging = true;
    const iss = url.searchParams.get('iss') ?? undefined;
    mcpClientSdk()
      .then(({ auth }) => auth(provider, { serverUrl: server.url, authorizationCode: code, ...(iss !== undefined ? { iss } : {}) }))
      .then(
        () => {
          page(res, 200, `Logged in to MCP server '${server.name}'. You can close this window.`);
          finish({ success: true });
        },
        (failure: unknown) => {
          const text = describeFailure(failure, asOrigin);
          page(res, 500, `Login failed: ${text}`);
          finish({ success: false, error: text });
        },
      );
  });

  return { authorizationUrl: authorizationUrl.href, redirectUrl, done, cancel: (reason) => finish({ success: false, error: reason }) };
}

/** The result of a logout. */
export interface McpOAuthLogoutResult {
  /** Stored credentials were found and deleted. */
  removed: boolean;
  /** Tokens were revoked at the authorization server. */
  revoked: boolean;
  /** Why revocation did not happen or failed, when it did not. */
  revocationNote: string | null;
}

/** Deletes a server's stored credentials, revoking its tokens first where the authorization server offers RFC 7009 revocation. */
export async function mcpOAuthLogout(server: McpOAuthServer, store: McpOAuthStore): Promise<McpOAuthLogoutResult> {
  const entry = await store.load(server.name, server.url);
  let revoked = false;
  let revocationNote: string | null = null;
  const clientId = entry?.clientInformation?.client_id;
  if (entry?.tokens && clientId) {
    try {
      const discovery = await discoverOAuth(server.url, DISCOVERY_TIMEOUT_MS);
      const endpoint = (discovery.state?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
      if (!endpoint) {
        revocationNote = 'the authorization server offers no revocation endpoint';
      } else {
        const tokens: [string, string][] = [];
        if (entry.tokens.refresh_token) tokens.push([entry.tokens.refresh_token, 'refresh_token']);
        tokens.push([entry.tokens.access_token, 'access_token']);
        for (const [token, hint] of tokens) {
          const body = new URLSearchParams({ token, token_type_hint: hint, client_id: clientId });
          const secret = (entry.clientInformation as { client_secret?: unknown }).client_secret;
          if (typeof secret === 'string') body.set('client_secret', secret);
          const res = await fetch(endpoint, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' }, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
          await res.text().catch(() => '');
          if (!res.ok) throw new Error(`HTTP ${res.status} from ${endpoint}`);
        }
        revoked = true;
      }
    } catch (error) {
      revocationNote = `revocation failed: ${errorText(error)}`;
    }
  }
  const removed = await store.remove(server.name, server.url);
  return { removed, revoked, revocationNote };
}

function describeFailure(error: unknown, asOrigin: string): string {
  const text = errorText(error);
  if (error instanceof TypeError || /fetch failed|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH/.test(text)) return `the OAuth authorization server ${asOrigin} is unreachable (${text})`;
  return text;
}

function page(res: ServerResponse, status: number, message: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>Deputy</title></head><body><p>${escapeHtml(message)}</p></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
  res.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function closeListener(listener: Server): void {
  listener.close();
  // Let an in-flight callback response finish; drop idle keep-alive sockets.
  listener.closeIdleConnections();
}
