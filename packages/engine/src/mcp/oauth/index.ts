/**
 * McpOAuth: the OAuth side of the MCP client for one process (docs/mcp-client.md "OAuth"): the
 * credential store chosen by `mcp_oauth_credentials_store`, the transport auth of each Streamable
 * HTTP connection, logins and logouts, and the `authStatus` of a configured server (bearer token,
 * stored tokens, or what discovery found, cached per URL so status answers stay fast). One login
 * runs per server: a second one cancels the first.
 */
import type { AuthProvider } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../config.js';
import { mcpOAuthLogout, startMcpOAuthLogin, type McpOAuthLogin, type McpOAuthLogoutResult } from './login.js';
import { discoverOAuth, oauthServerOf, transportAuth } from './provider.js';
import { McpOAuthStore, type McpOAuthStoreMode } from './store.js';

export { McpOAuthStore, MCP_OAUTH_FILE, type McpOAuthEntry, type McpOAuthStoreMode } from './store.js';
export { DEFAULT_LOGIN_TIMEOUT_MS, type McpOAuthLogin, type McpOAuthLoginOutcome, type McpOAuthLogoutResult } from './login.js';
export { McpLoginRequiredError, oauthServerOf, REFRESH_MARGIN_MS, type McpOAuthServer } from './provider.js';

/** How a configured server authenticates (`authStatus` of `mcpServerStatus/list`). */
export type McpAuthStatusValue = 'unsupported' | 'notLoggedIn' | 'bearerToken' | 'oAuth';

/** The settings of `McpOAuth`. */
export interface McpOAuthSettings {
  home: string;
  credentialsStore: McpOAuthStoreMode;
  callbackPort: number | null;
  callbackUrl: string | null;
  warn?: (message: string) => void;
}

const DISCOVERY_TIMEOUT_MS = 5_000;
/** How long a discovery result is used before it is checked again (in the background). */
const DISCOVERY_RETRY_MS = 30_000;

/** See the module comment. */
export class McpOAuth {
  readonly store: McpOAuthStore;
  readonly #logins = new Map<string, McpOAuthLogin>();
  readonly #discovered = new Map<string, { supported: Promise<boolean>; atMs: number }>();
  /** Token refreshes in flight, by server: every connection of the process shares them. */
  readonly #refreshes = new Map<string, Promise<void>>();

  constructor(readonly settings: McpOAuthSettings) {
    this.store = new McpOAuthStore({ home: settings.home, mode: settings.credentialsStore, ...(settings.warn ? { warn: settings.warn } : {}) });
  }

  /** The transport auth of an HTTP server that has no bearer token or Authorization header configured. */
  transportAuth(config: McpServerConfig): AuthProvider | undefined {
    const server = oauthServerOf(config);
    if (server === null || hasStaticAuth(config)) return undefined;
    return transportAuth(server, this.store, this.#refreshes);
  }

  /**
   * Starts a login of `config` (an HTTP server), cancelling a pending one of the same server.
   * Throws when no authorization URL can be made.
   */
  async login(config: McpServerConfig, options: { scopes?: string[] | null; timeoutMs?: number }): Promise<McpOAuthLogin> {
    const server = oauthServerOf(config);
    if (server === null) throw new Error('OAuth login is only supported for streamable HTTP servers.');
    this.#logins.get(config.name)?.cancel(`cancelled: a newer OAuth login for MCP server '${config.name}' started`);
    this.#logins.delete(config.name);
    const login = await startMcpOAuthLogin({
      server,
      store: this.store,
      scopes: options.scopes ?? null,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      callbackPort: this.settings.callbackPort,
      callbackUrl: this.settings.callbackUrl,
    });
    // A login started meanwhile (while this one discovered) wins over this one.
    this.#logins.get(config.name)?.cancel(`cancelled: a newer OAuth login for MCP server '${config.name}' started`);
    this.#logins.set(config.name, login);
    void login.done.then(() => {
      if (this.#logins.get(config.name) === login) this.#logins.delete(config.name);
      this.#discovered.delete(server.url);
    });
    return login;
  }

  /** Deletes a server's credentials (revoking them where the server offers it). */
  logout(config: McpServerConfig): Promise<McpOAuthLogoutResult> {
    const server = oauthServerOf(config);
    if (server === null) throw new Error('OAuth logout is only supported for streamable HTTP servers.');
    return mcpOAuthLogout(server, this.store);
  }

  /**
   * A server's auth status: `bearerToken` for a bearer variable or Authorization header, `oAuth`
   * with stored tokens, `notLoggedIn` when discovery finds an authorization server, else
   * `unsupported`. Waits at most `budgetMs` for discovery (then `unsupported`, and the next call
   * uses the finished result).
   */
  async authStatus(config: McpServerConfig, budgetMs: number): Promise<McpAuthStatusValue> {
    if (config.transport.type !== 'http') return 'unsupported';
    if (hasStaticAuth(config)) return 'bearerToken';
    const entry = await this.store.load(config.name, config.transport.url);
    if (entry?.tokens) return 'oAuth';
    const supported = await Promise.race([this.#supportsOAuth(config.transport.url), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), budgetMs).unref())]);
    return supported ? 'notLoggedIn' : 'unsupported';
  }

  /** Whether `url` advertises OAuth: cached; a result older than 30 s is still answered while a new discovery runs. */
  #supportsOAuth(url: string): Promise<boolean> {
    const known = this.#discovered.get(url);
    if (known && Date.now() - known.atMs < DISCOVERY_RETRY_MS) return known.supported;
    const supported = discoverOAuth(url, DISCOVERY_TIMEOUT_MS).then(
      (d) => d.supported,
      () => false,
    );
    const fresh = { supported, atMs: Date.now() };
    if (!known) {
      this.#discovered.set(url, fresh);
      return supported;
    }
    known.atMs = Date.now();
    void supported.then(() => this.#discovered.set(url, fresh));
    return known.supported;
  }
}

/** A bearer variable, or an Authorization header among the configured headers. */
function hasStaticAuth(config: McpServerConfig): boolean {
  const t = config.transport;
  if (t.type !== 'http') return false;
  if (t.bearerTokenEnvVar !== null) return true;
  return [...Object.keys(t.httpHeaders), ...Object.keys(t.envHttpHeaders)].some((h) => h.toLowerCase() === 'authorization');
}
