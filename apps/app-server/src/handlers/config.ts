/**
 * Handlers of the config area (docs/app-server.md "Methods served"): `config/read` (the
 * configuration with origins and layers; project layers are not read, so `cwd` changes nothing),
 * `config/value/write` and `config/batchWrite` (edits of the user `config.toml`, formatting kept,
 * all or nothing; errors carry `data.config_write_error_code`), and `configRequirements/read` (no
 * administrator requirements are supported: `null`). This area keeps the running config in step
 * with the user file: a successful write, and a `config/read` that finds the file changed, become
 * the engine's current config (`EngineRuntime.applyConfig`), so new threads, `model/list`,
 * `account/read`, `hooks/list` and `config/read` follow at once, without a restart; loaded threads
 * keep their settings and the provider they run on.
 */
import { ConfigError, ConfigWriteError, reloadUserConfig, writeUserConfig, type ConfigEdit, type ConfigWriteRefusal, type ResolvedConfig, type UserConfigWrite } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import { layerVersion, projectConfigRead } from '../project/config.js';
import type { Handlers } from './types.js';

/** The wire's `config_write_error_code` of each refusal. */
const WRITE_ERROR_CODES: Record<ConfigWriteRefusal, string> = {
  validation: 'configValidationError',
  versionConflict: 'configVersionConflict',
  readonlyLayer: 'configLayerReadonly',
};

/** Reference text of a write the session flags override (the only layer above the user file here). */
const OVERRIDDEN_BY_SESSION_FLAGS = 'Overridden by session flags';

/** Added to the refusal of a write the engine cannot use after the file was written. */
const NOT_APPLIED = 'config.toml was written; new threads keep the previous configuration';

/** The handlers of this area. */
export function configHandlers(app: AppContext): Handlers {
  const userConfig = new UserConfig(app);
  return {
    'config/read': async (params) => projectConfigRead(await userConfig.refresh(), params.includeLayers === true),
    'config/value/write': (params) => userConfig.write([params], params),
    'config/batchWrite': (params) => userConfig.write(params.edits, params),
    'configRequirements/read': () => ({ requirements: null }),
    'modelProvider/list': () => listProviders(app.runtime.config),
    'modelProvider/config/write': async (params) => {
      const { id, edits } = providerEdits(app.runtime.config, params.settings);
      await userConfig.write(edits, {});
      const provider = listProviders(app.runtime.config).data.find((p) => p.id === id);
      if (provider === undefined) throw RpcError.internal(`Internal error: provider \`${id}\` is missing after the write`);
      return { provider };
    },
    'modelProvider/default/set': async (params) => {
      if (!Object.hasOwn(app.runtime.config.modelProviders, params.providerId)) {
        const known = Object.keys(app.runtime.config.modelProviders).sort().join(', ');
        throw RpcError.invalidRequest(`Invalid request: unknown model provider \`${params.providerId}\`; configured: ${known}`);
      }
      await userConfig.write([{ keyPath: 'model_provider', value: params.providerId, mergeStrategy: 'replace' }], {});
      return {};
    },
  };
}

/** Providers `modelProvider/config/write` does not edit: OpenAI itself and the built-in offline demo. */
const NOT_EDITABLE: ReadonlySet<string> = new Set(['openai', 'demo']);

function isEditable(id: string): boolean {
  return !NOT_EDITABLE.has(id);
}

/** A TOML key-path segment, quoted unless it is a bare key. */
function segment(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/**
 * The `[model_providers.<id>]` edits of a `modelProvider/config/write`: `name`, `base_url` and
 * `env_key` of a custom gateway (null removes a key), for the given provider or else the current
 * one. `openai` and the Bedrock and GCP kinds are refused: Deputy's providers are OpenAI-compatible
 * endpoints configured in `config.toml`.
 */
function providerEdits(config: ResolvedConfig, settings: AppServer.ModelProviderConfigWriteParams['settings']): { id: string; edits: ConfigEdit[] } {
  if (settings.type !== 'customGateway') {
    throw RpcError.invalidRequest(`Invalid request: ${settings.type === 'bedrock' ? 'Amazon Bedrock' : 'Google Cloud'} providers are not supported by this server`);
  }
  const id = settings.providerId ?? config.modelProviderId;
  if (!isEditable(id)) throw RpcError.invalidRequest(`Invalid request: \`${id}\` is not a custom gateway; give the providerId of a custom provider`);
  const table = `model_providers.${segment(id)}`;
  const edits: ConfigEdit[] = [];
  if (settings.name !== undefined) edits.push({ keyPath: `${table}.name`, value: settings.name, mergeStrategy: 'replace' });
  if (settings.baseUrl !== undefined) edits.push({ keyPath: `${table}.base_url`, value: settings.baseUrl, mergeStrategy: 'replace' });
  if (settings.envKey !== undefined) edits.push({ keyPath: `${table}.env_key`, value: settings.envKey, mergeStrategy: 'replace' });
  if (edits.length === 0 && !Object.hasOwn(config.modelProviders, id)) {
    throw RpcError.invalidRequest(`Invalid request: unknown model provider \`${id}\` and nothing to write`);
  }
  return { id, edits };
}

/**
 * `modelProvider/list`: every configured provider (built-in and `[model_providers.*]`), the
 * current one as the default. `openai` is the OpenAI kind; every other provider is a custom
 * gateway that authenticates with its `env_key` variable, or not at all. Custom gateways can be
 * edited (`modelProvider/config/write`); the default can change (`modelProvider/default/set`
 * writes `model_provider` in the user file).
 */
function listProviders(config: ResolvedConfig): AppServer.ResultOf<'modelProvider/list'> {
  const data = Object.values(config.modelProviders)
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((provider) => ({
      id: provider.id,
      name: provider.name,
      baseUrl: provider.baseUrl,
      canEdit: isEditable(provider.id),
      settings:
        provider.id === 'openai'
          ? { type: 'openai' as const }
          : {
              type: 'customGateway' as const,
              auth: provider.envKey === null ? { mode: 'none' as const } : { mode: 'environmentVariable' as const, envKey: provider.envKey },
            },
    }));
  return { data, defaultProviderId: config.modelProviderId, canChangeDefault: true };
}

/** Where a write goes and under which version (batchWrite's `reloadUserConfig` is accepted: a written config always applies). */
interface WriteTarget {
  expectedVersion?: string | null;
  filePath?: string | null;
}

/**
 * Reads and writes of the user file, one at a time (a `config/read` that started before a write
 * cannot put the older file back), always from the engine's current config.
 */
class UserConfig {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly app: AppContext) {}

  /** The current config, after adopting the user file if it changed; a file that no longer loads keeps the last good one. */
  refresh(): Promise<ResolvedConfig> {
    return this.#serialize(async () => {
      const current = this.app.runtime.config;
      try {
        const next = await reloadUserConfig(current);
        if (next !== current) this.#adopt(next);
      } catch (e) {
        this.app.logger.warn('config.toml could not be reloaded; reporting the last loaded config', { error: (e as Error).message });
      }
      return this.app.runtime.config;
    });
  }

  /** Applies `edits` to the user file and makes the result the current config. */
  write(edits: readonly ConfigEdit[], target: WriteTarget): Promise<AppServer.ConfigWriteResult> {
    return this.#serialize(async () => {
      let outcome: UserConfigWrite;
      try {
        outcome = await writeUserConfig(this.app.runtime.config, {
          edits,
          expectedVersion: target.expectedVersion,
          filePath: target.filePath,
          versionOf: layerVersion,
          // Refused before the file is touched when the running engine could not apply it.
          check: (next) => void this.app.runtime.checkConfig(next),
        });
      } catch (e) {
        if (e instanceof ConfigWriteError) throw RpcError.invalidRequest(e.message, { config_write_error_code: WRITE_ERROR_CODES[e.reason] });
        throw e;
      }
      this.app.logger.info('config.toml written', { file: outcome.config.configPath, edits: edits.map((edit) => edit.keyPath), version: outcome.version });
      try {
        this.#adopt(outcome.config);
      } catch (e) {
        // Only what the engine checks beyond the resolver (shell_environment_policy) gets here.
        if (!(e instanceof ConfigError)) throw e;
        throw RpcError.invalidRequest(`Invalid configuration: ${e.message} (${NOT_APPLIED})`, { config_write_error_code: WRITE_ERROR_CODES.validation });
      }
      return writeResult(outcome);
    });
  }

  /** Makes `next` the engine's current config; logs the warnings it brings. */
  #adopt(next: ResolvedConfig): void {
    const before = this.app.runtime.config;
    this.app.runtime.applyConfig(next);
    for (const warning of next.warnings) if (!before.warnings.includes(warning)) this.app.logger.warn(warning);
    this.app.logger.info('config applied to new threads', { modelProvider: next.modelProviderId, model: next.model });
  }

  #serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** The wire result of a write: `okOverridden` when a `-c` override still decides an edited key. */
function writeResult(outcome: UserConfigWrite): AppServer.ConfigWriteResult {
  const { config, version, overridden } = outcome;
  if (overridden === null) return { status: 'ok', version, filePath: config.configPath, overriddenMetadata: null };
  const session = projectConfigRead(config, true).layers?.find((layer) => layer.name.type === 'sessionFlags');
  return {
    status: 'okOverridden',
    version,
    filePath: config.configPath,
    overriddenMetadata: {
      message: OVERRIDDEN_BY_SESSION_FLAGS,
      overridingLayer: { name: { type: 'sessionFlags' }, version: session?.version ?? layerVersion({}) },
      effectiveValue: overridden.effectiveValue,
    },
  };
}
