/**
 * MCP server start-up failures, each with its own message (docs/mcp-client.md "Lifecycle"): a
 * missing binary, a child that crashes before the handshake, a program whose stdout is not
 * JSON-RPC, an unreachable Streamable HTTP server, a start-up timeout, and a required server
 * failing thread start. Real children and sockets; every engine (and its children) is closed
 * after each test.
 */
import { describe, expect, it } from 'vitest';
import { closedPort, waitFor } from '../helpers/engine.js';
import { engineOpener, node, tiny } from './servers.js';

const open = engineOpener('mcp_startup_grace_ms = 200');
const tinyServer = (name: string, args = '', extra = '') => `[mcp_servers.${name}]\ncommand = ${node}\nargs = [${JSON.stringify(tiny)}${args}]\n${extra}\n`;

describe('MCP start-up failures', () => {
  it('gives each kind of failure its own message, and leaves the other servers alone', async () => {
    const port = await closedPort();
    const toml = [
      `[mcp_servers.nobin]\ncommand = "/nonexistent/deputy-mcp-server"\n`,
      tinyServer('crashes', ', "--fail-start"'),
      tinyServer('noisy', ', "--garbage"'),
      `[mcp_servers.web]\nurl = "http://127.0.0.1:${port}/mcp"\n`,
      `[mcp_servers.sleepy]\ncommand = "sleep"\nargs = ["30"]\nstartup_timeout_ms = 600\n`,
      tinyServer('good'),
    ].join('\n');
    const engine = await open(toml);
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await waitFor(() => thread.mcpServerStatuses().every((s) => s.status !== 'starting'), 10_000, 'every server to settle');
    const error = (name: string) => thread.mcpServerStatuses().find((s) => s.name === name);
    const prefix = (name: string) => `MCP client for \`${name}\` failed to start: MCP startup failed: `;

    expect(error('nobin')).toMatchObject({ status: 'failed', error: `${prefix('nobin')}No such file or directory (os error 2): /nonexistent/deputy-mcp-server` });
    expect(error('crashes')).toMatchObject({
      status: 'failed',
      error: `${prefix('crashes')}handshaking with MCP server failed: connection closed: initialize response; exit code 3; stderr: tiny: cannot start: missing database`,
    });
    expect(error('noisy')).toMatchObject({
      status: 'failed',
      error: `${prefix('noisy')}handshaking with MCP server failed: connection closed: initialize response; exit code 1; stdout is not JSON-RPC: Welcome to tiny 1.0! Type help for help.`,
    });
    expect(error('web')?.status).toBe('failed');
    expect(error('web')?.error).toMatch(new RegExp(`^${prefix('web')}handshaking with MCP server failed: error sending request for url \\(http://127\\.0\\.0\\.1:${port}/mcp\\): .*ECONNREFUSED`));
    expect(error('sleepy')).toMatchObject({
      status: 'failed',
      error: 'MCP client for `sleepy` timed out after 0.6 seconds. Add or adjust `startup_timeout_sec` in your config.toml:\n[mcp_servers.sleepy]\nstartup_timeout_sec = XX',
    });
    expect(error('good')).toMatchObject({ status: 'ready', error: null });
  }, 20_000);

  it('fails thread start for a required server that times out, naming it', async () => {
    const engine = await open(`[mcp_servers.sleepy]\ncommand = "sleep"\nargs = ["30"]\nstartup_timeout_ms = 500\nrequired = true\n`);
    await expect(engine.manager.start({ cwd: engine.temp.cwd })).rejects.toThrow(
      'Fatal error: Failed to initialize session: required MCP servers failed to initialize: sleepy: MCP client for `sleepy` timed out after 0.5 seconds.',
    );
    expect(engine.manager.loaded()).toHaveLength(0);
  }, 15_000);
});
