/**
 * The official MCP client SDK, loaded the first time a configured MCP server is started, logged
 * into or asked about: its schemas (the whole MCP specification in zod) cost tens of
 * milliseconds to build, which a process with no MCP server (`deputy exec`, most threads) need
 * not pay at start. Type-only imports of the SDK stay static everywhere.
 */
type ClientSdk = typeof import('@modelcontextprotocol/client');

let loading: Promise<ClientSdk> | null = null;

/** The SDK's `@modelcontextprotocol/client` module (one import per process). */
export function mcpClientSdk(): Promise<ClientSdk> {
  loading ??= import('@modelcontextprotocol/client');
  return loading;
}
