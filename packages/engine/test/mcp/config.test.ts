/** `[mcp_servers.<name>]` validation: the reference's wordings, defaults, unknown-key warnings. */
import { describe, expect, it } from 'vitest';
import { checkServerName, parseMcpServer, parseMcpServers } from '../../src/mcp/config.js';

const err = (table: Record<string, unknown>) => () => parseMcpServer('s', table);

describe('mcp_servers config', () => {
  it('applies the defaults of a stdio server', () => {
    const { server, warnings } = parseMcpServer('s', { command: 'node', args: ['x.js'] });
    expect(warnings).toEqual([]);
    expect(server).toMatchObject({
      transport: { type: 'stdio', command: 'node', args: ['x.js'], env: {}, envVars: [], cwd: null },
      enabled: true,
      required: false,
      startupTimeoutMs: 30_000,
      toolTimeoutMs: 120_000,
      enabledTools: null,
      disabledTools: [],
      supportsParallelToolCalls: false,
      defaultToolsApprovalMode: 'auto',
    });
  });

  it('reads http keys, float seconds, startup_timeout_ms and tool approval modes', () => {
    const { server } = parseMcpServer('h', {
      url: 'http://127.0.0.1:1/mcp',
      bearer_token_env_var: 'TOKEN',
      startup_timeout_ms: 1500,
      tool_timeout_sec: 2.5,
      tools: { echo: { approval_mode: 'approve' } },
    });
    expect(server.transport).toMatchObject({ type: 'http', bearerTokenEnvVar: 'TOKEN' });
    expect(server.startupTimeoutMs).toBe(1500);
    expect(server.toolTimeoutMs).toBe(2500);
    expect(server.toolApprovalModes).toEqual({ echo: 'approve' });
    expect(parseMcpServer('e', { command: 'x', env_vars: ['A', { name: 'B', source: 'local' }] }).server.transport).toMatchObject({ envVars: ['A', 'B'] });
  });

  it.each([
    [{ command: 'x', url: 'http://h' }, 'url is not supported for stdio'],
    [{ command: 'x', http_headers: {} }, 'http_headers is not supported for stdio'],
    [{ command: 'x', bearer_token_env_var: 'T' }, 'bearer_token_env_var is not supported for stdio'],
    [{ url: 'http://h', args: [] }, 'args is not supported for streamable_http'],
    [{ url: 'http://h', cwd: '/' }, 'cwd is not supported for streamable_http'],
    [{ url: 'http://h', bearer_token: 'x' }, 'bearer_token is not supported'],
    [{}, 'invalid transport'],
    [{ command: 'x', tool_timeout_sec: -1 }, 'cannot convert float seconds to Duration: value is negative'],
    [{ command: 'x', default_tools_approval_mode: 'maybe' }, 'unknown variant maybe, expected one of auto, prompt, approve'],
    [{ command: 'x', env_vars: [{ name: 'A', source: 'moon' }] }, 'unsupported env_vars source moon; expected local or remote'],
  ])('rejects %j with the reference wording', (table, message) => {
    expect(err(table)).toThrow(message);
  });

  it('names the table in the error', () => {
    expect(err({})).toThrow('mcp_servers.s: invalid transport');
  });

  it('warns once per unknown key and keeps loading', () => {
    const parsed = parseMcpServers({ a: { command: 'x', colour: 'red', name: 'legacy' } });
    expect(parsed.servers).toHaveLength(1);
    expect(parsed.warnings).toEqual(['unknown key mcp_servers.a.colour is ignored']);
  });

  it('checks server names with the reference wording', () => {
    expect(checkServerName('ok_name-1')).toBeNull();
    expect(checkServerName('bad.name')).toBe("Invalid MCP server name 'bad.name': must match pattern ^[a-zA-Z0-9_-]+$");
  });
});
