/**
 * Loads the configuration from disk: `<home>/config.toml` (Codex keys; a missing file is an empty
 * config), `<home>/auth.json`, `-c key=value` overrides, `--profile` and `--model`, then
 * resolves it (`resolve-config.ts`). All failures are `ConfigError`s with a message fit for the
 * terminal. Never writes files and never prints.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readStoredApiKey } from './auth.js';
import { ConfigError } from './errors.js';
import { resolveConfig, type OverrideLayer, type ResolvedConfig } from './resolve-config.js';
import { parseCliOverride, parseConfigToml, type TomlTable } from './toml-layers.js';

export type { ConfigOverrides, ConfigSources, ResolvedConfig, SandboxWorkspaceWriteSettings } from './resolve-config.js';

/** What `loadConfig` needs. */
export interface LoadConfigOptions {
  /** The Deputy home (see `resolveHome`). */
  home: string;
  /** The working directory threads start in (project trust, relative writable roots). */
  cwd: string;
  /** `-c dotted.key=value` values, in command-line order (later wins). */
  overrides?: readonly string[];
  /** `--profile`: overrides the file's `profile` key. */
  profile?: string;
  env: NodeJS.ProcessEnv;
  /** `--model`: wins over every other source. */
  modelOverride?: string;
}

/** The path of the config file in `home`. */
export function configFilePath(home: string): string {
  return path.join(home, 'config.toml');
}

/** Reads and resolves the configuration. */
export async function loadConfig(options: LoadConfigOptions): Promise<ResolvedConfig> {
  const configPath = configFilePath(options.home);
  const fileTable = await readConfigFile(configPath);
  const overrideLayers: OverrideLayer[] = (options.overrides ?? []).map((raw) => ({ label: `-c ${raw}`, table: parseCliOverride(raw) }));
  if (options.modelOverride !== undefined) overrideLayers.push({ label: `--model ${options.modelOverride}`, table: { model: options.modelOverride } });
  const storedOpenaiKey = await readStoredApiKey(options.home);
  return resolveConfig({
    home: options.home,
    configPath,
    fileTable,
    overrideLayers,
    profile: options.profile ?? null,
    cwd: path.resolve(options.cwd),
    env: options.env,
    storedOpenaiKey,
  });
}

async function readConfigFile(configPath: string): Promise<TomlTable> {
  let text: string;
  try {
    text = await fs.readFile(configPath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`${configPath}: cannot read: ${(e as Error).message}`);
  }
  return parseConfigToml(text, configPath);
}
