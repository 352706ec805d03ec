/**
 * `[mcp_servers.<name>]`: the schema of one configured MCP server (Codex's keys), its validation
 * with the reference's error wordings, and the server-name rule. Load errors reject the whole
 * config (`parseMcpServers` throws); unknown keys only produce warnings; a bad server name is a
 * failure of that one server at start-up (`checkServerName`). Pure: no I/O, no process spawning.
 * Exported for reuse by the CLI's `deputy mcp` subcommand.
 */
import { z } from 'zod';

/** Approval mode of a tool or server (`default_tools_approval_mode`, `tools.<t>.approval_mode`). */
export const McpApprovalModeSchema = z.enum(['auto', 'prompt', 'approve']);
export type McpApprovalMode = z.infer<typeof McpApprovalModeSchema>;

/** One `env_vars` entry: a variable name, or `{name, source}`. */
export const McpEnvVarSchema = z.union([z.string(), z.object({ name: z.string(), source: z.enum(['local', 'remote']).optional() })]);

/** Keys shared by both transports. */
const commonShape = {
  startup_timeout_sec: z.number().optional(),
  startup_timeout_ms: z.int().optional(),
  tool_timeout_sec: z.number().optional(),
  enabled: z.boolean().optional(),
  required: z.boolean().optional(),
  enabled_tools: z.array(z.string()).optional(),
  disabled_tools: z.array(z.string()).optional(),
  supports_parallel_tool_calls: z.boolean().optional(),
  default_tools_approval_mode: McpApprovalModeSchema.optional(),
  tools: z.record(z.string(), z.object({ approval_mode: McpApprovalModeSchema.optional() })).optional(),
  experimental_environment: z.enum(['local', 'remote']).optional(),
  /** Legacy display name: accepted and ignored. */
  name: z.string().optional(),
};

/** `[mcp_servers.<name>]` as written (both transports' keys). */
export const McpServerTomlSchema = z.object({
  ...commonShape,
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  env_vars: z.array(McpEnvVarSchema).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  bearer_token_env_var: z.string().optional(),
  http_headers: z.record(z.string(), z.string()).optional(),
  env_http_headers: z.record(z.string(), z.string()).optional(),
  scopes: z.array(z.string()).optional(),
  oauth_resource: z.string().optional(),
  oauth: z.object({ client_id: z.string().optional() }).optional(),
});
export type McpServerToml = z.infer<typeof McpServerTomlSchema>;

/** How a server is reached. */
export type McpTransportConfig =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; envVars: string[]; cwd: string | null }
  | { type: 'http'; url: string; bearerTokenEnvVar: string | null; httpHeaders: Record<string, string>; envHttpHeaders: Record<string, string> };

/** One server, validated and with defaults applied. */
export interface McpServerConfig {
  name: string;
  transport: McpTransportConfig;
  enabled: boolean;
  required: boolean;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  enabledTools: string[] | null;
  disabledTools: string[];
  supportsParallelToolCalls: boolean;
  defaultToolsApprovalMode: McpApprovalMode;
  /** Per raw tool name. */
  toolApprovalModes: Record<string, McpApprovalMode>;
  /** HTTP servers: `scopes`, `oauth_resource`, `oauth.client_id` (see mcp/oauth/). */
  oauth?: { scopes: string[] | null; resource: string | null; clientId: string | null };
}

/** A config error in `mcp_servers.<name>`, worded as the reference words it. */
export class McpConfigError extends Error {
  constructor(
    readonly server: string,
    readonly detail: string,
  ) {
    super(`mcp_servers.${server}: ${detail}`);
    this.name = 'McpConfigError';
  }
}

const KNOWN_KEYS = new Set([...Object.keys(McpServerTomlSchema.shape), 'bearer_token']);
const STDIO_ONLY = ['args', 'env', 'env_vars', 'cwd', 'bearer_token'] as const;
const HTTP_ONLY = ['http_headers', 'env_http_headers', 'bearer_token_env_var', 'oauth', 'oauth_resource'] as const;
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const DEFAULT_STARTUP_MS = 30_000;
const DEFAULT_TOOL_MS = 120_000;

/** What a server entry gets for every key it leaves out (a front door's own servers start from it too). */
export const MCP_SERVER_DEFAULTS = {
  enabled: true,
  required: false,
  startupTimeoutMs: DEFAULT_STARTUP_MS,
  toolTimeoutMs: DEFAULT_TOOL_MS,
  enabledTools: null,
  disabledTools: [],
  supportsParallelToolCalls: false,
  defaultToolsApprovalMode: 'auto',
  toolApprovalModes: {},
} as const satisfies Omit<McpServerConfig, 'name' | 'transport'>;

/** The result of parsing every server: configs by name, and warnings for unknown keys. */
export interface McpServersParse {
  servers: McpServerConfig[];
  warnings: string[];
}

/** Parses `mcp_servers` (the raw table). Throws `McpConfigError` for the load errors of docs/mcp-client.md "Configuration". */
export function parseMcpServers(table: Record<string, unknown>): McpServersParse {
  const servers: McpServerConfig[] = [];
  const warnings: string[] = [];
  for (const [name, raw] of Object.entries(table).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parsed = parseMcpServer(name, raw);
    servers.push(parsed.server);
    warnings.push(...parsed.warnings);
  }
  return { servers, warnings };
}

/** Parses one `[mcp_servers.<name>]` table. */
export function parseMcpServer(name: string, raw: unknown): { server: McpServerConfig; warnings: string[] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new McpConfigError(name, 'expected a table');
  const table = raw as Record<string, unknown>;
  checkTransportKeys(name, table);
  checkWordedValues(name, table);
  const parsed = McpServerTomlSchema.safeParse(table);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new McpConfigError(name, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid value'}`);
  }
  const t = parsed.data;
  const warnings = Object.keys(table)
    .filter((key) => !KNOWN_KEYS.has(key))
    .map((key) => `unknown key mcp_servers.${name}.${key} is ignored`);
  const transport: McpTransportConfig =
    t.command !== undefined
      ? { type: 'stdio', command: t.command, args: t.args ?? [], env: t.env ?? {}, envVars: (t.env_vars ?? []).map((v) => (typeof v === 'string' ? v : v.name)), cwd: t.cwd ?? null }
      : { type: 'http', url: t.url as string, bearerTokenEnvVar: t.bearer_token_env_var ?? null, httpHeaders: t.http_headers ?? {}, envHttpHeaders: t.env_http_headers ?? {} };
  const startupTimeoutMs = t.startup_timeout_sec !== undefined ? t.startup_timeout_sec * 1000 : (t.startup_timeout_ms ?? DEFAULT_STARTUP_MS);
  const toolApprovalModes: Record<string, McpApprovalMode> = {};
  for (const [tool, settings] of Object.entries(t.tools ?? {})) if (settings.approval_mode) toolApprovalModes[tool] = settings.approval_mode;
  return {
    server: {
      name,
      transport,
      enabled: t.enabled ?? MCP_SERVER_DEFAULTS.enabled,
      required: t.required ?? MCP_SERVER_DEFAULTS.required,
      startupTimeoutMs,
      toolTimeoutMs: t.tool_timeout_sec !== undefined ? t.tool_timeout_sec * 1000 : DEFAULT_TOOL_MS,
      enabledTools: t.enabled_tools ?? MCP_SERVER_DEFAULTS.enabledTools,
      disabledTools: t.disabled_tools ?? [],
      supportsParallelToolCalls: t.supports_parallel_tool_calls ?? MCP_SERVER_DEFAULTS.supportsParallelToolCalls,
      defaultToolsApprovalMode: t.default_tools_approval_mode ?? MCP_SERVER_DEFAULTS.defaultToolsApprovalMode,
      toolApprovalModes,
      ...(transport.type === 'http' ? { oauth: { scopes: t.scopes ?? null, resource: t.oauth_resource ?? null, clientId: t.oauth?.client_id ?? null } } : {}),
    },
    warnings,
  };
}

/** The server-name rule (docs/mcp-client.md "Configuration"); returns the REF error text, or null when the name is valid. */
export function checkServerName(name: string): string | null {
  return SERVER_NAME.test(name) ? null : `Invalid MCP server name '${name}': must match pattern ^[a-zA-Z0-9_-]+$`;
}

function checkTransportKeys(name: string, table: Record<string, unknown>): void {
  const hasCommand = table.command !== undefined;
  const hasUrl = table.url !== undefined;
  if ('bearer_token' in table && !hasCommand) throw new McpConfigError(name, 'bearer_token is not supported; use bearer_token_env_var');
  if (hasCommand) {
    if (hasUrl) throw new McpConfigError(name, 'url is not supported for stdio');
    for (const key of HTTP_ONLY) if (key in table) throw new McpConfigError(name, `${key} is not supported for stdio`);
    if ('bearer_token' in table) throw new McpConfigError(name, 'bearer_token is not supported for stdio');
  } else if (hasUrl) {
    for (const key of STDIO_ONLY) if (key in table) throw new McpConfigError(name, `${key} is not supported for streamable_http`);
  } else {
    throw new McpConfigError(name, 'invalid transport');
  }
}

function checkWordedValues(name: string, table: Record<string, unknown>): void {
  for (const key of ['startup_timeout_sec', 'startup_timeout_ms', 'tool_timeout_sec']) {
    const value = table[key];
    if (typeof value === 'number' && value < 0) throw new McpConfigError(name, `${key}: cannot convert float seconds to Duration: value is negative`);
  }
  const modes: unknown[] = [table.default_tools_approval_mode];
  const tools = table.tools;
  if (typeof tools === 'object' && tools !== null) {
    for (const t of Object.values(tools)) if (typeof t === 'object' && t !== null) modes.push((t as Record<string, unknown>).approval_mode);
  }
  for (const mode of modes) {
    if (mode !== undefined && !McpApprovalModeSchema.safeParse(mode).success) {
      throw new McpConfigError(name, `unknown variant ${String(mode)}, expected one of auto, prompt, approve`);
    }
  }
  if (Array.isArray(table.env_vars)) {
    for (const entry of table.env_vars) {
      if (typeof entry === 'object' && entry !== null) {
        const source = (entry as Record<string, unknown>).source;
        if (source !== undefined && source !== 'local' && source !== 'remote') {
          throw new McpConfigError(name, `unsupported env_vars source ${String(source)}; expected local or remote`);
        }
      }
    }
  }
}
