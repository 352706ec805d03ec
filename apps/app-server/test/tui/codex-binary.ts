/**
 * Finds the official Codex 0.130.0 native binary that `scripts/install-codex-tui.sh` installs
 * into a cache folder outside the repo (`DEPUTY_CODEX_CACHE`, else
 * `~/.cache/deputy/codex-0.130.0`), or takes `DEPUTY_CODEX_BIN`. It never installs anything: a
 * missing binary is an error telling how to install it, so the TUI test fails instead of
 * skipping.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The pinned TUI version. */
export const CODEX_TUI_VERSION = '0.130.0';

/** The install command CI and developers run. */
export const INSTALL_HINT = 'bash scripts/install-codex-tui.sh';

/** The cache folder the install script uses for `env`. */
export function codexCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEPUTY_CODEX_CACHE || path.join(env.HOME || os.homedir(), '.cache', 'deputy', `codex-${CODEX_TUI_VERSION}`);
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

/** The native binary's path. Throws, naming the install command, when it is not installed. */
export function requireCodexBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEPUTY_CODEX_BIN) {
    if (existsSync(env.DEPUTY_CODEX_BIN)) return env.DEPUTY_CODEX_BIN;
    throw new Error(`DEPUTY_CODEX_BIN=${env.DEPUTY_CODEX_BIN} does not exist; unset it or run \`${INSTALL_HINT}\``);
  }
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  const cache = codexCacheDir(env);
  const found = pkg === undefined ? null : findExecutable(path.join(cache, 'node_modules', '@openai', pkg, 'vendor'), 4);
  if (found === null) {
    throw new Error(`the Codex ${CODEX_TUI_VERSION} TUI is not installed under ${cache}; run \`${INSTALL_HINT}\` (it installs @openai/codex@${CODEX_TUI_VERSION} with npm outside the repo)`);
  }
  return found;
}
