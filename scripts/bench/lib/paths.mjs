/**
 * Where the bench scripts find things: the repo root, the built `dist/` entry points they import
 * or spawn (with one "run pnpm build" message when any is missing), and the reference Codex
 * binary that `scripts/install-codex-tui.sh` installs into a cache folder outside the repo.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Absolute path of the repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Built entry points, relative to the repo root. */
export const DIST = {
  engine: 'packages/engine/dist/index.js',
  testSupport: 'packages/test-support/dist/index.js',
  client: 'packages/client/dist/index.js',
  appServer: 'apps/app-server/bundle/main.js',
  cli: 'apps/cli/dist/deputy.cjs',
  rolloutStore: 'packages/engine/dist/persistence/rollout-store.js',
  rolloutLine: 'packages/engine/dist/persistence/rollout-line.js',
  threadIndex: 'packages/engine/dist/persistence/thread-index.js',
};

/** The pinned reference version. */
export const CODEX_VERSION = '0.130.0';

/** Absolute path of a `DIST` entry. */
export function distPath(key) {
  return path.join(REPO_ROOT, DIST[key]);
}

/** The `DIST` keys whose file is missing. */
export function missingDist(keys) {
  return keys.filter((key) => !existsSync(distPath(key)));
}

/** Exits with status 2 and a build hint when any of `keys` is not built. */
export function requireDist(keys, benchName) {
  const missing = missingDist(keys);
  if (missing.length === 0) return;
  console.error(`${benchName}: not built (${missing.map((k) => DIST[k]).join(', ')} missing); run \`pnpm build\` first`);
  process.exit(2);
}

/** Imports a built module by `DIST` key. */
export function importDist(key) {
  return import(pathToFileURL(distPath(key)).href);
}

/** The cache folder of the reference install (same rule as scripts/install-codex-tui.sh). */
export function codexCacheDir(env = process.env) {
  return env.DEPUTY_CODEX_CACHE || path.join(env.HOME || os.homedir(), '.cache', 'deputy', `codex-${CODEX_VERSION}`);
}

const PLATFORM_PACKAGE = { 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'darwin-x64': 'darwin-x64', 'darwin-arm64': 'darwin-arm64' };

/** Finds an executable named `codex` under `dir` (depth-first, a few levels deep). */
function findExecutable(dir, depth) {
  if (depth < 0 || !existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name === 'codex' && (statSync(full).mode & 0o100) !== 0) return full;
    if (entry.isDirectory()) {
      const found = findExecutable(full, depth - 1);
      if (found) return found;
    }
  }
  return null;
}

/**
 * The native reference binary: `DEPUTY_CODEX_BIN` when set, else the platform package inside the
 * cache folder; null when it is not installed.
 */
export function findCodexBinary(env = process.env) {
  if (env.DEPUTY_CODEX_BIN) return existsSync(env.DEPUTY_CODEX_BIN) ? env.DEPUTY_CODEX_BIN : null;
  const platform = PLATFORM_PACKAGE[`${process.platform}-${process.arch}`];
  if (!platform) return null;
  return findExecutable(path.join(codexCacheDir(env), 'node_modules', '@openai', `codex-${platform}`, 'vendor'), 4);
}

/**
 * The sides an app-server bench measures: Deputy when its bundle is built, the reference when its
 * binary is installed (`only` narrows to one); exits with status 2 when neither can run.
 */
export function appServerSides(benchName, only, log) {
  requireDist(['engine', 'testSupport', 'client'], benchName);
  const kinds = [];
  if (only !== 'reference') {
    if (missingDist(['appServer']).length === 0) kinds.push('deputy');
    else log('apps/app-server/bundle/main.js is missing (run `pnpm build`); measuring the reference alone');
  }
  const bin = findCodexBinary();
  if (only !== 'deputy') {
    if (bin) kinds.push('reference');
    else log('reference not installed (bash scripts/install-codex-tui.sh); reporting Deputy alone');
  }
  if (kinds.length === 0) {
    console.error(`${benchName}: nothing to measure`);
    process.exit(2);
  }
  return { kinds, bin };
}
