/**
 * `mcpServer/oauth/login` and `mcpServer/oauthLogin/completed` (docs/mcp-client.md "OAuth")
 * against a real OAuth-protected MCP server and authorization server on 127.0.0.1 (the engine's
 * fixtures/oauth-server.mjs, built from the MCP SDK's example auth provider), with the "browser"
 * a GET that follows redirects: the reference's errors, the URL at once and the completion
 * after, `authStatus` before and after, the server connecting on the loaded thread without a
 * restart, a protected tool called by the model, the tokens used again after a restart of the
 * server, and the fault rows (authorization server down, timeout, a second login). Every message
 * is checked against our schemas and the reference's JSON Schema.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { functionCall, text } from '@deputy/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthTestServer, visit, type OAuthTestServer } from '../../../packages/engine/test/mcp/fixtures/oauth-fixture.js';
import { startHarness, type Harness } from './support/harness.js';
import { startThread, startTurn, turnCompleted } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CREDENTIALS = 'mcp-oauth-credentials.json';

let as: OAuthTestServer;
beforeAll(async () => {
  as = await startOAuthTestServer();
}, 40_000);
afterAll(async () => {
  await as?.close();
});

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    expect(h.validator.problems).toEqual([]);
    await h.close();
  }
});

const remoteToml = (url: string): string => `[mcp_servers.remote]\nurl = "${url}"\nstartup_timeout_sec = 10\n\n[mcp_servers.local]\ncommand = "true"\nenabled = false\n`;

async function open(url = as.mcpUrl, homeFiles: Record<string, string> = {}): Promise<{ h: Harness; client: WireClient }> {
  const h = await startHarness({ topToml: 'mcp_startup_grace_ms = 20000', extraToml: remoteToml(url), homeFiles });
  harnesses.push(h);
  // Files the harness writes get the default mode; the credentials file must be private.
  if (CREDENTIALS in homeFiles) await chmod(join(h.temp.home, CREDENTIALS), 0o600);
  return { h, client: await h.connect() };
}

async function authStatus(client: WireClient, name: string): Promise<unknown> {
  const list = await client.call<{ data: Array<{ name: string; authStatus: string; tools: Record<string, unknown> }> }>('mcpServerStatus/list', {});
  return list.data.find((row) => row.name === name)?.authStatus;
}

function completed(client: WireClient): Promise<{ params: Record<string, unknown> }> {
  return client.waitForNotification('mcpServer/oauthLogin/completed', () => true, 20_000);
}

describe('mcpServer/oauth/login errors (reference wording)', () => {
  it('refuses stdio servers, unknown names and a missing name with -32600', async () => {
    const { client } = await open();
    expect((await client.request('mcpServer/oauth/login', { name: 'local' })).error).toEqual({ code: -32600, message: 'OAuth login is only supported for streamable HTTP servers.' });
    expect((await client.request('mcpServer/oauth/login', { name: 'nosuch' })).error).toEqual({ code: -32600, message: "No MCP server named 'nosuch' found." });
    expect((await client.request('mcpServer/oauth/login', {})).error).toMatchObject({ code: -32600, message: 'Invalid request: missing field `name`' });
  });
});

describe('login through the app-server', () => {
  it('answers the URL at once, completes after the browser returns, and the loaded thread connects; the model calls the protected tool; a restart keeps the login', async () => {
    const { h, client } = await open();
    const { id: threadId } = await startThread(client);
    await client.waitForNotification('mcpServer/startupStatus/updated', (p) => p.name === 'remote' && p.status === 'failed' && p.threadId === threadId, 20_000);
    expect(await authStatus(client, 'remote')).toBe('notLoggedIn');

    const result = await client.call<{ authorizationUrl: string; loginId: string }>('mcpServer/oauth/login', { name: 'remote', scopes: ['mcp:tools'] });
    const url = new URL(result.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(client.notifications('mcpServer/oauthLogin/completed')).toEqual([]);
    const ready = client.waitForNotification('mcpServer/startupStatus/updated', (p) => p.name === 'remote' && p.status === 'ready' && p.threadId === threadId, 20_000);
    expect((await visit(result.authorizationUrl)).status).toBe(200);
    expect((await completed(client)).params).toEqual({ name: 'remote', success: true, loginId: result.loginId });
    await ready;
    expect(await authStatus(client, 'remote')).toBe('oAuth');

    // The model calls the protected tool in a turn.
    const call = functionCall('mcp__remote__echo', { text: 'secret' });
    h.model.enqueue({ output: [call] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'call echo');
    await turnCompleted(client, turnId, 20_000);
    const item = client.notifications('item/completed').map((n) => n.params.item as Record<string, unknown>).find((i) => i.type === 'mcpToolCall');
    expect(item).toMatchObject({ server: 'remote', tool: 'echo', status: 'completed', result: { content: [{ type: 'text', text: 'echo: secret' }] } });
    // No token in any log line of the server's home or config.
    const token = (JSON.parse(await readFile(join(h.temp.home, CREDENTIALS), 'utf8')) as { entries: Record<string, { tokens: { access_token: string } }> }).entries[`remote|${as.mcpUrl}`]?.tokens.access_token;
    expect(token).toEqual(expect.any(String));
    expect(await readFile(join(h.temp.home, 'config.toml'), 'utf8')).not.toContain(token);

    // A new app-server on a home with these credentials connects at once.
    const saved = await readFile(join(h.temp.home, CREDENTIALS), 'utf8');
    const again = await open(as.mcpUrl, { [CREDENTIALS]: saved });
    const { id: thread2 } = await startThread(again.client);
    await again.client.waitForNotification('mcpServer/startupStatus/updated', (p) => p.name === 'remote' && p.status === 'ready' && p.threadId === thread2, 20_000);
    expect(await authStatus(again.client, 'remote')).toBe('oAuth');
  });

  it('times out with success:false and the reference text', async () => {
    const { client } = await open();
    await client.call('mcpServer/oauth/login', { name: 'remote', timeoutSecs: 1 });
    expect((await completed(client)).params).toMatchObject({ name: 'remote', success: false, error: 'timed out waiting for OAuth callback' });
  });

  it('a second login for the same server cancels the first', async () => {
    const { client } = await open();
    const first = await client.call<{ authorizationUrl: string; loginId: string }>('mcpServer/oauth/login', { name: 'remote' });
    const second = await client.call<{ authorizationUrl: string; loginId: string }>('mcpServer/oauth/login', { name: 'remote' });
    expect((await completed(client)).params).toEqual({ name: 'remote', success: false, error: "cancelled: a newer OAuth login for MCP server 'remote' started", loginId: first.loginId });
    expect((await visit(second.authorizationUrl)).status).toBe(200);
    await client.waitForNotification('mcpServer/oauthLogin/completed', (p) => p.success === true, 20_000);
    expect(client.notifications('mcpServer/oauthLogin/completed').map((n) => n.params.loginId)).toEqual([first.loginId, second.loginId]);
  });

  it('an authorization server that is down: -32603 and success:false naming it', async () => {
    const down = await startOAuthTestServer();
    try {
      await down.admin('stop-as');
      const { client } = await open(down.mcpUrl);
      const origin = new URL(down.issuer).origin;
      const response = await client.request('mcpServer/oauth/login', { name: 'remote' });
      expect(response.error).toMatchObject({ code: -32603, message: expect.stringContaining(`the OAuth authorization server ${origin} is unreachable`) });
      const done = await completed(client);
      expect(done.params).toMatchObject({ name: 'remote', success: false, error: expect.stringContaining(origin) });
    } finally {
      await down.close();
    }
  });

  it('a bad credentials file: notLoggedIn, and the server keeps serving', async () => {
    const { client } = await open(as.mcpUrl, { [CREDENTIALS]: '{ not json' });
    expect(await authStatus(client, 'remote')).toBe('notLoggedIn');
    await writeFile(join(harnesses[0]!.temp.home, CREDENTIALS), '{}', { mode: 0o644 });
    expect(await authStatus(client, 'remote')).toBe('notLoggedIn');
    expect((await client.call<{ data: unknown[] }>('mcpServerStatus/list', {})).data).toHaveLength(2);
  });
});
