/**
 * The connection handshake: `initialize` params and result. Until a successful `initialize`
 * every other request is answered `Not initialized`; the client then sends the `initialized`
 * notification (optional in the reference). Capabilities are per connection.
 */
import { z } from 'zod';
import { AbsolutePathSchema } from './primitives.js';

/** Identifies the client; `name` becomes the originator (user agent, rollout `originator`). */
export const ClientInfoSchema = z.object({
  /** Client name, e.g. `codex-tui`. */
  name: z.string(),
  /** Human-readable title, if any. */
  title: z.string().nullish(),
  /** Client version. */
  version: z.string(),
});
export type ClientInfo = z.infer<typeof ClientInfoSchema>;

/** What the client opts into for this connection. */
export const InitializeCapabilitiesSchema = z.object({
  /** Enables experimental methods and fields on this connection (default false). */
  experimentalApi: z.boolean().optional(),
  /**
   * Exact notification method names this connection does not want; unknown names are ignored.
   * Filters notifications only, never responses or server requests.
   */
  optOutNotificationMethods: z.array(z.string()).nullish(),
  /** Keys only current (0.169+) clients send; their presence marks a current client. */
  requestAttestation: z.boolean().nullish(),
  requiredHumanApproval: z.boolean().nullish(),
  explicitGatewayOauth: z.boolean().nullish(),
  mcpServerOpenaiFormElicitation: z.boolean().nullish(),
  extensions: z.unknown().optional(),
});
export type InitializeCapabilities = z.infer<typeof InitializeCapabilitiesSchema>;

/** `initialize` params. */
export const InitializeParamsSchema = z.object({
  /** Who the client is. */
  clientInfo: ClientInfoSchema,
  /** Opt-ins; absent or null means none. */
  capabilities: InitializeCapabilitiesSchema.nullish(),
});
export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

/** `initialize` result. */
export const InitializeResultSchema = z.object({
  /**
   * `<originator>/<version> (<os> <os version>; <arch>) <$TERM> (<clientInfo.name>; <clientInfo.version>)`.
   */
  userAgent: z.string(),
  /** Absolute path of the server's home directory. */
  codexHome: AbsolutePathSchema,
  /** `unix` or `windows`. */
  platformFamily: z.string(),
  /** `linux`, `macos` or `windows`. */
  platformOs: z.string(),
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;
