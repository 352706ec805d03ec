/**
 * The built-in resource tools offered when any MCP server is configured: `list_mcp_resources`,
 * `list_mcp_resource_templates` and `read_mcp_resource`. Their output is plain JSON text (no
 * `Wall time` prefix), as the reference sends it.
 */
import { z } from 'zod';
import { defineFunctionTool } from '../tools/define-tool.js';
import { ToolError, type ToolDefinition } from '../tools/types.js';
import type { McpManager } from './manager.js';

const ListArgs = z.object({
  server: z.string().optional().describe('Optional MCP server name. When omitted, lists resources from every configured server.'),
  cursor: z.string().optional().describe('Opaque cursor returned by a previous list call for the same server.'),
});
const ReadArgs = z.object({
  server: z.string().describe('MCP server name exactly as configured. Must match the `server` field returned by list_mcp_resources.'),
  uri: z.string().describe('Resource URI to read. Must be one of the URIs returned by list_mcp_resources.'),
});

/** The three resource tools over a thread's manager. */
export function resourceTools(manager: McpManager): ToolDefinition<unknown>[] {
  const servers = (server: string | undefined): string[] => {
    if (server === undefined) return manager.readyServers();
    if (!manager.readyServers().includes(server)) throw new ToolError(`unknown MCP server '${server}'`);
    return [server];
  };
  const list = defineFunctionTool({
    name: 'list_mcp_resources',
    description: 'Lists resources provided by MCP servers. Resources give access to files, database schemas or other context the servers expose.',
    parameters: ListArgs,
    async handle(args, ctx) {
      const resources: unknown[] = [];
      let nextCursor: string | undefined;
      for (const s of servers(args.server)) {
        const page = (await manager.request(s, 'resources/list', args.cursor ? { cursor: args.cursor } : {}, ctx.signal)) as { resources?: object[]; nextCursor?: string };
        resources.push(...(page.resources ?? []).map((r) => ({ server: s, ...r })));
        if (args.server !== undefined) nextCursor = page.nextCursor;
      }
      return { output: JSON.stringify({ resources, ...(nextCursor ? { nextCursor } : {}) }), success: true };
    },
  });
  const templates = defineFunctionTool({
    name: 'list_mcp_resource_templates',
    description: 'Lists resource templates provided by MCP servers (parameterised resource URIs).',
    parameters: ListArgs,
    async handle(args, ctx) {
      const resourceTemplates: unknown[] = [];
      for (const s of servers(args.server)) {
        const page = (await manager.request(s, 'resources/templates/list', args.cursor ? { cursor: args.cursor } : {}, ctx.signal)) as { resourceTemplates?: object[] };
        resourceTemplates.push(...(page.resourceTemplates ?? []).map((r) => ({ server: s, ...r })));
      }
      return { output: JSON.stringify({ ...(args.server !== undefined ? { server: args.server } : {}), resourceTemplates }), success: true };
    },
  });
  const read = defineFunctionTool({
    name: 'read_mcp_resource',
    description: 'Read a specific resource from an MCP server given the server name and resource URI.',
    parameters: ReadArgs,
    async handle(args, ctx) {
      servers(args.server);
      const result = (await manager.request(args.server, 'resources/read', { uri: args.uri }, ctx.signal)) as { contents?: unknown[] };
      return { output: JSON.stringify({ server: args.server, uri: args.uri, contents: result.contents ?? [] }), success: true };
    },
  });
  return [list, templates, read] as ToolDefinition<unknown>[];
}
