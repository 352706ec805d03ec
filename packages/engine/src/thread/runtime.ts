/**
 * EngineRuntime: the per-process context threads are built from, derived once from the resolved
 * config: the model client for the configured provider, the model catalogue, default thread
 * settings, the home's remembered approval rules, and a factory for each thread's tools. The one
 * thing that changes while it runs is the stored OpenAI key (`setStoredApiKey`, an API-key login
 * or a logout): it is written to auth.json and applied to the config and the model client at once.
 */
import { resolve } from 'node:path';
import type { SandboxPolicy } from '@deputy/protocol';
import type { ApprovalPort } from '../approvals/approval-port.js';
import { PrefixRules } from '../approvals/rules.js';
import { SessionApprovals } from '../approvals/session-approvals.js';
import { removeAuthFile, usableStoredKey, writeStoredApiKey } from '../config/auth.js';
import type { ResolvedConfig } from '../config/load-config.js';
import { ConfigError, MissingApiKeyError } from '../config/errors.js';
import { resolveProviderInfo } from '../config/providers.js';
import { resolveProvider } from '../config/resolve-config.js';
import { buildChildEnv, ShellEnvironmentPolicySchema, withExecEnvDefaults } from '../exec/env.js';
import { ExecSessionManager } from '../exec/exec-session.js';
import { describeModel } from '../model/catalog.js';
import { createModelClient, type ProviderConnection } from '../model/provider.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../model/types.js';
import { applyPatchTool } from '../tools/patch-tool.js';
import { ToolRegistry } from '../tools/registry.js';
import { execCommandTool } from '../tools/shell/exec-command.js';
import type { ShellServices } from '../tools/shell/services.js';
import { writeStdinTool } from '../tools/shell/write-stdin.js';
import { updatePlanTool } from '../tools/update-plan/update-plan.js';
import { viewImageTool } from '../tools/view-image/view-image.js';
import { DEFAULT_PROJECT_DOC_MAX_BYTES } from './context.js';
import { sandboxPolicyFromMode, type ThreadSettings } from './settings.js';
import type { ModelInfo } from './thread.js';
import type { StartThreadOptions } from './thread-manager.js';

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
}

/** Everything threads share in one process. */
export class EngineRuntime {
  /** What threads call; it forwards to the client for the current key. */
  readonly modelClient: ModelClient;
  readonly #client: SwitchableModelClient | null;
  readonly #envPolicy;
  #authWrites: Promise<void> = Promise.resolve();

  private constructor(
    readonly config: ResolvedConfig,
    public approvals: ApprovalPort,
    readonly source: string,
    readonly rules: PrefixRules,
    modelClient: ModelClient | undefined,
  ) {
    // The configured provider must be usable at start (a missing key fails here, naming its
    // variable); only a later key change may leave it without one until the next login.
    this.#client = modelClient ? null : new SwitchableModelClient(createModelClient(providerConnection(config)));
    this.modelClient = modelClient ?? (this.#client as SwitchableModelClient);
    this.#envPolicy = ShellEnvironmentPolicySchema.parse(config.shellEnvironmentPolicy ?? {});
  }

  /** Builds a runtime (reads the home's remembered rules). */
  static async create(options: EngineRuntimeOptions): Promise<EngineRuntime> {
    const rules = await PrefixRules.load(options.config.home);
    return new EngineRuntime(options.config, options.approvals, options.source, rules, options.modelClient);
  }

  get home(): string {
    return this.config.home;
  }
  get providerId(): string {
    return this.config.modelProviderId;
  }
  get version(): string {
    return DEPUTY_VERSION;
  }
  get wire(): 'responses' | 'chat' {
    return this.config.provider.wireApi;
  }
  get projectDocMaxBytes(): number {
    return this.config.projectDocMaxBytes ?? DEFAULT_PROJECT_DOC_MAX_BYTES;
  }
  get autoCompactTokenLimit(): number | null {
    return this.config.autoCompactTokenLimit;
  }

  /**
   * Stores `key` as the OpenAI API key in `<home>/auth.json` (null deletes the file), then applies
   * it: `config.sources.storedOpenaiKey` and `config.provider.apiKey` change in place (so every
   * holder of this config sees them), and the next model request of every thread uses the new
   * key; a stream already running keeps its own. Keys from the environment keep their precedence,
   * as `loadConfig` decides it. A provider left without a needed key fails its next request with
   * `MissingApiKeyError`. Calls run one at a time, in call order. Never logs the key.
   */
  setStoredApiKey(key: string | null): Promise<void> {
    const run = this.#authWrites.then(async () => {
      if (key === null) await removeAuthFile(this.home);
      else await writeStoredApiKey(this.home, key);
      this.#applyStoredKey(usableStoredKey(key));
    });
    this.#authWrites = run.catch(() => undefined);
    return run;
  }

  #applyStoredKey(stored: string | null): void {
    const config = this.config;
    config.sources.storedOpenaiKey = stored;
    const info = config.modelProviders[config.modelProviderId];
    if (info) config.provider.apiKey = resolveProviderInfo(info, { env: config.sources.env, storedOpenaiKey: stored }, false).apiKey;
    if (!this.#client) return;
    try {
      this.#client.use(createModelClient(providerConnection(config)));
    } catch (e) {
      if (!(e instanceof MissingApiKeyError)) throw e;
      this.#client.use(e);
    }
  }

  /** What the catalogue knows of a model (config's `model_context_window` wins). */
  describeModel(model: string): ModelInfo {
    const info = describeModel(model, this.providerId);
    return {
      contextWindow: this.config.modelContextWindow ?? info.contextWindow,
      supportsReasoning: info.supportsReasoning,
      supportsReasoningSummaries: info.supportsReasoningSummaries,
      known: info.known,
    };
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

  /** Builds one thread's tools and the services behind them. */
  createThreadServices(): { tools: ToolRegistry; services: ShellServices; close(): void } {
    const sessions = new ExecSessionManager();
    const services: ShellServices = {
      sessions,
      sessionApprovals: new SessionApprovals(),
      rules: this.rules,
      childEnv: () => withExecEnvDefaults(buildChildEnv(process.env, this.#envPolicy)),
    };
    const tools = new ToolRegistry([
      execCommandTool(services),
      writeStdinTool(services),
      updatePlanTool,
      applyPatchTool(services),
      viewImageTool,
    ] as never[]);
    return { tools, services, close: () => sessions.killAll() };
  }
}

/**
 * The connection for the configured provider. Checks the key (a missing one is an error naming
 * its variable); a base URL filled in at run time (the demo model's) wins over the config's.
 */
export function providerConnection(config: ResolvedConfig): ProviderConnection {
  const resolved = resolveProvider(config);
  const baseUrl = config.provider.baseUrl ?? resolved.baseUrl;
  if (!baseUrl) throw new ConfigError(`${config.configPath}: model_providers.${resolved.id}.base_url: expected a URL, got nothing`);
  return { ...resolved, baseUrl };
}

/**
 * The model client threads hold: forwards each request to the client for the current key, or
 * fails it with the error saying which key is missing.
 */
class SwitchableModelClient implements ModelClient {
  #current: ModelClient | MissingApiKeyError;

  constructor(initial: ModelClient) {
    this.#current = initial;
  }

  /** Sends later requests to `next` (or fails them with it). */
  use(next: ModelClient | MissingApiKeyError): void {
    this.#current = next;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const current = this.#current;
    if (current instanceof MissingApiKeyError) throw current;
    yield* current.stream(request, signal);
  }
}
