/**
 * `deputy mcp login|logout` end to end (docs/mcp-client.md "OAuth"): the built CLI against a real
 * OAuth-protected MCP server and authorization server on 127.0.0.1 (the engine's
 * fixtures/oauth-server.mjs), with the "browser" a GET that follows redirects. The login prints
 * the URL, waits for the callback and stores the tokens (mode 0600, never printed); a separate
 * `deputy exec` process then calls the protected tool with them; logout revokes and deletes.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { functionCall, makeTempHome, startScriptedModelServer, text, waitFor, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startOAuthTestServer, visit, type OAuthTestServer } from '../../../packages/engine/test/mcp/fixtures/oauth-fixture.js';
import { ensureCliBuilt, runCli, startCli } from './cli-process.js';

let as: OAuthTestServer;
let model: ScriptedModelServer;
beforeAll(async () => {
  await ensureCliBuilt();
  as = await startOAuthTestServer();
  model = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await as?.close();
  await model?.close();
});

async function homeWithRemote(): Promise<TempHome> {
  const temp = await makeTempHome('deputy-cli-oauth-');
  onTestFinished(() => temp.cleanup());
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'mcp_startup_grace_ms = 20000',
    '[model_providers.mock]',
    `base_url = "${model.url}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '[mcp_servers.remote]',
    `url = "${as.mcpUrl}"`,
    '[mcp_servers.local]',
    'command = "true"',
  ].join('\n');
  await writeFile(join(temp.home, 'config.toml'), toml);
  return temp;
}

describe('deputy mcp login / logout', () => {
  it('logs in (URL printed, callback awaited), exec uses the tokens in a new process, logout revokes and deletes them', async () => {
    const temp = await homeWithRemote();
    const login = startCli(['mcp', 'login', 'remote', '--scopes', 'mcp:tools'], { home: temp.home, cwd: temp.cwd });
    onTestFinished(() => login.kill());
    const url = await waitFor(() => /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(login.stdout())?.[1], 20_000, () => `the authorization URL; stdout: ${login.stdout()} stderr: ${login.stderr()}`);
    expect(new URL(url).searchParams.get('scope')).toBe('mcp:tools');
    expect((await visit(url)).status).toBe(200);
    expect((await login.exited(20_000)).code).toBe(0);
    expect(login.stdout()).toContain("Successfully logged in to MCP server 'remote'.");
    const file = join(temp.home, 'mcp-oauth-credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const token = (JSON.parse(await readFile(file, 'utf8')) as { entries: Record<string, { tokens: { access_token: string } }> }).entries[`remote|${as.mcpUrl}`]?.tokens.access_token ?? '';
    expect(token).not.toBe('');
    expect(login.stdout() + login.stderr()).not.toContain(token);
    expect(await readFile(join(temp.home, 'config.toml'), 'utf8')).not.toContain(token);

    const list = await runCli(['mcp', 'list', '--json'], { home: temp.home, cwd: temp.cwd });
    expect((JSON.parse(list.stdout) as Array<{ name: string; auth_status: string }>).map((s) => [s.name, s.auth_status])).toEqual([
      ['local', 'unsupported'],
      ['remote', 'o_auth'],
    ]);
    expect((await runCli(['mcp', 'list'], { home: temp.home, cwd: temp.cwd })).stdout).toMatch(/^remote\s+http:\S+\s+-\s+enabled\s+OAuth\s*$/m);

    // Another Deputy process: the model calls the protected tool with the stored token.
    model.enqueue({ output: [functionCall('mcp__remote__echo', { text: 'from exec' }, 'call_o1')] }, { output: [text('done')] });
    const exec = await runCli(['exec', '--json', 'call the tool'], { home: temp.home, cwd: temp.cwd }, 40_000);
    expect(exec.code).toBe(0);
    const item = exec.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; item?: Record<string, unknown> })
      .find((l) => l.type === 'item.completed' && l.item?.type === 'mcp_tool_call')?.item;
    expect(item).toMatchObject({ server: 'remote', tool: 'echo', status: 'completed', result: { content: [{ type: 'text', text: 'echo: from exec' }] } });
    expect(exec.stdout + exec.stderr).not.toContain(token);

    const revokes = (await as.events('revoke')).length;
    const logout = await runCli(['mcp', 'logout', 'remote'], { home: temp.home, cwd: temp.cwd });
    expect(logout).toEqual({ code: 0, stdout: "Removed OAuth credentials for MCP server 'remote'.\nThe tokens were revoked at the authorization server.\n", stderr: '' });
    expect((await as.events('revoke')).length).toBe(revokes + 2);
    expect(await runCli(['mcp', 'logout', 'remote'], { home: temp.home, cwd: temp.cwd })).toEqual({ code: 1, stdout: '', stderr: "Error: No OAuth credentials stored for MCP server 'remote'.\n" });
  }, 120_000);

  it('refuses unknown and stdio servers with the reference messages', async () => {
    const temp = await homeWithRemote();
    expect(await runCli(['mcp', 'login', 'nosuch'], { home: temp.home, cwd: temp.cwd })).toEqual({ code: 1, stdout: '', stderr: "Error: No MCP server named 'nosuch' found.\n" });
    expect(await runCli(['mcp', 'login', 'local'], { home: temp.home, cwd: temp.cwd })).toEqual({ code: 1, stdout: '', stderr: 'Error: OAuth login is only supported for streamable HTTP servers.\n' });
  }, 60_000);
});
