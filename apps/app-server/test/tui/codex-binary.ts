/**
 * Finds the official Codex native binaries that `scripts/install-codex-tui.sh` installs into cache
 * folders outside the repo: 0.130.0 (`DEPUTY_CODEX_CACHE`, else
 * `~/.cache/deputy/codex-0.130.0`; or `DEPUTY_CODEX_BIN`) and 0.171.0
 * (`<DEPUTY_CODEX_CACHE_ROOT or ~/.cache/deputy>/codex-0.171.0`; or `DEPUTY_CODEX_171_BIN`). It
 * never installs anything: a missing binary is an error telling how to install it, so the TUI
 * test fails instead of skipping.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The TUI versions the acceptance test drives: a 0.130 client and a current one. */
export const CODEX_TUI_VERSIONS = ['0.130.0', '0.171.0'] as const;
/** One of them. */
export type CodexTuiVersion = (typeof CODEX_TUI_VERSIONS)[number];

/** The first pinned TUI version (the reference the benches compare against). */
export const CODEX_TUI_VERSION: CodexTuiVersion = '0.130.0';

/** The install command CI and developers run. */
export const INSTALL_HINT = 'bash scripts/install-codex-tui.sh';

/** The environment variable that names a version's binary directly. */
const BIN_ENV: Record<CodexTuiVersion, string> = { '0.130.0': 'DEPUTY_CODEX_BIN', '0.171.0': 'DEPUTY_CODEX_171_BIN' };

/** The cache folder the install script uses for `version` and `env`. */
export function codexCacheDir(env: NodeJS.ProcessEnv = process.env, version: CodexTuiVersion = CODEX_TUI_VERSION): string {
  if (version === '0.130.0' && env.DEPUTY_CODEX_CACHE) return env.DEPUTY_CODEX_CACHE;
  const root = env.DEPUTY_CODEX_CACHE_ROOT || path.join(env.HOME || os.homedir(), '.cache', 'deputy');
  return path.join(root, `codex-${version}`);
}

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': 'codex-linux-x64',
  'linux-arm64': 'codex-linux-arm64',
  'darwin-x64': 'codex-darwin-x64',
  'darwin-arm64': 'codex-darwin-arm64',
};

/** The first executable file named `codex` under `dir`, searching `depth` levels. */
function findExecutable(dir: string, depth: number): string | null {
  if (depth < 0 || !existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name === 'codex' && (statSync(full).mode & 0o100) !== 0) return full;
    if (entry.isDirectory()) {
      const found = findExecutable(full, depth - 1);
      if (found !== null) return found;
    }
  }
  return null;
}

/** A version's native binary. Throws, naming the install command, when it is not installed. */
export function requireCodexBinary(env: NodeJS.ProcessEnv = process.env, version: CodexTuiVersion = CODEX_TUI_VERSION): string {
  const named = env[BIN_ENV[version]];
  if (named) {
    if (existsSync(named)) return named;
    throw new Error(`${BIN_ENV[version]}=${named} does not exist; unset it or run \`${INSTALL_HINT}\``);
  }
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  const cache = codexCacheDir(env, version);
  const found = pkg === undefined ? null : findExecutable(path.join(cache, 'node_modules', '@openai', pkg, 'vendor'), 4);
  if (found === null) {
    throw new Error(`the Codex ${version} TUI is not installed under ${cache}; run \`${INSTALL_HINT}\` (it installs @openai/codex@${version} with npm outside the repo)`);
  }
  return found;
}
