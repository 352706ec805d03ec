/**
 * The Deputy home directory (Codex's `CODEX_HOME`): `DEPUTY_HOME`, or `~/.deputy`. It holds
 * `config.toml`, `auth.json`, `rules/`, `sessions/` and the state database. This module only
 * locates and creates it; what lives inside belongs to other modules.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from './errors.js';

/** The home directory for `env`: `DEPUTY_HOME` (made absolute) or `<HOME>/.deputy`. */
export function resolveHome(env: NodeJS.ProcessEnv): string {
  const explicit = env.DEPUTY_HOME;
  if (explicit !== undefined && explicit.trim() !== '') return path.resolve(explicit);
  const userHome = env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
  return path.join(userHome, '.deputy');
}

/**
 * Creates the home directory (mode 0700, parents as needed) unless it exists, and returns it.
 * Throws `ConfigError` when it cannot be created or is not a directory.
 */
export async function ensureHome(home: string): Promise<string> {
  try {
    await fs.mkdir(home, { recursive: true, mode: 0o700 });
    const stat = await fs.stat(home);
    if (!stat.isDirectory()) throw new ConfigError(`${home}: the Deputy home is not a directory`);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${home}: cannot create the Deputy home: ${(e as Error).message}`);
  }
  return home;
}
