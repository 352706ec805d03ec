/**
 * MCP servers the editor passes in `session/new` / `load` / `resume` (docs/acp.md, "MCP
 * servers"), joined to the `config.toml` servers for that thread only: stdio entries run with the
 * session cwd, HTTP entries connect with their headers, a same-named config server is replaced,
 * SSE entries are skipped with a warning. They start like optional config servers (a session
 * does not wait for them) and their tools follow the default `auto` approval mode.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { MCP_SERVER_DEFAULTS, type ResolvedConfig } from '@deputy/engine';

type McpServerConfig = ResolvedConfig['mcpServerConfigs'][number];

/** The defaults of a `config.toml` entry that sets nothing but its transport. */
const DEFAULTS: Omit<McpServerConfig, 'name' | 'transport'> = { ...MCP_SERVER_DEFAULTS, disabledTools: [], toolApprovalModes: {} };

/** A server name the engine accepts (letters, digits, `_`, `-`): other characters become `_`. */
export function serverName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return safe === '' ? 'server' : safe;
}

const pairs = (list: { name: string; value: string }[]): Record<string, string> => Object.fromEntries(list.map((p) => [p.name, p.value]));

/** The thread's server set: the config's, with the client's added (or replacing same-named ones). */
export function joinMcpServers(configured: readonly McpServerConfig[], given: readonly acp.McpServer[], cwd: string): { servers: McpServerConfig[]; skipped: string[] } {
  const fromClient: McpServerConfig[] = [];
  const skipped: string[] = [];
  for (const server of given) {
    const name = serverName(server.name);
    if ('type' in server && server.type === 'sse') {
      skipped.push(server.name);
      continue;
    }
    if ('type' in server && server.type === 'http') {
      fromClient.push({ ...DEFAULTS, name, transport: { type: 'http', url: server.url, bearerTokenEnvVar: null, httpHeaders: pairs(server.headers), envHttpHeaders: {} } });
      continue;
    }
    const stdio = server as acp.McpServerStdio;
    fromClient.push({ ...DEFAULTS, name, transport: { type: 'stdio', command: stdio.command, args: stdio.args, env: pairs(stdio.env), envVars: [], cwd } });
  }
  const names = new Set(fromClient.map((s) => s.name));
  return { servers: [...configured.filter((s) => !names.has(s.name)), ...fromClient], skipped };
}
