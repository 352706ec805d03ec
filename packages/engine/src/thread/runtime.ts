/**
 * EngineRuntime: the per-process context threads are built from: the current resolved config,
 * the model clients, the model catalogue, default thread settings, the home's remembered approval
 * rules, and a factory for each thread's tools. The config changes while it runs through
 * `applyConfig` (a config write, a reload) and `setStoredApiKey` (an API-key login or logout,
 * written to auth.json). New threads take the current config; a thread keeps the model client,
 * wire, catalogue facts and shell environment it was built with (Codex threads keep running on
 * the provider they started on), while every client follows a change of the stored key. Never
 * edits a config in place: each change makes a new `ResolvedConfig`. A provider without a base
 * URL that the engine runs itself (the offline `demo` model) is started with its first model
 * request, whichever config chose it, and stopped by `close()`.
 */
import { resolve } from 'node:path';
import type { DynamicTool, SandboxPolicy } from '@deputy/protocol';
import type { ApprovalPort } from '../approvals/approval-port.js';
import type { EditorFiles } from '../tools/editor-files.js';
import { PrefixRules } from '../approvals/rules.js';
import { SessionApprovals } from '../approvals/session-approvals.js';
import { removeAuthFile, usableStoredKey, writeStoredApiKey } from '../config/auth.js';
import type { ResolvedConfig } from '../config/load-config.js';
import { ConfigError, MissingApiKeyError } from '../config/errors.js';
import { resolveProviderInfo } from '../config/providers.js';
import { resolveProvider } from '../config/resolve-config.js';
import { buildChildEnv, ShellEnvironmentPolicySchema, withExecEnvDefaults, type ShellEnvironmentPolicy } from '../exec/env.js';
import { ExecSessionManager } from '../exec/exec-session.js';
import { defaultShell } from '../exec/shell.js';
import { cleanStaleShellSnapshots, ShellSnapshots } from '../exec/shell-snapshot.js';
import { warmSpawnHelper } from '../exec/spawn-helper.js';
import { describeModel } from '../model/catalog.js';
import { BUILT_IN_LOCAL_PROVIDERS, LocalProviderClient, LocalServers, type LocalProviders } from '../model/local-providers.js';
import { createModelClient, type ProviderConnection } from '../model/provider.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../model/types.js';
import { DynamicToolSource } from '../tools/client/dynamic-tools.js';
import { applyPatchTool } from '../tools/patch-tool.js';
import { ToolRegistry } from '../tools/registry.js';
import { execCommandTool } from '../tools/shell/exec-command.js';
import type { ShellServices } from '../tools/shell/services.js';
import { writeStdinTool } from '../tools/shell/write-stdin.js';
import { requestUserInputTool } from '../tools/request-user-input/request-user-input.js';
import { updatePlanTool } from '../tools/update-plan/update-plan.js';
import { viewImageTool } from '../tools/view-image/view-image.js';
import { discoverHooks } from '../hooks/discovery.js';
import { McpManager } from '../mcp/manager.js';
import { McpOAuth } from '../mcp/oauth/index.js';
import { discoverSkills } from '../skills/discovery.js';
import { DEFAULT_SKILLS_INSTRUCTIONS_MAX_CHARS } from '../skills/instructions.js';
import { McpToolSource } from '../mcp/mcp-tools.js';
import { persistToolApproval } from '../mcp/persist-approval.js';
import { DEFAULT_PROJECT_DOC_MAX_BYTES } from './context.js';
import { sandboxPolicyFromMode, type ThreadSettings } from './settings.js';
import type { ModelInfo, StartThreadOptions, ThreadDeps, ThreadExtensions } from './thread-types.js';

/** The version Deputy reports (rollouts, user agent, `deputy --version`). */
export const DEPUTY_VERSION = '0.1.0';

/** Options to build a runtime. */
export interface EngineRuntimeOptions {
  config: ResolvedConfig;
  approvals: ApprovalPort;
  /** Who creates threads: `exec`, `mcp`, `vscode`, … */
  source: string;
  /** Overrides the model client built from the config's provider (tests). */
  modelClient?: ModelClient;
  /**
   * The providers the runtime runs itself when the config gives them no base URL, by id; each
   * starts with its first model request and stops with `close()`. Defaults to the built-in
   * offline `demo` model.
   */
  localProviders?: LocalProviders;
  /**
   * More paths to hide from sandboxed commands besides the home (which is always hidden): the
   * front door's control sockets and token files kept elsewhere.
   */
  sandboxHiddenPaths?: readonly string[];
  /** The front door's editor files, which apply_patch writes through (`tools/editor-files.ts`). */
  editorFiles?: EditorFiles;
  /**
   * Start the thread's shell snapshot and the spawn helper as each turn starts, so its first
   * command finds them ready (default true). `deputy exec` turns this off: its one turn may run
   * no command at all, and the capture's login shell would compete with the turn for the CPU.
   * Without it, a command runs in a login shell while no snapshot is ready yet, and the first one
   * starts the capture for those that follow.
   */
  prewarmShells?: boolean;
}

/** What a thread is built with from the config; it keeps these when the config changes later. */
export type ThreadModel = Pick<ThreadDeps, 'modelClient' | 'wire' | 'describeModel' | 'projectDocMaxBytes' | 'autoCompactTokenLimit'>;

/** Everything threads share in one process. */
export class EngineRuntime {
  #config: ResolvedConfig;
  /** The client given at creation (tests): every thread uses it, whatever the config says. */
  readonly #fixedClient: ModelClient | null;
  /** The client of each provider setup threads were built on, by `providerKey`. */
  readonly #clients = new Map<string, ProviderClient>();
  /** The front door's editor files (EngineRuntimeOptions.editorFiles), or null. */
  editorFiles: EditorFiles | null = null;
  /** The client new threads get. */
  #current: ProviderClient | null = null;
  /** The servers of local providers (the demo model), started on first need. */
  readonly #local: LocalServers;
  #envPolicy: ShellEnvironmentPolicy;
  /** Paths no sandboxed command may see: the home (credentials, sessions, rules) and the front door's secrets. */
  readonly #hiddenPaths: string[] = [];
  #extraSkillRoots: readonly string[] = [];
  #authWrites: Promise<void> = Promise.resolve();
  #mcpOAuth: McpOAuth | null = null;
  /** EngineRuntimeOptions.prewarmShells. */
  #prewarmShells = true;

  private constructor(
    config: ResolvedConfig,
    public approvals: ApprovalPort,
    readonly source: string,
    readonly rules: PrefixRules,
    modelClient: ModelClient | undefined,
    localProviders: LocalProviders,
  ) {
    this.#fixedClient = modelClient ?? null;
    this.#local = new LocalServers(localProviders);
    this.#config = config;
    this.#envPolicy = envPolicyOf(this.#config);
    if (!this.#fixedClient) {
      // The configured provider must be usable at start (a missing key fails here, naming its
      // variable); only a later change may leave it without one until the next login or write.
      this.#current = this.#clientFor(this.#config);
      if (this.#current.failure) throw this.#current.failure;
    }
  }

  /** Builds a runtime (reads the home's remembered rules). */
  static async create(options: EngineRuntimeOptions): Promise<EngineRuntime> {
    const rules = await PrefixRules.load(options.config.home);
    const local = options.localProviders ?? BUILT_IN_LOCAL_PROVIDERS;
    const runtime = new EngineRuntime(options.config, options.approvals, options.source, rules, options.modelClient, local);
    runtime.editorFiles = options.editorFiles ?? null;
    runtime.#prewarmShells = options.prewarmShells ?? true;
    runtime.hideFromSandbox(options.config.home, ...(options.sandboxHiddenPaths ?? []));
    // Snapshots a process that died left behind; in the background, off the start-up path.
    void cleanStaleShellSnapshots(options.config.home).catch(() => undefined);
    return runtime;
  }

  /**
   * Hides more paths from every sandboxed command started from now on (a control socket bound
   * after the runtime was made, a token file). A path inside a `writable_roots` entry the user
   * configured stays visible.
   */
  hideFromSandbox(...paths: string[]): void {
    for (const p of paths) if (!this.#hiddenPaths.includes(p)) this.#hiddenPaths.push(p);
  }

  /** The paths hidden from sandboxed commands. */
  get sandboxHiddenPaths(): readonly string[] {
    return this.#hiddenPaths;
  }

  /** Replaces the extra skill roots (absolute directories) every skill discovery scans from now on, for the life of this runtime. */
  setExtraSkillRoots(roots: readonly string[]): void {
    this.#extraSkillRoots = [...roots];
  }

  /** The extra skill roots set last (none at first). */
  get extraSkillRoots(): readonly string[] {
    return this.#extraSkillRoots;
  }

  /**
   * The OAuth side of MCP servers (token store, logins, auth status), made on first need from
   * the config's `mcp_oauth_*` keys as they were then.
   */
  get mcpOAuth(): McpOAuth {
    const c = this.#config;
    this.#mcpOAuth ??= new McpOAuth({ home: c.home, credentialsStore: c.mcpOAuth?.credentialsStore ?? 'file', callbackPort: c.mcpOAuth?.callbackPort ?? null, callbackUrl: c.mcpOAuth?.callbackUrl ?? null });
    return this.#mcpOAuth;
  }

  /** The current config: what new threads, and every other reader, get. */
  get config(): ResolvedConfig {
    return this.#config;
  }
  get home(): string {
    return this.#config.home;
  }
  get providerId(): string {
    return this.#config.modelProviderId;
  }
  get version(): string {
    return DEPUTY_VERSION;
  }
  /** The client of the current provider (requests fail with the reason when it has none). */
  get modelClient(): ModelClient {
    return this.#fixedClient ?? (this.#current as ProviderClient);
  }
  get wire(): 'responses' | 'chat' {
    return this.#config.provider.wireApi;
  }
  get projectDocMaxBytes(): number {
    return this.#config.projectDocMaxBytes ?? DEFAULT_PROJECT_DOC_MAX_BYTES;
  }
  get autoCompactTokenLimit(): number | null {
    return this.#config.autoCompactTokenLimit;
  }

  /**
   * Makes `next` the current config (a config write or reload; it must be of this home): new
   * threads take its defaults, its provider (a client per provider setup, made on first need and
   * kept for the threads built on it), its catalogue facts and its shell environment policy;
   * loaded threads keep theirs. The stored key carries over. A provider that cannot be used (a
   * missing key, no base URL and not run locally) fails the
   * next request of a thread built on it, naming what is missing. Throws `ConfigError` (nothing
   * applied) for another home or a `shell_environment_policy` that does not parse.
   */
  applyConfig(next: ResolvedConfig): void {
    const envPolicy = this.checkConfig(next);
    const config = withStoredKey(next, this.#config.sources.storedOpenaiKey);
    this.#config = config;
    this.#envPolicy = envPolicy;
    if (!this.#fixedClient) this.#current = this.#clientFor(config);
  }

  /**
   * Throws a `ConfigError` naming the key when `next` cannot be applied (another home, a
   * `shell_environment_policy` that does not parse); returns the parsed environment policy.
   */
  checkConfig(next: ResolvedConfig): ShellEnvironmentPolicy {
    if (next.home !== this.home) throw new ConfigError(`cannot apply the config of ${next.home}: this runtime serves ${this.home}`);
    return envPolicyOf(next);
  }

  /**
   * Stores `key` as the OpenAI API key in `<home>/auth.json` (null deletes the file), then applies
   * it: the current config gets the new key, and the next model request of every thread, on any
   * provider client, uses it; a stream already running keeps its own. Keys from the environment
   * keep their precedence, as `loadConfig` decides it; the provider choice stays as it is. A
   * provider left without a needed key fails its next request with `MissingApiKeyError`. Calls
   * run one at a time, in call order. Never logs the key.
   */
  setStoredApiKey(key: string | null): Promise<void> {
    const run = this.#authWrites.then(async () => {
      if (key === null) await removeAuthFile(this.home);
      else await writeStoredApiKey(this.home, key);
      const stored = usableStoredKey(key);
      this.#config = withStoredKey(this.#config, stored);
      for (const client of this.#clients.values()) client.connect(withStoredKey(client.config, stored));
    });
    this.#authWrites = run.catch(() => undefined);
    return run;
  }

  /** The model side of a new thread, from the current config (see `ThreadModel`). */
  threadModel(): ThreadModel {
    const config = this.#config;
    return {
      modelClient: this.modelClient,
      wire: config.provider.wireApi,
      describeModel: (model) => describeWith(config, model),
      projectDocMaxBytes: config.projectDocMaxBytes ?? DEFAULT_PROJECT_DOC_MAX_BYTES,
      autoCompactTokenLimit: config.autoCompactTokenLimit,
    };
  }

  /**
   * A thread's skills and hooks: read from the current config at each turn, so a skill toggle or
   * a hook trust written meanwhile applies to the next turn of every thread.
   */
  threadExtensions(transcriptPath: string | null): ThreadExtensions {
    return {
      skills: (cwd) => discoverSkills({ home: this.home, cwd, skillsTable: this.#config.sources.fileTable.skills, extraRoots: this.#extraSkillRoots }),
      hooks: (cwd) => discoverHooks(this.#config, cwd),
      skillsMaxChars: DEFAULT_SKILLS_INSTRUCTIONS_MAX_CHARS,
      hiddenPaths: this.#hiddenPaths,
      transcriptPath,
    };
  }

  /**
   * Stops the servers of local providers started so far (the demo model). Call it after the
   * threads are closed; a later model request starts its server again.
   */
  close(): Promise<void> {
    return this.#local.close();
  }

  /** The client of `config`'s provider setup: the existing one, or a new one. */
  #clientFor(config: ResolvedConfig): ProviderClient {
    const key = providerKey(config);
    let client = this.#clients.get(key);
    if (!client) {
      client = new ProviderClient(config, (c) => connect(c, this.#local));
      this.#clients.set(key, client);
    }
    return client;
  }

  /** The settings a new thread gets: config defaults, then `options`. */
  defaultSettings(options: StartThreadOptions): ThreadSettings {
    const c = this.config;
    const sandboxPolicy: SandboxPolicy =
      options.sandboxPolicy ??
      sandboxPolicyFromMode(c.sandboxMode, {
        writableRoots: c.sandboxWorkspaceWrite.writableRoots,
        networkAccess: c.sandboxWorkspaceWrite.networkAccess,
        excludeTmpdirEnvVar: c.sandboxWorkspaceWrite.excludeTmpdirEnvVar,
        excludeSlashTmp: c.sandboxWorkspaceWrite.excludeSlashTmp,
      });
    return {
      cwd: resolve(options.cwd ?? process.cwd()),
      model: options.model ?? c.model,
      reasoningEffort: options.reasoningEffort !== undefined ? options.reasoningEffort : c.reasoningEffort,
      reasoningSummary: options.reasoningSummary !== undefined ? options.reasoningSummary : (c.reasoningSummary ?? null),
      approvalPolicy: options.approvalPolicy ?? c.approvalPolicy,
      sandboxPolicy,
      baseInstructions: options.baseInstructions !== undefined ? options.baseInstructions : c.baseInstructions,
      developerInstructions: options.developerInstructions !== undefined ? options.developerInstructions : c.developerInstructions,
      compactPrompt: options.compactPrompt !== undefined ? options.compactPrompt : c.compactPrompt,
    };
  }

  /**
   * Builds one thread's tools and the services behind them, including the thread's MCP servers
   * (a manager per thread, started by the caller; `close` shuts it down and kills its children).
   */
  createThreadServices(options: { cwd?: string; writableRoots?: readonly string[]; dynamicTools?: readonly DynamicTool[]; threadId?: string } = {}): {
    tools: ToolRegistry;
    services: ShellServices;
    mcp: McpManager;
    /** Starts taking the thread's shell snapshot for a turn in `cwd` (no-op when the feature is off). */
    prewarmShell(cwd: string, sandbox: SandboxPolicy): void;
    close(): Promise<void>;
  } {
    // The list is shared, so paths hidden later apply to threads that already exist.
    const sessions = new ExecSessionManager({ hiddenPaths: this.#hiddenPaths });
    const envPolicy = this.#envPolicy;
    const shellSnapshots =
      this.#config.shellSnapshot !== false && options.threadId !== undefined
        ? new ShellSnapshots({ home: this.#config.home, threadId: options.threadId, envPolicy, waitForCapture: this.#prewarmShells })
        : undefined;
    const services: ShellServices = {
      sessions,
      sessionApprovals: new SessionApprovals(),
      rules: this.rules,
      childEnv: () => withExecEnvDefaults(buildChildEnv(process.env, envPolicy)),
      sandboxHiddenPaths: this.#hiddenPaths,
      shellSnapshots,
      ...(this.editorFiles ? { editorFiles: this.editorFiles } : {}),
    };
    const tools = new ToolRegistry([
      execCommandTool(services),
      writeStdinTool(services),
      updatePlanTool,
      applyPatchTool(services),
      viewImageTool,
      requestUserInputTool,
    ] as never[]);
    const mcp = new McpManager({
      servers: this.#config.mcpServerConfigs ?? [],
      cwd: options.cwd ?? process.cwd(),
      writableRoots: options.writableRoots ?? [],
      version: DEPUTY_VERSION,
      startupGraceMs: this.#config.mcpStartupGraceMs ?? 2000,
      approvalTimeoutMs: this.#config.mcpApprovalTimeoutMs,
      persistApproval: async (server, tool) => {
        await persistToolApproval(this.#config.configPath, server, tool);
      },
      onLog: mcpDebugLog,
      oauth: this.mcpOAuth,
    });
    tools.addSource(new McpToolSource(mcp, { readableLongNames: this.#config.mcpReadableLongNames }));
    // A top-level client tool never shadows a built-in one (the model would see the name twice).
    const clientTools = (options.dynamicTools ?? []).filter((t) => t.namespace !== null || !tools.has(t.name));
    if (clientTools.length > 0) tools.addSource(new DynamicToolSource(clientTools));
    return {
      tools,
      services,
      mcp,
      prewarmShell: (cwd, sandbox) => {
        if (!this.#prewarmShells) return;
        warmSpawnHelper();
        const env = services.childEnv();
        shellSnapshots?.prewarm({ shell: defaultShell(), cwd, env, sandbox, hiddenPaths: this.#hiddenPaths });
      },
      close: async () => {
        sessions.killAll();
        await Promise.all([mcp.shutdown(), shellSnapshots?.close()]);
      },
    };
  }
}

/**
 * The connection for the configured provider. Checks the key (a missing one is an error naming
 * its variable) and the base URL.
 */
export function providerConnection(config: ResolvedConfig): ProviderConnection {
  const resolved = resolveProvider(config);
  const baseUrl = resolved.baseUrl;
  if (!baseUrl) throw new ConfigError(`${config.configPath}: model_providers.${resolved.id}.base_url: expected a URL, got nothing`);
  return { ...resolved, baseUrl };
}

/** `config` with `stored` as the stored OpenAI key (its provider's key resolved again). */
function withStoredKey(config: ResolvedConfig, stored: string | null): ResolvedConfig {
  if (config.sources.storedOpenaiKey === stored) return config;
  const sources = { ...config.sources, storedOpenaiKey: stored };
  const info = config.modelProviders[config.modelProviderId];
  const provider = info ? resolveProviderInfo(info, sources, false) : config.provider;
  return { ...config, sources, provider };
}

/**
 * Identifies a provider setup: its definition and resolved connection, except the key (clients
 * follow key changes); a change of whether it needs a key makes another setup.
 */
function providerKey(config: ResolvedConfig): string {
  return JSON.stringify([config.modelProviders[config.modelProviderId] ?? null, { ...config.provider, apiKey: null }]);
}

/** What the catalogue knows of `model` under `config` (its `model_context_window` wins). */
function describeWith(config: ResolvedConfig, model: string): ModelInfo {
  const info = describeModel(model, config.modelProviderId);
  return {
    contextWindow: config.modelContextWindow ?? info.contextWindow,
    supportsReasoning: info.supportsReasoning,
    supportsReasoningSummaries: info.supportsReasoningSummaries,
    supportsImageInput: info.supportsImageInput,
    known: info.known,
  };
}

/** The parsed `shell_environment_policy`; throws `ConfigError` naming the key when it does not parse. */
function envPolicyOf(config: ResolvedConfig): ShellEnvironmentPolicy {
  const parsed = ShellEnvironmentPolicySchema.safeParse(config.shellEnvironmentPolicy ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = ['shell_environment_policy', ...(issue?.path ?? []).map(String)].join('.');
  throw new ConfigError(`${config.configPath}: ${key}: ${issue?.message ?? 'invalid value'}`);
}

/**
 * The client of one provider setup, as threads hold it: forwards each request to the client for
 * the current key, or fails it with the reason the provider cannot be used (a missing key, no
 * base URL), so a config change never fails where the provider is not used.
 */
class ProviderClient implements ModelClient {
  #current: ModelClient | MissingApiKeyError | ConfigError;

  constructor(
    public config: ResolvedConfig,
    private readonly makeClient: (config: ResolvedConfig) => ModelClient | MissingApiKeyError | ConfigError,
  ) {
    this.#current = makeClient(config);
  }

  /** Why requests fail, or null when the provider is usable. */
  get failure(): MissingApiKeyError | ConfigError | null {
    return this.#current instanceof Error ? this.#current : null;
  }

  /** Sends later requests with `config`'s connection (same setup, another key). */
  connect(config: ResolvedConfig): void {
    this.config = config;
    this.#current = this.makeClient(config);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const current = this.#current;
    if (current instanceof Error) throw current;
    yield* current.stream(request, signal);
  }
}

/**
 * A client for `config`'s provider, or the error that says why there is none. A provider with no
 * base URL that `local` runs gets a client that starts its server with the first request.
 */
function connect(config: ResolvedConfig, local: LocalServers): ModelClient | MissingApiKeyError | ConfigError {
  try {
    const resolved = resolveProvider(config);
    if (resolved.baseUrl === null && local.serves(resolved.id)) return new LocalProviderClient(local, resolved);
    return createModelClient(providerConnection(config));
  } catch (e) {
    if (e instanceof MissingApiKeyError || e instanceof ConfigError) return e;
    throw e;
  }
}

/**
 * A server's logging notification, to the debug log: stderr (never stdout, which may carry a
 * protocol) when `DEPUTY_LOG=debug`.
 */
function mcpDebugLog(server: string, level: string, data: unknown): void {
  if (process.env.DEPUTY_LOG?.trim().toLowerCase() !== 'debug') return;
  process.stderr.write(`deputy mcp debug: server ${server} ${level}: ${JSON.stringify(data)}\n`);
}
