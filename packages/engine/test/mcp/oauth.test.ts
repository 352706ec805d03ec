/**
 * OAuth of remote MCP servers in the engine (docs/mcp-client.md "OAuth"), against a real
 * protected server and authorization server (fixtures/oauth-server.mjs, built from the MCP SDK's
 * example auth provider) on 127.0.0.1: login (discovery, dynamic registration, PKCE S256, the
 * resource parameter, scopes), the callback listener's refusals, cancel and timeout, the token
 * store (file mode 0600, bad permissions, bad JSON, the keyring fallback), connecting with the
 * stored token, refresh before expiry and on a 401, a failed refresh, and logout with revocation.
 */
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parseMcpServer, type McpServerConfig } from '../../src/mcp/config.js';
import { McpManager } from '../../src/mcp/manager.js';
import { McpOAuth, MCP_OAUTH_FILE } from '../../src/mcp/oauth/index.js';
import { startOAuthTestServer, visit, type OAuthTestServer } from './fixtures/oauth-fixture.js';

let as: OAuthTestServer;
beforeAll(async () => {
  as = await startOAuthTestServer(['--scopes', 'mcp:tools,extra']);
}, 40_000);
afterAll(async () => {
  await as?.close();
});

async function home(): Promise<TempHome> {
  const temp = await makeTempHome('deputy-oauth-');
  onTestFinished(() => temp.cleanup());
  return temp;
}

function serverConfig(extra: Record<string, unknown> = {}, url = as.mcpUrl, name = 'remote'): McpServerConfig {
  return parseMcpServer(name, { url, startup_timeout_sec: 10, ...extra }).server;
}

function oauthOf(temp: TempHome, options: { store?: 'file' | 'keyring' | 'auto'; warnings?: string[] } = {}): McpOAuth {
  return new McpOAuth({ home: temp.home, credentialsStore: options.store ?? 'file', callbackPort: null, callbackUrl: null, warn: (m) => options.warnings?.push(m) });
}

async function loggedIn(oauth: McpOAuth, config: McpServerConfig, scopes: string[] | null = null): Promise<void> {
  const login = await oauth.login(config, { scopes, timeoutMs: 20_000 });
  const page = await visit(login.authorizationUrl);
  expect(page.status).toBe(200);
  expect(await login.done).toEqual({ success: true });
}

async function managerWith(oauth: McpOAuth, config: McpServerConfig, cwd: string): Promise<McpManager> {
  const manager = new McpManager({ servers: [config], cwd, version: '0.0.0', startupGraceMs: 0, oauth });
  onTestFinished(() => manager.shutdown());
  manager.start();
  await manager.prepare(AbortSignal.timeout(15_000));
  for (let i = 0; i < 300 && manager.statuses()[0]?.status === 'starting'; i++) await new Promise((r) => setTimeout(r, 50));
  return manager;
}

describe('login', () => {
  it('discovers, registers, sends PKCE S256, resource and the advertised scopes, and stores the tokens in a 0600 file', async () => {
    const temp = await home();
    const oauth = oauthOf(temp);
    const config = serverConfig();
    const before = (await as.events('register')).length;
    const login = await oauth.login(config, { timeoutMs: 20_000 });
    const url = new URL(login.authorizationUrl);
    expect(url.origin).toBe(new URL(as.issuer).origin);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(as.mcpUrl);
    expect(url.searchParams.get('scope')?.split(' ')).toEqual(['mcp:tools', 'extra']);
    expect(login.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect((await as.events('register')).length).toBe(before + 1);
    expect(await oauth.authStatus(config, 2000)).toBe('notLoggedIn');
    expect((await visit(login.authorizationUrl)).text).toContain('Logged in to MCP server &#39;remote&#39;');
    expect(await login.done).toEqual({ success: true });
    const file = join(temp.home, MCP_OAUTH_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { entries: Record<string, { tokens: { access_token: string; refresh_token: string } }> };
    const entry = stored.entries[`remote|${as.mcpUrl}`];
    expect(entry?.tokens.access_token).toEqual(expect.any(String));
    expect(entry?.tokens.refresh_token).toEqual(expect.any(String));
    expect(await oauth.authStatus(config, 2000)).toBe('oAuth');
  });

  it('asks for the login scopes, else the config scopes, and sends oauth_resource', async () => {
    const temp = await home();
    const oauth = oauthOf(temp);
    const fromCall = await oauth.login(serverConfig({ scopes: ['extra'] }), { scopes: ['mcp:tools'], timeoutMs: 5_000 });
    expect(new URL(fromCall.authorizationUrl).searchParams.get('scope')).toBe('mcp:tools');
    const fromConfig = await oauth.login(serverConfig({ scopes: ['extra'], oauth_resource: 'http://127.0.0.1:1/custom' }), { timeoutMs: 5_000 });
    expect(await fromCall.done).toEqual({ success: false, error: "cancelled: a newer OAuth login for MCP server 'remote' started" });
    const url = new URL(fromConfig.authorizationUrl);
    expect(url.searchParams.get('scope')).toBe('extra');
    expect(url.searchParams.get('resource')).toBe('http://127.0.0.1:1/custom');
    fromConfig.cancel('done');
  });

  it('uses a configured client_id instead of registering', async () => {
    const temp = await home();
    const before = (await as.events('register')).length;
    const login = await oauthOf(temp).login(serverConfig({ oauth: { client_id: 'fixed-client' } }), { timeoutMs: 5_000 });
    expect(new URL(login.authorizationUrl).searchParams.get('client_id')).toBe('fixed-client');
    expect((await as.events('register')).length).toBe(before);
    login.cancel('done');
  });

  it('refuses a callback with a wrong or missing state, stores nothing, and still completes with the real one', async () => {
    const temp = await home();
    const login = await oauthOf(temp).login(serverConfig(), { timeoutMs: 20_000 });
    for (const query of ['?code=abc&state=wrong', '?code=abc']) {
      const refused = await fetch(`${login.redirectUrl}${query}`);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('state parameter does not match');
    }
    await expect(stat(join(temp.home, MCP_OAUTH_FILE))).rejects.toThrow(/ENOENT/);
    expect((await visit(login.authorizationUrl)).status).toBe(200);
    expect(await login.done).toEqual({ success: true });
  });

  it('a second login of the same server cancels the first; its listener closes', async () => {
    const temp = await home();
    const oauth = oauthOf(temp);
    const first = await oauth.login(serverConfig(), { timeoutMs: 20_000 });
    const second = await oauth.login(serverConfig(), { timeoutMs: 20_000 });
    expect(await first.done).toEqual({ success: false, error: "cancelled: a newer OAuth login for MCP server 'remote' started" });
    await expect(fetch(`${first.redirectUrl}?code=x&state=y`)).rejects.toThrow();
    expect((await visit(second.authorizationUrl)).status).toBe(200);
    expect(await second.done).toEqual({ success: true });
  });

  it('an authorization server that is down: the login fails naming it', async () => {
    const temp = await home();
    const down = await startOAuthTestServer();
    onTestFinished(() => down.close());
    await down.admin('stop-as');
    const origin = new URL(down.issuer).origin;
    await expect(oauthOf(temp).login(serverConfig({}, down.mcpUrl), { timeoutMs: 5_000 })).rejects.toThrow(`the OAuth authorization server ${origin} is unreachable`);
  });

  it('listens on mcp_oauth_callback_port when set; a second login on that port replaces the first', async () => {
    const temp = await home();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const oauth = new McpOAuth({ home: temp.home, credentialsStore: 'file', callbackPort: port, callbackUrl: null });
    const first = await oauth.login(serverConfig(), { timeoutMs: 20_000 });
    expect(first.redirectUrl).toBe(`http://127.0.0.1:${port}/callback`);
    const second = await oauth.login(serverConfig(), { timeoutMs: 20_000 });
    expect(second.redirectUrl).toBe(`http://127.0.0.1:${port}/callback`);
    expect((await first.done).success).toBe(false);
    expect((await visit(second.authorizationUrl)).status).toBe(200);
    expect(await second.done).toEqual({ success: true });
  });

  it('times out with the reference text', async () => {
    const temp = await home();
    const login = await oauthOf(temp).login(serverConfig(), { timeoutMs: 300 });
    expect(await login.done).toEqual({ success: false, error: 'timed out waiting for OAuth callback' });
  });

  it('refuses a stdio server', async () => {
    const temp = await home();
    const stdio = parseMcpServer('local', { command: 'true' }).server;
    await expect(oauthOf(temp).login(stdio, {})).rejects.toThrow('OAuth login is only supported for streamable HTTP servers.');
    expect(await oauthOf(temp).authStatus(stdio, 100)).toBe('unsupported');
  });
});

describe('token store', () => {
  it('a token file with group/world permissions or bad JSON: a warning and notLoggedIn, never a crash', async () => {
    const temp = await home();
    const config = serverConfig();
    await loggedIn(oauthOf(temp), config);
    const file = join(temp.home, MCP_OAUTH_FILE);
    await chmod(file, 0o644);
    const warnings: string[] = [];
    const oauth = oauthOf(temp, { warnings });
    expect(await oauth.authStatus(config, 2000)).toBe('notLoggedIn');
    expect(warnings).toEqual([expect.stringContaining(`${file} has permissions 0644`)]);
    const manager = await managerWith(oauth, config, temp.cwd);
    expect(manager.statuses()[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('deputy mcp login remote') });

    await writeFile(file, '{ not json', { mode: 0o600 });
    await chmod(file, 0o600);
    const warnings2: string[] = [];
    expect(await oauthOf(temp, { warnings: warnings2 }).authStatus(config, 2000)).toBe('notLoggedIn');
    expect(warnings2).toEqual([`${file} is not valid JSON; it is ignored and its MCP servers show as not logged in`]);
  });

  it('keyring: with no keyring service running, falls back to the file with one warning', async () => {
    const temp = await home();
    const warnings: string[] = [];
    const oauth = oauthOf(temp, { store: 'keyring', warnings });
    const config = serverConfig();
    await loggedIn(oauth, config);
    // This test machine runs no Secret Service: the tokens must be in the file.
    expect(await oauth.store.backend()).toBe('file');
    expect(warnings).toEqual([expect.stringMatching(/^mcp_oauth_credentials_store = "keyring": the OS keyring is not available \(.+\); MCP OAuth credentials are kept in .+mcp-oauth-credentials\.json instead$/)]);
    expect((await stat(join(temp.home, MCP_OAUTH_FILE))).mode & 0o777).toBe(0o600);
    expect(await oauthOf(temp, { store: 'auto', warnings: [] }).authStatus(config, 2000)).toBe('oAuth');
  });
});

describe('logout', () => {
  it('revokes the tokens at the RFC 7009 endpoint and deletes them', async () => {
    const temp = await home();
    const oauth = oauthOf(temp);
    const config = serverConfig();
    await loggedIn(oauth, config);
    const revoked = (await as.events('revoke')).length;
    expect(await oauth.logout(config)).toEqual({ removed: true, revoked: true, revocationNote: null });
    expect((await as.events('revoke')).map((e) => e.hint).slice(revoked)).toEqual(['refresh_token', 'access_token']);
    expect(await oauth.authStatus(config, 2000)).toBe('notLoggedIn');
    expect(await oauth.logout(config)).toEqual({ removed: false, revoked: false, revocationNote: null });
  });
});

describe('connecting with the stored token', () => {
  it('two threads hitting a 401 at once share one refresh (rotating refresh tokens stay valid)', async () => {
    const temp = await home();
    const oauth = oauthOf(temp);
    const config = serverConfig();
    await loggedIn(oauth, config);
    const [a, b] = [await managerWith(oauth, config, temp.cwd), await managerWith(oauth, config, temp.cwd)];
    await as.admin('expire');
    const refreshes = (await as.events('token')).filter((e) => e.grant === 'refresh_token').length;
    const results = await Promise.all([a, b].map((m, i) => m.callTool('remote', 'echo', { text: `t${i}` }, {}, { signal: AbortSignal.timeout(10_000) })));
    expect(results.map((r) => r.content)).toEqual([[{ type: 'text', text: 'echo: t0' }], [{ type: 'text', text: 'echo: t1' }]]);
    expect((await as.events('token')).filter((e) => e.grant === 'refresh_token').length).toBe(refreshes + 1);
    expect(await oauth.authStatus(config, 2000)).toBe('oAuth');
  });

  it('lists the protected tools, refreshes on a 401 and before expiry, and drops the tokens when refresh fails', async () => {
    const temp = await home();
    const oauth = oauthOf(temp);
    const config = serverConfig();

    // Not logged in: the start fails at once with a message naming the command to run.
    const before = await managerWith(oauth, config, temp.cwd);
    expect(before.statuses()[0]).toMatchObject({ status: 'failed', error: expect.stringContaining("MCP server 'remote' requires OAuth login; run `deputy mcp login remote`") });

    await loggedIn(oauth, config);
    const manager = await managerWith(oauth, config, temp.cwd);
    expect(manager.statuses()[0]?.status).toBe('ready');
    expect(manager.statuses()[0]?.tools.map((t) => t.name)).toEqual(['echo', 'whoami']);

    // The server expires every access token: the call gets a 401, refreshes once, and succeeds.
    await as.admin('expire');
    const refreshes = (await as.events('token')).filter((e) => e.grant === 'refresh_token').length;
    const result = await manager.callTool('remote', 'echo', { text: 'hi' }, {}, { signal: AbortSignal.timeout(10_000) });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect((await as.events('token')).filter((e) => e.grant === 'refresh_token').length).toBe(refreshes + 1);

    // The stored token is about to expire: it is refreshed before the request is sent (no 401).
    const file = join(temp.home, MCP_OAUTH_FILE);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { entries: Record<string, { expiresAtMs: number }> };
    for (const entry of Object.values(stored.entries)) entry.expiresAtMs = Date.now() + 1000;
    await writeFile(file, JSON.stringify(stored), { mode: 0o600 });
    const unauthorized = (await as.events('mcp')).filter((e) => e.status === 401).length;
    const again = await manager.callTool('remote', 'echo', { text: 'again' }, {}, { signal: AbortSignal.timeout(10_000) });
    expect(again.content).toEqual([{ type: 'text', text: 'echo: again' }]);
    expect((await as.events('token')).filter((e) => e.grant === 'refresh_token').length).toBe(refreshes + 2);
    expect((await as.events('mcp')).filter((e) => e.status === 401).length).toBe(unauthorized);

    // The refresh grant now fails: the call fails promptly, the tokens are dropped, the status says so.
    await as.admin('break-refresh');
    await as.admin('expire');
    const started = Date.now();
    await expect(manager.callTool('remote', 'echo', { text: 'x' }, {}, { signal: AbortSignal.timeout(10_000) })).rejects.toThrow(/refreshing the OAuth token of MCP server 'remote' failed.*deputy mcp login remote/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await oauth.authStatus(config, 2000)).toBe('notLoggedIn');
  });
});
