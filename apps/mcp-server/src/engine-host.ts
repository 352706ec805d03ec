/**
 * EngineHost: the engine as the MCP server uses it, loaded on first need (the engine and the
 * openai SDK are imported lazily so start-up stays lean). It owns the resolved config, the
 * `[mcp_server]` settings, and one runtime with its ThreadManager per model provider a call asks
 * for (a `codex` call's `profile`/`config` may point at another provider); the runtime of the
 * offline demo provider runs the demo model itself. It does not know about MCP requests.
 */
// The callback API: `node:fs/promises` would load Node's promise file API (and readline with it)
// before `initialize` for this one call.
import { stat } from 'node:fs';
import path from 'node:path';
import type { ApprovalPort, ResolvedConfig, StartThreadOptions, Thread, ThreadManager } from '@deputy/engine';
import type { CodexArgs } from './tools/arguments.js';
import type { Logger } from './log.js';
import type { McpServerSettings } from './settings.js';

type Engine = typeof import('@deputy/engine');

/** How the server was started (command line and environment). */
export interface HostOptions {
  /** `-c key=value` overrides, in order. */
  overrides: string[];
  profile: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The server's working directory (relative `cwd` arguments resolve against it). */
  cwd: string;
  /** `http`: a `codex` call without `cwd` is refused unless `mcp_server.default_cwd` is set. */
  transport?: 'stdio' | 'http';
  approvals: ApprovalPort;
  log: Logger;
}

/** A thread about to be created, or the error text of a failed `codex` call. */
export type ThreadStart = { ok: true; thread: Thread; config: ResolvedConfig } | { ok: false; message: string };

interface ManagerSlot {
  fingerprint: string;
  manager: Promise<ThreadManager>;
}

/** The loaded engine with its configuration. */
export class EngineHost {
  readonly #managers: ManagerSlot[] = [];

  private constructor(
    readonly engine: Engine,
    readonly config: ResolvedConfig,
    readonly settings: McpServerSettings,
    private readonly options: HostOptions,
  ) {}

  /** Imports the engine and resolves the configuration. Throws ConfigError / SettingsError. */
  static async open(options: HostOptions): Promise<EngineHost> {
    // The settings' zod schema loads with the engine, after `initialize` was answered.
    const [engine, { parseSettings }] = await Promise.all([import('@deputy/engine'), import('./settings.js')]);
    const config = await engine.loadConfig({
      home: engine.resolveHome(options.env),
      cwd: options.cwd,
      overrides: options.overrides,
      profile: options.profile,
      env: options.env,
    });
    for (const warning of config.warnings) options.log.warn(warning);
    const settings = parseSettings(config.mcpServer, config.configPath);
    return new EngineHost(engine, config, settings, options);
  }

  /** The manager of the server's own configuration. */
  defaultManager(): Promise<ThreadManager> {
    return this.#managerFor(this.config);
  }

  /**
   * Creates the thread of a `codex` call: per-call profile and config on top of the server's,
   * then the explicit arguments. Failures come back as the exact `isError` text.
   */
  async startThread(args: CodexArgs): Promise<ThreadStart> {
    const defaultCwd = this.settings.default_cwd;
    if (args.cwd === undefined && defaultCwd === undefined && this.options.transport === 'http') {
      return {
        ok: false,
        message:
          'Failed to start the session: over Streamable HTTP the `codex` tool needs a `cwd` argument (the absolute path of the workspace to work in); ' +
          "the server's own working directory is not used. Pass `cwd`, or set mcp_server.default_cwd in the Deputy server's config.toml.",
      };
    }
    const given = args.cwd ?? defaultCwd;
    const cwd = path.resolve(this.options.cwd, given ?? '.');
    if (given !== undefined && !(await isDirectory(cwd))) {
      const what = args.cwd === undefined ? 'mcp_server.default_cwd' : 'cwd';
      return { ok: false, message: `Failed to start the session: ${what} \`${cwd}\` does not exist or is not a directory` };
    }
    let config: ResolvedConfig;
    try {
      config = await this.#configForCall({ ...args, cwd: given }, cwd);
    } catch (error) {
      return { ok: false, message: `Failed to load Codex configuration from overrides: ${(error as Error).message}` };
    }
    const { sandboxPolicyFromMode } = this.engine;
    const options: StartThreadOptions = {
      cwd,
      model: args.model ?? config.model,
      reasoningEffort: config.reasoningEffort,
      reasoningSummary: config.reasoningSummary,
      approvalPolicy: args.approvalPolicy ?? config.approvalPolicy,
      sandboxPolicy: sandboxPolicyFromMode(args.sandbox ?? config.sandboxMode, config.sandboxWorkspaceWrite),
      baseInstructions: args.baseInstructions ?? config.baseInstructions,
      developerInstructions: args.developerInstructions ?? config.developerInstructions,
      compactPrompt: args.compactPrompt ?? config.compactPrompt,
      source: 'mcp',
    };
    try {
      const manager = await this.#managerFor(config);
      return { ok: true, thread: await manager.start(options), config };
    } catch (error) {
      return { ok: false, message: `Failed to start the session: ${(error as Error).message}` };
    }
  }

  /**
   * A loaded thread, or one resumed from its rollout, on the model provider it was created with
   * when the server's configuration defines that provider (a `codex` call's `profile` or `config`
   * may have chosen another than the server's). Throws the engine's ThreadNotFoundError.
   */
  async findThread(threadId: string): Promise<Thread> {
    const loaded = await this.loadedThread(threadId);
    if (loaded) return loaded;
    const manager = await this.defaultManager();
    const provider = manager.index.get(threadId)?.modelProvider;
    // The offline demo model is a fallback, not a choice: its threads go on with the server's provider.
    const sameOrUnknown = provider === undefined || provider === this.config.modelProviderId || provider === 'demo';
    if (sameOrUnknown || !Object.hasOwn(this.config.modelProviders, provider)) {
      return manager.resume(threadId);
    }
    let config: ResolvedConfig;
    try {
      config = await this.engine.loadConfig({
        home: this.config.home,
        cwd: this.options.cwd,
        overrides: [...this.options.overrides, `model_provider=${tomlValue(provider, 'model_provider')}`],
        profile: this.options.profile,
        env: this.options.env,
      });
    } catch (error) {
      this.options.log.warn(`thread ${threadId} was made with provider \`${provider}\`, which does not load (${(error as Error).message}); going on with \`${this.config.modelProviderId}\``);
      return manager.resume(threadId);
    }
    return (await this.#managerFor(config)).resume(threadId);
  }

  /** The thread if it is loaded in any manager. */
  async loadedThread(threadId: string): Promise<Thread | undefined> {
    for (const slot of this.#managers) {
      const loaded = (await slot.manager.catch(() => null))?.get(threadId);
      if (loaded) return loaded;
    }
    return undefined;
  }

  /** Closes every thread, the indexes and the runtimes (with the demo model, if one ran). */
  async close(): Promise<void> {
    const managers = await Promise.allSettled(this.#managers.map((slot) => slot.manager));
    await Promise.allSettled(managers.flatMap((m) => (m.status === 'fulfilled' ? [m.value.close().finally(() => m.value.runtime.close())] : [])));
  }

  async #configForCall(args: CodexArgs, cwd: string): Promise<ResolvedConfig> {
    if (args.profile === undefined && args.config === undefined && args.cwd === undefined) return this.config;
    if (args.profile !== undefined) {
      const profiles = this.config.raw.profiles;
      const known = typeof profiles === 'object' && profiles !== null && Object.hasOwn(profiles, args.profile);
      if (!known) throw new Error(`config profile \`${args.profile}\` not found`);
    }
    const { engine } = this;
    return engine.loadConfig({
      home: this.config.home,
      cwd,
      overrides: [...this.options.overrides, ...configOverrides(args.config ?? {})],
      profile: args.profile ?? this.options.profile,
      env: this.options.env,
    });
  }

  async #managerFor(config: ResolvedConfig): Promise<ThreadManager> {
    const fingerprint = JSON.stringify([config.modelProviderId, config.provider]);
    const existing = this.#managers.find((slot) => slot.fingerprint === fingerprint);
    if (existing) return existing.manager;
    const slot: ManagerSlot = { fingerprint, manager: this.#openManager(config) };
    this.#managers.push(slot);
    slot.manager.catch(() => this.#managers.splice(this.#managers.indexOf(slot), 1));
    return slot.manager;
  }

  async #openManager(config: ResolvedConfig): Promise<ThreadManager> {
    // The bearer token of the HTTP listener is hidden from sandboxed commands (the home is anyway).
    const tokenFile = this.settings.token_file;
    const sandboxHiddenPaths = tokenFile === undefined ? [] : [path.resolve(tokenFile)];
    const runtime = await this.engine.EngineRuntime.create({ config, approvals: this.options.approvals, source: 'mcp', sandboxHiddenPaths });
    return this.engine.ThreadManager.open(runtime);
  }
}

/** Turns the `config` argument (dotted keys → JSON values) into `-c key=value` overrides. */
export function configOverrides(config: Record<string, unknown>): string[] {
  return Object.entries(config).map(([key, value]) => `${key}=${tomlValue(value, key)}`);
}

/** A JSON value as a TOML value (inline tables and arrays included). */
export function tomlValue(value: unknown, key: string): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => tomlValue(v, key)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)} = ${tomlValue(v, `${key}.${k}`)}`)
      .join(', ')} }`;
  }
  throw new Error(`config.${key}: null is not a valid configuration value`);
}

function isDirectory(p: string): Promise<boolean> {
  return new Promise((resolve) => stat(p, (error, stats) => resolve(error === null && stats.isDirectory())));
}
