/**
 * The MCP client area of the wire (docs/mcp-client.md; docs/app-server.md "MCP servers"): `mcpServerStatus/list`, `mcpServer/tool/call`, `mcpServer/resource/read`,
 * `config/mcpServer/reload`; the notifications `mcpServer/startupStatus/updated` and
 * `item/mcpToolCall/progress`; and the server→client request `mcpServer/elicitation/request`,
 * which carries both a server's elicitation and (with `_meta.codex_approval_kind`) the approval of
 * a model-driven tool call. MCP values the reference passes through (tools, resources, content
 * blocks, `_meta`) stay `unknown` or loose objects: they are the server's, not ours.
 */
import { z } from 'zod';
import { Int64Schema, UInt32Schema } from './primitives.js';

/** How much of each server `mcpServerStatus/list` reports (`full` by default). */
export const McpServerStatusDetailSchema = z.enum(['full', 'toolsAndAuthOnly']);
export type McpServerStatusDetail = z.infer<typeof McpServerStatusDetailSchema>;

/** `mcpServerStatus/list` params. */
export const ListMcpServerStatusParamsSchema = z.object({
  /** The decimal index of the next entry, from a previous `nextCursor`. */
  cursor: z.string().nullish(),
  /** Page size; all entries when absent. */
  limit: UInt32Schema.nullish(),
  detail: McpServerStatusDetailSchema.nullish(),
});
export type ListMcpServerStatusParams = z.infer<typeof ListMcpServerStatusParamsSchema>;

/** A raw MCP tool as the server listed it (`name` and `inputSchema` required). */
export const McpToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
  icons: z.array(z.unknown()).nullish(),
  _meta: z.unknown().optional(),
});
export type McpTool = z.infer<typeof McpToolSchema>;

/** A resource a server can read. */
export const McpResourceSchema = z.looseObject({
  uri: z.string(),
  name: z.string(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  mimeType: z.string().nullish(),
  size: Int64Schema.nullish(),
});
export type McpResource = z.infer<typeof McpResourceSchema>;

/** A resource template of a server. */
export const McpResourceTemplateSchema = z.looseObject({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  mimeType: z.string().nullish(),
});
export type McpResourceTemplate = z.infer<typeof McpResourceTemplateSchema>;

/** How a server authenticates. */
export const McpAuthStatusSchema = z.enum(['unsupported', 'notLoggedIn', 'bearerToken', 'oAuth']);
export type McpAuthStatus = z.infer<typeof McpAuthStatusSchema>;

/** Start-up state of a thread's server, as `mcpServer/startupStatus/updated` reports it. */
export const McpServerStartupStateSchema = z.enum(['starting', 'ready', 'failed', 'cancelled']);
export type McpServerStartupState = z.infer<typeof McpServerStartupStateSchema>;

/** One configured server in `mcpServerStatus/list`. */
export const McpServerStatusSchema = z.object({
  name: z.string(),
  /** Raw tool name → tool (filters applied); empty unless the server is ready. */
  tools: z.record(z.string(), McpToolSchema),
  resources: z.array(McpResourceSchema),
  resourceTemplates: z.array(McpResourceTemplateSchema),
  authStatus: McpAuthStatusSchema,
  /** Deputy, additive: the live start-up state; absent for a server no loaded thread runs. */
  startupStatus: z.enum(['starting', 'ready', 'failed', 'cancelled', 'disabled']).optional(),
  /** Deputy, additive: the start-up or crash error. */
  error: z.string().nullable().optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;

/** `mcpServerStatus/list` result. */
export const ListMcpServerStatusResultSchema = z.object({
  data: z.array(McpServerStatusSchema),
  nextCursor: z.string().nullable(),
});
export type ListMcpServerStatusResult = z.infer<typeof ListMcpServerStatusResultSchema>;

/** `mcpServer/tool/call` params: a direct call on a thread's live connection, never gated. */
export const McpServerToolCallParamsSchema = z.object({
  threadId: z.string(),
  server: z.string(),
  /** The raw MCP tool name. */
  tool: z.string(),
  arguments: z.unknown().optional(),
  _meta: z.unknown().optional(),
});
export type McpServerToolCallParams = z.infer<typeof McpServerToolCallParamsSchema>;

/** `mcpServer/tool/call` result: the MCP `CallToolResult`, absent fields omitted. */
export const McpServerToolCallResultSchema = z.object({
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().nullish(),
  _meta: z.unknown().optional(),
});
export type McpServerToolCallResult = z.infer<typeof McpServerToolCallResultSchema>;

/** `mcpServer/resource/read` params; without `threadId` a temporary connection is used. */
export const McpResourceReadParamsSchema = z.object({
  threadId: z.string().nullish(),
  server: z.string(),
  uri: z.string(),
});
export type McpResourceReadParams = z.infer<typeof McpResourceReadParamsSchema>;

/** One content of a read resource: text or base64 blob. */
export const McpResourceContentSchema = z.union([
  z.looseObject({ uri: z.string(), mimeType: z.string().nullish(), text: z.string() }),
  z.looseObject({ uri: z.string(), mimeType: z.string().nullish(), blob: z.string() }),
]);
export type McpResourceContent = z.infer<typeof McpResourceContentSchema>;

/** `mcpServer/resource/read` result. */
export const McpResourceReadResultSchema = z.object({ contents: z.array(McpResourceContentSchema) });
export type McpResourceReadResult = z.infer<typeof McpResourceReadResultSchema>;

/** `mcpServer/startupStatus/updated`: a thread's server changed start-up state. */
export const McpServerStatusUpdatedNotificationSchema = z.object({
  name: z.string(),
  status: McpServerStartupStateSchema,
  error: z.string().nullable(),
  /** Deputy, additive: the thread whose server it is (the reference leaves it out). */
  threadId: z.string().optional(),
});
export type McpServerStatusUpdatedNotification = z.infer<typeof McpServerStatusUpdatedNotificationSchema>;

/** `item/mcpToolCall/progress`: progress a server reported for a running call. */
export const McpToolCallProgressNotificationSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  /** The server's message, else `<progress>/<total>` (or `<progress>`). */
  message: z.string(),
});
export type McpToolCallProgressNotification = z.infer<typeof McpToolCallProgressNotificationSchema>;

const elicitationBase = {
  threadId: z.string(),
  /** The turn it was observed in; null outside a turn (e.g. during `mcpServer/tool/call`). */
  turnId: z.string().nullable(),
  serverName: z.string(),
  /** The server's `_meta`, or the tool-call approval's (`codex_approval_kind: "mcp_tool_call"`). */
  _meta: z.unknown().optional(),
  message: z.string(),
};

/** `mcpServer/elicitation/request` params: a form (with its schema) or a URL to open. */
export const McpServerElicitationRequestParamsSchema = z.discriminatedUnion('mode', [
  z.object({
    ...elicitationBase,
    mode: z.literal('form'),
    /** The MCP elicitation subset: `{type:"object", properties, required?}`. */
    requestedSchema: z.record(z.string(), z.unknown()),
  }),
  z.object({ ...elicitationBase, mode: z.literal('url'), url: z.string(), elicitationId: z.string() }),
]);
export type McpServerElicitationRequestParams = z.infer<typeof McpServerElicitationRequestParamsSchema>;

/** The client's answer to `mcpServer/elicitation/request`. */
export const McpServerElicitationRequestResultSchema = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  /** The accepted form's values; absent or null for decline and cancel. */
  content: z.unknown().optional(),
  /** Client metadata; `{persist: "session" | "always"}` remembers a tool-call approval. */
  _meta: z.unknown().optional(),
});
export type McpServerElicitationRequestResult = z.infer<typeof McpServerElicitationRequestResultSchema>;

/** `mcpServer/oauth/login` params: start an OAuth login of a configured Streamable HTTP server. */
export const McpServerOauthLoginParamsSchema = z.object({
  name: z.string(),
  /** Scopes to ask for; else the config's `scopes`; else what the server advertises. */
  scopes: z.array(z.string()).nullish(),
  /** How long to wait for the browser's callback (default 300). */
  timeoutSecs: Int64Schema.nullish(),
});
export type McpServerOauthLoginParams = z.infer<typeof McpServerOauthLoginParamsSchema>;

/** `mcpServer/oauth/login` result, sent at once; the outcome follows as `mcpServer/oauthLogin/completed`. */
export const McpServerOauthLoginResultSchema = z.object({
  authorizationUrl: z.string(),
  /** Deputy (as Codex 0.171): identifies this login in the completion notification. */
  loginId: z.string().nullish(),
});
export type McpServerOauthLoginResult = z.infer<typeof McpServerOauthLoginResultSchema>;

/** `mcpServer/oauthLogin/completed`: how a login ended. */
export const McpServerOauthLoginCompletedNotificationSchema = z.object({
  name: z.string(),
  success: z.boolean(),
  error: z.string().nullish(),
  /** Deputy (as Codex 0.171): the `loginId` of the login/start answer. */
  loginId: z.string().nullish(),
});
export type McpServerOauthLoginCompletedNotification = z.infer<typeof McpServerOauthLoginCompletedNotificationSchema>;
