/**
 * Turns configuration layers (the parsed `config.toml`, the selected profile, `-c` overrides,
 * per-thread overrides) into a `ResolvedConfig`: typed values with Codex's defaults, the chosen
 * model provider and model. Synchronous and free of file I/O except the `.git` lookup for
 * project trust; `load-config.ts` reads the files. Does not check API keys unless asked to
 * (`resolveProvider`), so a config without a key still loads.
 */
import path from 'node:path';
import type { ApprovalPolicy, ReasoningEffort, ReasoningSummary, SandboxMode, SandboxPolicy } from '@deputy/protocol';
import { sandboxPolicyFromMode } from '../thread/settings.js';
import { McpConfigError, parseMcpServers, type McpServerConfig } from '../mcp/config.js';
import { ConfigError } from './errors.js';
import { findProjectTrust, type ProjectTrust } from './projects.js';
import {
  builtInProviders,
  DEMO_PROVIDER_ID,
  mergeProviders,
  openaiKey,
  resolveProviderInfo,
  type KeySources,
  type ModelProviderInfo,
  type ResolvedProvider,
} from './providers.js';
import { checkConfigTable } from './schema.js';
import { deepMerge, isTable, nestedFromDotted, type TomlTable } from './toml-layers.js';

/** The model used with the `openai` provider (and custom providers) when none is configured. */
export const DEFAULT_OPENAI_MODEL = 'gpt-5.5';
/** The model name of the built-in offline scripted provider. */
export const DEMO_MODEL = 'demo-scripted';
/** Default cap on the AGENTS.md bytes put into the prompt (32 KiB, as in the reference). */
export const DEFAULT_PROJECT_DOC_MAX_BYTES = 32 * 1024;
/** Providers for which a model must be configured (their models are whatever the user pulled). */
const PROVIDERS_REQUIRING_MODEL = new Set(['ollama', 'lmstudio']);

/** One override layer and the name used for it in error messages (`-c model=x`, `thread override`). */
export interface OverrideLayer {
  label: string;
  table: TomlTable;
}

/** Everything a config is resolved from; kept on the result so per-thread overrides can re-resolve. */
export interface ConfigSources {
  home: string;
  configPath: string;
  /** The parsed `config.toml` (empty when the file does not exist). */
  fileTable: TomlTable;
  /** Overrides in increasing precedence, applied after the file and the profile. */
  overrideLayers: OverrideLayer[];
  /** `--profile`; when null the `profile` key decides. */
  profile: string | null;
  /** Absolute working directory (project trust, relative writable roots). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `OPENAI_API_KEY` from auth.json. */
  storedOpenaiKey: string | null;
}

/** Workspace-write sandbox settings (`[sandbox_workspace_write]`), roots made absolute. */
export interface SandboxWorkspaceWriteSettings {
  writableRoots: string[];
  networkAccess: boolean;
  excludeTmpdirEnvVar: boolean;
  excludeSlashTmp: boolean;
}

/** The configuration a runtime works with. */
export interface ResolvedConfig {
  home: string;
  configPath: string;
  cwd: string;
  /** The effective table (file, profile, overrides merged), unknown keys included. */
  raw: TomlTable;
  /** The active profile's name, if any. */
  profile: string | null;
  model: string;
  modelProviderId: string;
  /** The active provider; `apiKey` is null when missing (use `resolveProvider` to require it). */
  provider: ResolvedProvider;
  /** Every known provider (built-in and configured), by id. */
  modelProviders: Record<string, ModelProviderInfo>;
  reasoningEffort: ReasoningEffort | null;
  /** `null` when not configured (the request builder picks its default). */
  reasoningSummary: ReasoningSummary | null;
  modelContextWindow: number | null;
  approvalPolicy: ApprovalPolicy;
  /** Configured mode; else workspace-write for a directory with a trust decision, else read-only. */
  sandboxMode: SandboxMode;
  sandboxWorkspaceWrite: SandboxWorkspaceWriteSettings;
  /** `sandboxMode` expanded with `sandboxWorkspaceWrite`. */
  sandboxPolicy: SandboxPolicy;
  /** The recorded trust decision for `cwd` (or its git root). */
  projectTrust: ProjectTrust | null;
  /** `[shell_environment_policy]` as written (its schema belongs to the exec module); `{}` when absent. */
  shellEnvironmentPolicy: unknown;
  /** `[features] shell_snapshot`: commands source a per-thread snapshot of the login shell instead of starting one (default true). */
  shellSnapshot: boolean;
  compactPrompt: string | null;
  developerInstructions: string | null;
  /** `base_instructions`, else `instructions`. */
  baseInstructions: string | null;
  projectDocMaxBytes: number;
  autoCompactTokenLimit: number | null;
  /** `[mcp_servers.*]` as written; `{}` when absent. */
  mcpServers: Record<string, Record<string, unknown>>;
  /** `mcp_servers` validated (see `mcp/config.ts`). */
  mcpServerConfigs: McpServerConfig[];
  /** `mcp_startup_grace_ms`: how long a turn waits for MCP servers still starting. */
  mcpStartupGraceMs: number;
  /** `mcp_approval_timeout_sec` in ms (0: wait forever). */
  mcpApprovalTimeoutMs: number;
  /** `mcp_elicitation_timeout_sec` in ms (0: wait forever). */
  mcpElicitationTimeoutMs: number;
  /** `mcp_readable_long_names`: long MCP namespaces are shortened so tool names stay readable. */
  mcpReadableLongNames: boolean;
  /** `dynamic_tool_timeout_sec` in ms: how long a client tool call waits for its answer (0: forever). */
  dynamicToolTimeoutMs: number;
  /** `[mcp_server]`: settings of Deputy's own MCP server; `{}` when absent. */
  mcpServer: Record<string, unknown>;
  /** `mcp_oauth_credentials_store`, `mcp_oauth_callback_port`, `mcp_oauth_callback_url` (docs/mcp-client.md "OAuth"). */
  mcpOAuth: { credentialsStore: 'auto' | 'file' | 'keyring'; callbackPort: number | null; callbackUrl: string | null };
  /** No provider was configured and no OpenAI key was found, so the demo provider is used. */
  usingDemoFallback: boolean;
  /** Things the user should hear about (printed on stderr by the CLI). */
  warnings: string[];
  /** The inputs of this resolution (contains the environment; do not display). */
  sources: ConfigSources;
}

/** Resolves layers into a config. Throws `ConfigError` for invalid values or unknown names. */
export function resolveConfig(sources: ConfigSources): ResolvedConfig {
  checkConfigTable(sources.fileTable, sources.configPath);
  for (const layer of sources.overrideLayers) checkConfigTable(layer.table, layer.label);

  const withOverrides = applyLayers(sources.fileTable, sources.overrideLayers);
  const profile = sources.profile ?? (typeof withOverrides.profile === 'string' ? withOverrides.profile : null);
  const profileTable = profile === null ? {} : selectProfile(withOverrides, profile, sources);
  const raw = applyLayers(deepMerge(sources.fileTable, profileTable), sources.overrideLayers);
  const cfg = checkConfigTable(raw, sources.configPath);

  const warnings: string[] = [];
  const keys: KeySources = { env: sources.env, storedOpenaiKey: sources.storedOpenaiKey };
  const modelProviders = mergeProviders(builtInProviders(sources.env), cfg.model_providers ?? {});
  const { modelProviderId, usingDemoFallback } = chooseProvider(cfg.model_provider, modelProviders, keys, sources, warnings);
  const model = chooseModel(cfg.model, modelProviderId, usingDemoFallback, sources.configPath, warnings);
  const trust = findProjectTrust(cfg.projects ?? {}, sources.cwd);
  const approvalPolicy = cfg.approval_policy ?? (trust === 'untrusted' ? 'untrusted' : 'on-request');
  if (approvalPolicy === 'on-failure') warnings.push('approval_policy "on-failure" is deprecated; prefer "on-request" (or "never" for non-interactive runs)');
  const sandboxMode = cfg.sandbox_mode ?? (trust !== null ? 'workspace-write' : 'read-only');
  const sww = cfg.sandbox_workspace_write ?? {};
  const sandboxWorkspaceWrite: SandboxWorkspaceWriteSettings = {
    writableRoots: (sww.writable_roots ?? []).map((root) => path.resolve(sources.cwd, root)),
    networkAccess: sww.network_access ?? false,
    excludeTmpdirEnvVar: sww.exclude_tmpdir_env_var ?? false,
    excludeSlashTmp: sww.exclude_slash_tmp ?? false,
  };

  return {
    home: sources.home,
    configPath: sources.configPath,
    cwd: sources.cwd,
    raw,
    profile,
    model,
    modelProviderId,
    provider: resolveProviderInfo(modelProviders[modelProviderId] as ModelProviderInfo, keys, false),
    modelProviders,
    reasoningEffort: cfg.model_reasoning_effort ?? null,
    reasoningSummary: cfg.model_reasoning_summary ?? null,
    modelContextWindow: cfg.model_context_window ?? null,
    approvalPolicy,
    sandboxMode,
    sandboxWorkspaceWrite,
    sandboxPolicy: sandboxPolicyFromMode(sandboxMode, sandboxWorkspaceWrite),
    projectTrust: trust,
    shellEnvironmentPolicy: cfg.shell_environment_policy ?? {},
    shellSnapshot: cfg.features?.shell_snapshot ?? true,
    compactPrompt: cfg.compact_prompt ?? null,
    developerInstructions: cfg.developer_instructions ?? null,
    baseInstructions: cfg.base_instructions ?? cfg.instructions ?? null,
    projectDocMaxBytes: cfg.project_doc_max_bytes ?? DEFAULT_PROJECT_DOC_MAX_BYTES,
    autoCompactTokenLimit: cfg.model_auto_compact_token_limit ?? null,
    mcpServers: (cfg.mcp_servers ?? {}) as Record<string, Record<string, unknown>>,
    mcpServerConfigs: mcpServersOf(cfg.mcp_servers ?? {}, sources.configPath, warnings),
    mcpStartupGraceMs: cfg.mcp_startup_grace_ms ?? DEFAULT_MCP_STARTUP_GRACE_MS,
    mcpApprovalTimeoutMs: Math.round((cfg.mcp_approval_timeout_sec ?? 600) * 1000),
    mcpElicitationTimeoutMs: Math.round((cfg.mcp_elicitation_timeout_sec ?? 600) * 1000),
    mcpReadableLongNames: cfg.mcp_readable_long_names ?? false,
    dynamicToolTimeoutMs: Math.round((cfg.dynamic_tool_timeout_sec ?? 300) * 1000),
    mcpServer: cfg.mcp_server ?? {},
    mcpOAuth: { credentialsStore: cfg.mcp_oauth_credentials_store ?? 'file', callbackPort: cfg.mcp_oauth_callback_port ?? null, callbackUrl: cfg.mcp_oauth_callback_url ?? null },
    usingDemoFallback,
    warnings,
    sources,
  };
}

/** Default of `mcp_startup_grace_ms`. */
export const DEFAULT_MCP_STARTUP_GRACE_MS = 2000;

/** `mcp_servers` parsed; a load error becomes a `ConfigError` naming the file and the table. */
function mcpServersOf(table: Record<string, unknown>, configPath: string, warnings: string[]): McpServerConfig[] {
  try {
    const parsed = parseMcpServers(table);
    warnings.push(...parsed.warnings);
    return parsed.servers;
  } catch (error) {
    if (error instanceof McpConfigError) throw new ConfigError(`${configPath}: ${error.message}`);
    throw error;
  }
}

/** Per-thread overrides from a front door (`null`/absent = keep). */
export interface ConfigOverrides {
  model?: string | null;
  modelProvider?: string | null;
  approvalPolicy?: ApprovalPolicy | null;
  sandboxMode?: SandboxMode | null;
  /** Relative paths resolve against the config's cwd. */
  cwd?: string | null;
  profile?: string | null;
  reasoningEffort?: ReasoningEffort | null;
  reasoningSummary?: ReasoningSummary | null;
  baseInstructions?: string | null;
  developerInstructions?: string | null;
  /** Dotted or nested config keys, e.g. `{ "model_reasoning_effort": "high" }` (thread/start `config`). */
  config?: Record<string, unknown> | null;
}

/**
 * Re-resolves `config` with per-thread overrides on top of everything else (typed fields win
 * over the `config` object). Throws `ConfigError` for invalid values, naming the override.
 */
export function applyOverrides(config: ResolvedConfig, overrides: ConfigOverrides): ResolvedConfig {
  const layers = [...config.sources.overrideLayers];
  if (overrides.config) layers.push({ label: 'config override', table: nestedFromDotted(overrides.config, 'config override') });
  const typed: TomlTable = {};
  const put = (key: string, value: unknown): void => {
    if (value !== undefined && value !== null) typed[key] = value;
  };
  put('model', overrides.model);
  put('model_provider', overrides.modelProvider);
  put('approval_policy', overrides.approvalPolicy);
  put('sandbox_mode', overrides.sandboxMode);
  put('model_reasoning_effort', overrides.reasoningEffort);
  put('model_reasoning_summary', overrides.reasoningSummary);
  put('base_instructions', overrides.baseInstructions);
  put('developer_instructions', overrides.developerInstructions);
  if (Object.keys(typed).length > 0) layers.push({ label: 'thread override', table: typed });
  return resolveConfig({
    ...config.sources,
    overrideLayers: layers,
    profile: overrides.profile ?? config.sources.profile,
    cwd: overrides.cwd ? path.resolve(config.cwd, overrides.cwd) : config.cwd,
  });
}

/**
 * The provider `providerId` (default: the active one) with its API key checked: throws
 * `MissingApiKeyError` when it needs a key that is not set, `ConfigError` for an unknown id.
 */
export function resolveProvider(config: ResolvedConfig, providerId: string = config.modelProviderId): ResolvedProvider {
  const info = config.modelProviders[providerId];
  if (info === undefined) throw new ConfigError(`${config.configPath}: model_provider: unknown provider "${providerId}"`);
  return resolveProviderInfo(info, { env: config.sources.env, storedOpenaiKey: config.sources.storedOpenaiKey }, true);
}

function applyLayers(base: TomlTable, layers: readonly OverrideLayer[]): TomlTable {
  return layers.reduce((acc, layer) => deepMerge(acc, layer.table), base);
}

function selectProfile(table: TomlTable, name: string, sources: ConfigSources): TomlTable {
  const profiles = isTable(table.profiles) ? table.profiles : {};
  const selected = profiles[name];
  if (isTable(selected)) return selected;
  const known = Object.keys(profiles).sort();
  const list = known.length > 0 ? `known profiles: ${known.join(', ')}` : 'no profiles are defined';
  const where = sources.profile !== null ? `--profile ${name}` : `${sources.configPath}: profile`;
  throw new ConfigError(`${where}: no [profiles.${name}] table in ${sources.configPath} (${list})`, 'unknown-profile', name);
}

/**
 * The provider: `model_provider` when set (it must exist); else `openai` when an OpenAI key is
 * available; else the offline demo, with a warning the CLI shows.
 */
function chooseProvider(
  configured: string | undefined,
  providers: Record<string, ModelProviderInfo>,
  keys: KeySources,
  sources: ConfigSources,
  warnings: string[],
): { modelProviderId: string; usingDemoFallback: boolean } {
  if (configured !== undefined) {
    if (providers[configured] === undefined) {
      const known = Object.keys(providers).sort().join(', ');
      throw new ConfigError(`${sources.configPath}: model_provider: unknown provider "${configured}" (known: ${known}; define others under [model_providers.<id>])`);
    }
    return { modelProviderId: configured, usingDemoFallback: false };
  }
  if (openaiKey(keys) !== null) return { modelProviderId: 'openai', usingDemoFallback: false };
  warnings.push(
    `no OpenAI API key found (OPENAI_API_KEY or ${path.join(sources.home, 'auth.json')}) and no model_provider configured: using the built-in demo model, which replays a scripted session offline`,
  );
  return { modelProviderId: DEMO_PROVIDER_ID, usingDemoFallback: true };
}

function chooseModel(configured: string | undefined, providerId: string, demoFallback: boolean, configPath: string, warnings: string[]): string {
  if (demoFallback) {
    if (configured !== undefined) warnings.push(`model "${configured}" is ignored while the demo model is in use`);
    return DEMO_MODEL;
  }
  if (configured !== undefined) return configured;
  if (providerId === DEMO_PROVIDER_ID) return DEMO_MODEL;
  if (PROVIDERS_REQUIRING_MODEL.has(providerId)) {
    throw new ConfigError(`${configPath}: model: required when model_provider is "${providerId}" (set model in config.toml or a profile, or pass -c model=… / --model)`);
  }
  return DEFAULT_OPENAI_MODEL;
}
