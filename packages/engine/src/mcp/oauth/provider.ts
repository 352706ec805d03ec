/**
 * The glue between the official client SDK's OAuth (`auth()`: discovery per RFC 9728 / RFC 8414,
 * dynamic client registration per RFC 7591, PKCE S256, the `resource` parameter, token exchange
 * and refresh) and Deputy's credential store: an `OAuthClientProvider` for one configured server,
 * and the `AuthProvider` a Streamable HTTP transport uses to send the stored access token,
 * refreshing it shortly before it expires and once on a 401. A refresh that fails drops the
 * tokens and fails the request with a "log in again" message: nothing waits for a browser.
 */
import { randomBytes } from 'node:crypto';
import type {
  AuthProvider,
  FetchLike,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { mcpClientSdk } from '../client-sdk.js';
import type { McpServerConfig } from '../config.js';
import type { McpOAuthEntry, McpOAuthStore } from './store.js';

/** Refresh an access token this long before it expires. */
export const REFRESH_MARGIN_MS = 30_000;

/** The OAuth settings of one `[mcp_servers.<name>]` (http only). */
export interface McpOAuthServer {
  name: string;
  url: string;
  /** `scopes`: asked for at login when the call gives none. */
  scopes: string[] | null;
  /** `oauth_resource`: the RFC 8707 `resource` parameter, instead of the server's advertised one. */
  resource: string | null;
  /** `oauth.client_id`: a pre-registered client (no dynamic registration). */
  clientId: string | null;
}

/** The OAuth view of a configured server, or null for stdio servers. */
export function oauthServerOf(config: McpServerConfig): McpOAuthServer | null {
  if (config.transport.type !== 'http') return null;
  return { name: config.name, url: config.transport.url, scopes: config.oauth?.scopes ?? null, resource: config.oauth?.resource ?? null, clientId: config.oauth?.clientId ?? null };
}

/** Raised when a server needs a (new) login; its message tells the user what to run. */
export class McpLoginRequiredError extends Error {
  constructor(server: string, reason: string) {
    super(`${reason}; run \`deputy mcp login ${server}\` (or mcpServer/oauth/login) to log in`);
    this.name = 'McpLoginRequiredError';
  }
}

/**
 * An `OAuthClientProvider` for one server, backed by the store. In `login` mode it has a
 * redirect URL and a state and hands the authorization URL to `onAuthorizationUrl`; in
 * `connect` mode it only refreshes: a redirect means the user must log in again.
 */
export class DeputyOAuthProvider implements OAuthClientProvider {
  #entry: McpOAuthEntry | null;
  #codeVerifier = '';
  #discovery: OAuthDiscoveryState | undefined;
  /** Set in connect mode when the SDK wanted a browser: the stored tokens did not work. */
  redirectRequested = false;
  readonly validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;

  constructor(
    readonly server: McpOAuthServer,
    readonly store: McpOAuthStore,
    entry: McpOAuthEntry | null,
    readonly options: { redirectUrl: string; state?: string; onAuthorizationUrl?: (url: URL) => void; discovery?: OAuthDiscoveryState },
  ) {
    this.#entry = entry;
    this.#discovery = options.discovery;
    const configured = server.resource;
    if (configured !== null) this.validateResourceURL = async () => new URL(configured);
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Deputy',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.options.state ?? randomBytes(16).toString('base64url');
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    if (this.server.clientId !== null) {
      const stored = this.#entry?.clientInformation;
      // A configured client belongs to whichever authorization server the server names.
      return stored?.client_id === this.server.clientId ? (stored as StoredOAuthClientInformation) : { client_id: this.server.clientId, ...(ctx ? { issuer: ctx.issuer } : {}) };
    }
    const stored = this.#entry?.clientInformation as StoredOAuthClientInformation | undefined;
    if (!stored) return undefined;
    // A login on another callback port needs a client registered for that redirect URI.
    if (this.options.onAuthorizationUrl) {
      const uris = (stored as { redirect_uris?: unknown }).redirect_uris;
      if (Array.isArray(uris) && !uris.includes(this.options.redirectUrl)) return undefined;
    }
    return stored;
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    // A login keeps a new registration in memory until its tokens arrive: a login that never
    // completes leaves nothing behind.
    await this.#update({ clientInformation: info as McpOAuthEntry['clientInformation'] }, this.options.onAuthorizationUrl === undefined);
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#entry?.tokens as StoredOAuthTokens | undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const expiresAtMs = typeof tokens.expires_in === 'number' ? Date.now() + tokens.expires_in * 1000 : null;
    // A refresh response may leave the refresh token out: keep the one we had (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? this.#entry?.tokens?.refresh_token;
    await this.#update({ tokens: { ...tokens, ...(refresh !== undefined ? { refresh_token: refresh } : {}) }, expiresAtMs });
  }

  redirectToAuthorization(url: URL): void {
    if (this.options.onAuthorizationUrl) this.options.onAuthorizationUrl(url);
    else this.redirectRequested = true;
  }

  saveCodeVerifier(verifier: string): void {
    this.#codeVerifier = verifier;
  }

  codeVerifier(): string {
    return this.#codeVerifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.#codeVerifier = '';
    else if (scope === 'discovery') this.#discovery = undefined;
    else if (scope === 'tokens') {
      // Drop only the tokens this provider holds: another process may have stored new ones.
      const current = this.options.onAuthorizationUrl ? this.#entry : await this.store.load(this.server.name, this.server.url);
      if (current?.tokens && current.tokens.access_token !== this.#entry?.tokens?.access_token) {
        this.#entry = current;
        return;
      }
      await this.#update({ tokens: undefined, expiresAtMs: null });
    }
    else if (scope === 'client') await this.#update({ clientInformation: undefined });
    else {
      this.#entry = null;
      await this.store.remove(this.server.name, this.server.url);
    }
  }

  /** The current entry (after any save). */
  get entry(): McpOAuthEntry | null {
    return this.#entry;
  }

  async #update(patch: Partial<McpOAuthEntry>, persist = true): Promise<void> {
    const next: McpOAuthEntry = { ...(this.#entry ?? { serverName: this.server.name, serverUrl: this.server.url }), ...patch };
    for (const key of Object.keys(next) as (keyof McpOAuthEntry)[]) if (next[key] === undefined) delete next[key];
    this.#entry = next;
    if (!persist) return;
    if (next.tokens === undefined && next.clientInformation === undefined) await this.store.remove(this.server.name, this.server.url);
    else await this.store.save(next);
  }
}

/**
 * The `AuthProvider` of a Streamable HTTP connection to `server`: the stored access token on
 * every request (refreshed first when it expires within `REFRESH_MARGIN_MS`), and one refresh on
 * a 401. Without stored tokens a 401 fails at once with a "log in" message. Refreshes of one
 * server share one flight through `inFlight` (all connections of a process: refresh tokens may
 * rotate, so two refreshes with the same token would log the user out); a refresh that lost a
 * race with another process finds that process's new tokens and uses them.
 */
export function transportAuth(server: McpOAuthServer, store: McpOAuthStore, inFlight: Map<string, Promise<void>> = new Map()): AuthProvider {
  const key = `${server.name}|${server.url}`;
  const refreshOnce = async (ctx: { resourceMetadataUrl?: URL; scope?: string; fetchFn?: FetchLike }, seen: string | undefined): Promise<void> => {
    const entry = await store.load(server.name, server.url);
    if (!entry?.tokens) throw new McpLoginRequiredError(server.name, `MCP server '${server.name}' requires OAuth login`);
    // Someone else refreshed since this request read its token: use theirs.
    if (seen !== undefined && entry.tokens.access_token !== seen && !isExpiring(entry)) return;
    if (!entry.tokens.refresh_token) throw new McpLoginRequiredError(server.name, `the OAuth access token of MCP server '${server.name}' expired and there is no refresh token`);
    const provider = new DeputyOAuthProvider(server, store, entry, { redirectUrl: redirectUrlOf(entry) });
    let failure: string | null = null;
    try {
      const { auth } = await mcpClientSdk();
      const result = await auth(provider, { serverUrl: server.url, ...ctx });
      if (result !== 'AUTHORIZED' || provider.redirectRequested) failure = 'the authorization server did not accept the refresh token';
    } catch (error) {
      failure = errorText(error);
    }
    if (failure === null) return;
    const now = await store.load(server.name, server.url);
    if (now?.tokens && now.tokens.access_token !== entry.tokens.access_token) return;
    await provider.invalidateCredentials('tokens');
    throw new McpLoginRequiredError(server.name, `refreshing the OAuth token of MCP server '${server.name}' failed (${failure})`);
  };
  const refresh = (ctx: { resourceMetadataUrl?: URL; scope?: string; fetchFn?: FetchLike }, seen: string | undefined): Promise<void> => {
    let flight = inFlight.get(key);
    if (!flight) {
      flight = refreshOnce(ctx, seen).finally(() => inFlight.delete(key));
      inFlight.set(key, flight);
    }
    return flight;
  };
  let lastSent: string | undefined;
  return {
    async token() {
      const entry = await store.load(server.name, server.url);
      if (!entry?.tokens) return undefined;
      if (isExpiring(entry) && entry.tokens.refresh_token) {
        await refresh({}, undefined);
        lastSent = (await store.load(server.name, server.url))?.tokens?.access_token;
        return lastSent;
      }
      lastSent = entry.tokens.access_token;
      return lastSent;
    },
    async onUnauthorized(ctx) {
      const { extractWWWAuthenticateParams } = await mcpClientSdk();
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(ctx.response);
      await refresh({ ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}), fetchFn: ctx.fetchFn }, lastSent);
    },
  };
}

/** True when the stored access token expires within `REFRESH_MARGIN_MS`. */
function isExpiring(entry: McpOAuthEntry): boolean {
  return entry.expiresAtMs != null && entry.expiresAtMs - Date.now() < REFRESH_MARGIN_MS;
}

/** The redirect URL a stored client was registered with (refresh needs an interactive-looking provider). */
function redirectUrlOf(entry: McpOAuthEntry): string {
  const uris = (entry.clientInformation as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : 'http://127.0.0.1/callback';
}

/** The message of an error, without stack. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? (cause as NodeJS.ErrnoException).code ?? cause.message : undefined;
    return causeText && !error.message.includes(causeText) ? `${error.message}: ${causeText}` : error.message;
  }
  return String(error);
}

/** What discovery found for a server: whether it advertises OAuth, and its authorization server. */
export interface OAuthDiscovery {
  supported: boolean;
  authorizationServerUrl: string | null;
  state: OAuthDiscoveryState | null;
}

/**
 * Discovers a server's authorization server (RFC 9728, then RFC 8414 / OpenID discovery) within
 * `timeoutMs`. Throws an Error naming the host that failed (the MCP server or the authorization
 * server) when one is unreachable.
 */
export async function discoverOAuth(url: string, timeoutMs: number): Promise<OAuthDiscovery> {
  const signal = AbortSignal.timeout(timeoutMs);
  let failedUrl: string | null = null;
  const fetchFn: FetchLike = async (input, init) => {
    try {
      return await fetch(input, { ...init, signal });
    } catch (error) {
      failedUrl ??= String(input instanceof Request ? input.url : input);
      throw error;
    }
  };
  try {
    const { discoverOAuthServerInfo } = await mcpClientSdk();
    const info = await discoverOAuthServerInfo(url, { fetchFn });
    const supported = info.authorizationServerMetadata !== undefined;
    return {
      supported,
      authorizationServerUrl: info.authorizationServerUrl,
      state: supported
        ? { authorizationServerUrl: info.authorizationServerUrl, authorizationServerMetadata: info.authorizationServerMetadata, resourceMetadata: info.resourceMetadata }
        : null,
    };
  } catch (error) {
    const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : errorText(error);
    if (failedUrl !== null && new URL(failedUrl).origin !== new URL(url).origin) {
      throw new Error(`the OAuth authorization server ${new URL(failedUrl).origin} is unreachable (${reason})`);
    }
    throw new Error(`OAuth discovery at ${url} failed (${reason})`);
  }
}
