/**
 * What the app-server keeps about MCP servers between requests (docs/app-server.md "MCP"): the
 * server set staged by `config/mcpServer/reload`, applied to each loaded thread at its next
 * `turn/start` (docs/mcp-client.md "Lifecycle"; threads started later already run it), and
 * the tools each server listed last, which `mcpServerStatus/list` reports for servers no loaded
 * thread runs (docs/app-server.md "MCP servers"). It starts nothing itself.
 */
import type { ResolvedConfig, Thread } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';

/** One validated `[mcp_servers.<name>]`. */
export type McpServerConfig = ResolvedConfig['mcpServerConfigs'][number];

/** See the module comment. */
export class McpState {
  #staged: McpServerConfig[] | null = null;
  #applied = new WeakSet<Thread>();
  readonly #tools = new Map<string, Record<string, AppServer.McpTool>>();

  /** Stages a reloaded server set for every loaded thread. */
  stageReload(servers: McpServerConfig[]): void {
    this.#staged = servers;
    this.#applied = new WeakSet();
  }

  /**
   * Applies the staged set to `thread` once (at its next turn): only changed servers restart,
   * removed ones stop, new ones start; their status events follow.
   */
  async applyReload(thread: Thread): Promise<void> {
    if (this.#staged === null || this.#applied.has(thread)) return;
    this.#applied.add(thread);
    await thread.reloadMcpServers(this.#staged);
  }

  /** Remembers the tools a ready server listed. */
  rememberTools(server: string, tools: Record<string, AppServer.McpTool>): void {
    this.#tools.set(server, tools);
  }

  /** The tools a server listed last (empty when it never was ready). */
  cachedTools(server: string): Record<string, AppServer.McpTool> {
    return this.#tools.get(server) ?? {};
  }
}

/** Whether `enabled_tools` / `disabled_tools` let a raw tool through. */
export function isToolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.enabledTools !== null && !config.enabledTools.includes(tool)) return false;
  return !config.disabledTools.includes(tool);
}
