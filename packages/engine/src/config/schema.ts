/**
 * The `config.toml` keys Deputy understands (Codex's names and spellings), as zod schemas, and
 * the checker that turns schema issues into one-line messages naming the source, the key path
 * and what was expected. Unknown keys pass through untouched (they stay in the raw table and are
 * ignored). Tables owned by other modules (`shell_environment_policy`, `mcp_servers`,
 * `mcp_server`) are only checked to be tables here.
 */
import { z } from 'zod';
import { ApprovalPolicySchema, ReasoningEffortSchema, ReasoningSummarySchema, SandboxModeSchema } from '@deputy/protocol/core';
import { ConfigError } from './errors.js';
import { formatKeyPath, type TomlTable } from './toml-layers.js';

const StringMapSchema = z.record(z.string(), z.string());
const TableSchema = z.record(z.string(), z.unknown());

/** Which HTTP API a provider speaks. */
export const WireApiSchema = z.enum(['responses', 'chat']);
export type WireApi = z.infer<typeof WireApiSchema>;

/** `[model_providers.<id>]`: a model provider definition (Codex `ModelProviderInfo`). */
export const ModelProviderTomlSchema = z.object({
  /** Display name. */
  name: z.string().optional(),
  /** Base URL of the OpenAI-compatible API, e.g. `https://api.openai.com/v1`. */
  base_url: z.string().optional(),
  /** Environment variable that holds the API key; no key is sent when unset. */
  env_key: z.string().optional(),
  /** Help shown when `env_key` is not set. */
  env_key_instructions: z.string().optional(),
  /** `responses` (default) or `chat` (Chat Completions). */
  wire_api: WireApiSchema.optional(),
  /** Extra query parameters for every request (e.g. Azure's `api-version`). */
  query_params: StringMapSchema.optional(),
  /** Extra HTTP headers with fixed values. */
  http_headers: StringMapSchema.optional(),
  /** Extra HTTP headers whose values come from environment variables (header → variable). */
  env_http_headers: StringMapSchema.optional(),
  /** Retries of a failed request (default 4, at most 100). */
  request_max_retries: z.int().min(0).optional(),
  /** Reconnects of a dropped stream (default 5, at most 100). */
  stream_max_retries: z.int().min(0).optional(),
  /** Idle time after which a stream counts as dropped (default 300000). */
  stream_idle_timeout_ms: z.int().min(1).optional(),
  /** Use the OpenAI key (OPENAI_API_KEY or auth.json) for this provider. */
  requires_openai_auth: z.boolean().optional(),
});
export type ModelProviderToml = z.infer<typeof ModelProviderTomlSchema>;

/** `[sandbox_workspace_write]`: extra settings of the workspace-write sandbox. */
export const SandboxWorkspaceWriteTomlSchema = z.object({
  writable_roots: z.array(z.string()).optional(),
  network_access: z.boolean().optional(),
  exclude_tmpdir_env_var: z.boolean().optional(),
  exclude_slash_tmp: z.boolean().optional(),
});

/** Keys allowed both at the top level and inside `[profiles.<name>]`. */
const sharedShape = {
  model: z.string().optional(),
  model_provider: z.string().optional(),
  model_reasoning_effort: ReasoningEffortSchema.optional(),
  model_reasoning_summary: ReasoningSummarySchema.optional(),
  model_context_window: z.int().min(1).optional(),
  model_auto_compact_token_limit: z.int().min(1).optional(),
  approval_policy: ApprovalPolicySchema.optional(),
  sandbox_mode: SandboxModeSchema.optional(),
  sandbox_workspace_write: SandboxWorkspaceWriteTomlSchema.optional(),
  shell_environment_policy: TableSchema.optional(),
  compact_prompt: z.string().optional(),
  developer_instructions: z.string().optional(),
  instructions: z.string().optional(),
  base_instructions: z.string().optional(),
  project_doc_max_bytes: z.int().min(0).optional(),
  model_providers: z.record(z.string(), ModelProviderTomlSchema).optional(),
  mcp_servers: z.record(z.string(), TableSchema).optional(),
  mcp_server: TableSchema.optional(),
  /** How long a turn waits for MCP servers still starting (default 2000). */
  mcp_startup_grace_ms: z.int().min(0).optional(),
  /** How long an MCP tool-call approval waits for an answer, then cancels (default 600; 0 = forever). */
  mcp_approval_timeout_sec: z.number().min(0).optional(),
  /** How long a server's elicitation waits for an answer, then answers `cancel` (default 600; 0 = forever). */
  mcp_elicitation_timeout_sec: z.number().min(0).optional(),
  /** Namespaces over 40 chars become 26 chars + a hash, so long server names keep readable tool names (default false). */
  mcp_readable_long_names: z.boolean().optional(),
  /** How long a call of a client-provided tool waits for the client's answer (default 300; 0 = forever). */
  dynamic_tool_timeout_sec: z.number().min(0).optional(),
  /** `[features]`: switches named as in Codex; Deputy reads `shell_snapshot` (default true) and ignores the others. */
  features: z.object({ shell_snapshot: z.boolean().optional() }).loose().optional(),
};

/** `[profiles.<name>]`: a named set of keys that overlays the top level. */
export const ProfileTomlSchema = z.object(sharedShape);

/** `[projects."<abs path>"]`: the trust decision for a directory (written by front doors). */
export const ProjectTomlSchema = z.object({ trust_level: z.enum(['trusted', 'untrusted']).optional() });

/** The whole file (and every override layer) as far as Deputy reads it. */
export const ConfigTomlSchema = z.object({
  ...sharedShape,
  profile: z.string().optional(),
  profiles: z.record(z.string(), ProfileTomlSchema).optional(),
  projects: z.record(z.string(), ProjectTomlSchema).optional(),
  /** Where MCP OAuth tokens are kept (default `file`: `<home>/mcp-oauth-credentials.json`, mode 0600). */
  mcp_oauth_credentials_store: z.enum(['auto', 'file', 'keyring']).optional(),
  /** The loopback port of the MCP OAuth callback listener (default: a random free port). */
  mcp_oauth_callback_port: z.int().min(1).max(65535).optional(),
  /** The redirect URI sent instead of `http://127.0.0.1:<port>/callback` (its path is served). */
  mcp_oauth_callback_url: z.string().optional(),
});
export type ConfigToml = z.infer<typeof ConfigTomlSchema>;

/**
 * Checks a layer against the schema and returns its typed view. On failure throws a
 * `ConfigError` with one line per problem: `<source>: <key path>: expected …, got …`.
 */
export function checkConfigTable(table: TomlTable, source: string): ConfigToml {
  const parsed = ConfigTomlSchema.safeParse(table);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => `${source}: ${formatKeyPath(issue.path)}: ${describeIssue(issue, valueAt(table, issue.path))}`);
  throw new ConfigError(lines.join('\n'));
}

/** Describes one issue as "expected …, got …". */
function describeIssue(issue: z.core.$ZodIssue, received: unknown): string {
  const got = `got ${describeValue(received)}`;
  switch (issue.code) {
    case 'invalid_value':
      return `expected one of ${issue.values.map(String).join(', ')}, ${got}`;
    case 'invalid_type':
      return `expected ${describeType(issue.expected)}, ${got}`;
    case 'too_small':
      return `expected a value of at least ${String(issue.minimum)}, ${got}`;
    case 'too_big':
      return `expected a value of at most ${String(issue.maximum)}, ${got}`;
    default:
      return `${issue.message}, ${got}`;
  }
}

function describeType(expected: string): string {
  switch (expected) {
    case 'int':
    case 'number':
      return 'an integer';
    case 'object':
    case 'record':
      return 'a table';
    case 'array':
      return 'an array';
    case 'boolean':
      return 'a boolean (true or false)';
    case 'string':
      return 'a string';
    default:
      return expected;
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value instanceof Date) return `the date ${value.toISOString()}`;
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'a table';
  return JSON.stringify(value) ?? String(value);
}

function valueAt(table: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = table;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
