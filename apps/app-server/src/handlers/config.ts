/**
 * Handlers of the config area (spec §12): `config/read` (the configuration with origins and
 * layers; project layers are not read, so `cwd` changes nothing), `config/value/write` and
 * `config/batchWrite` (edits of the user `config.toml`, formatting kept, all or nothing; errors
 * carry `data.config_write_error_code`), and `configRequirements/read` (no administrator
 * requirements are supported: `null`). This area owns the config it reports: `config/read`
 * re-reads the user file, and a write replaces it at once. Threads, the model client and the
 * other handlers keep the config the server started with.
 */
import { ConfigWriteError, reloadUserConfig, writeUserConfig, type ConfigEdit, type ConfigWriteRefusal, type ResolvedConfig, type UserConfigWrite } from '@deputy/engine';
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

/** The handlers of this area. */
export function configHandlers(app: AppContext): Handlers {
  const userConfig = new UserConfig(app);
  return {
    'config/read': async (params) => projectConfigRead(await userConfig.refresh(), params.includeLayers === true),
    'config/value/write': (params) => userConfig.write([params], params),
    'config/batchWrite': (params) => userConfig.write(params.edits, params),
    'configRequirements/read': () => ({ requirements: null }),
  };
}

/** Where a write goes and under which version (`reloadUserConfig` of batchWrite is accepted and ignored). */
interface WriteTarget {
  expectedVersion?: string | null;
  filePath?: string | null;
}

/**
 * The server's view of the user config: the last config read or written, one operation at a
 * time, so a `config/read` that started before a write cannot put the older file back.
 */
class UserConfig {
  #current: ResolvedConfig;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly app: AppContext) {
    this.#current = app.config;
  }

  /** The config with the user file as it is now; a file that no longer loads keeps the last good one. */
  refresh(): Promise<ResolvedConfig> {
    return this.#serialize(async () => {
      try {
        this.#current = await reloadUserConfig(this.#current);
      } catch (e) {
        this.app.logger.warn('config.toml could not be reloaded; reporting the last loaded config', { error: (e as Error).message });
      }
      return this.#current;
    });
  }

  /** Applies `edits` to the user file and adopts the result. */
  write(edits: readonly ConfigEdit[], target: WriteTarget): Promise<AppServer.ConfigWriteResult> {
    return this.#serialize(async () => {
      let outcome: UserConfigWrite;
      try {
        outcome = await writeUserConfig(this.#current, { edits, expectedVersion: target.expectedVersion, filePath: target.filePath, versionOf: layerVersion });
      } catch (e) {
        if (e instanceof ConfigWriteError) throw RpcError.invalidRequest(e.message, { config_write_error_code: WRITE_ERROR_CODES[e.reason] });
        throw e;
      }
      this.#current = outcome.config;
      this.app.logger.info('config.toml written', { file: outcome.config.configPath, edits: edits.map((edit) => edit.keyPath), version: outcome.version });
      return writeResult(outcome);
    });
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
