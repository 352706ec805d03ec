/**
 * "Always" for an MCP tool call: writes `approval_mode = "approve"` under
 * `[mcp_servers.<server>.tools.<raw tool>]` into the config file that defines the server,
 * keeping its formatting (`applyConfigEdits`), atomically (temp file + rename). A server defined
 * elsewhere (a `-c` override) is not written. Writes to one file are serialised.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { applyConfigEdits } from '../config/config-write.js';
import { isTable, parseConfigToml } from '../config/toml-layers.js';

const queues = new Map<string, Promise<unknown>>();

/** Persists the approval; true when the file was written (or already said so). */
export function persistToolApproval(configPath: string, server: string, tool: string): Promise<boolean> {
  const run = async (): Promise<boolean> => {
    if (tool.includes('"') || server.includes('"')) return false;
    const text = await fs.readFile(configPath, 'utf8').catch(() => null);
    if (text === null) return false;
    const servers = parseConfigToml(text, configPath).mcp_servers;
    if (!isTable(servers) || !isTable(servers[server])) return false;
    const next = applyConfigEdits(text, [{ keyPath: `mcp_servers."${server}".tools."${tool}".approval_mode`, value: 'approve', mergeStrategy: 'replace' }], configPath, 4);
    if (next === text) return true;
    const temp = `${configPath}.${randomBytes(6).toString('hex')}.tmp`;
    const mode = (await fs.stat(configPath)).mode & 0o777;
    await fs.writeFile(temp, next, { mode });
    await fs.rename(temp, configPath);
    return true;
  };
  const previous = queues.get(configPath) ?? Promise.resolve();
  const next = previous.then(run, run);
  queues.set(configPath, next.catch(() => undefined));
  return next;
}
