/**
 * `mcpServer/event/stream/start|stop` (Codex 0.171, experimental) and
 * `mcpServer/event/stream/notification` (docs/app-server.md "MCP servers"): a client runs one
 * tool of a thread's MCP server as an event stream and receives, on its own connection only, the
 * notifications the server sends for that call, each tagged with the client's `subscriptionId`.
 */
import { z } from 'zod';

/** `mcpServer/event/stream/start` params. */
export const McpServerEventStreamStartParamsSchema = z.object({
  threadId: z.string(),
  server: z.string(),
  /** The tool that streams the events. */
  name: z.string(),
  /** Its arguments (a JSON object; required, may be `{}`). */
  arguments: z.custom<unknown>((value) => value !== undefined, { message: 'arguments is required' }),
  _meta: z.unknown().optional(),
  /** The client's id of this stream (unique among its open streams). */
  subscriptionId: z.string(),
});
export type McpServerEventStreamStartParams = z.infer<typeof McpServerEventStreamStartParamsSchema>;

/** `mcpServer/event/stream/stop` params. */
export const McpServerEventStreamStopParamsSchema = z.object({ subscriptionId: z.string() });

/** `mcpServer/event/stream/notification`: one MCP notification of the stream, as the server sent it. */
export const McpServerEventStreamNotificationSchema = z.object({
  subscriptionId: z.string(),
  notification: z.object({ method: z.string(), params: z.custom<unknown>((value) => value !== undefined) }),
});
