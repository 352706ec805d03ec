// Builds packages/engine/native/vfork-spawn.c into packages/engine/dist/native/vfork-spawn.node
// (the spawn helper's way to start commands without a fork; docs/performance.md "Starting
// commands without a fork"). Called by scripts/postbuild.mjs before the bundles, which copy the
// result beside their chunks. Linux only; it needs a C compiler (`$CC`, else `cc`) and Node's
// headers (`<prefix>/include/node`, as Node's own packages install them). When either is missing
// or the compiler fails, it says so in one line and the helper keeps forking, as before: Deputy
// works the same without it, only slower to start commands.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(REPO, 'packages/engine/native/vfork-spawn.c');
/** Where the addon is built; scripts/bundle.mjs copies it from here. */
export const NATIVE_SPAWN_ADDON = path.join(REPO, 'packages/engine/dist/native/vfork-spawn.node');

/** Node's headers: beside the running node (`bin/../include/node`), or where npm_config_nodedir says. */
function nodeHeaders() {
  const candidates = [path.join(path.dirname(process.execPath), '..', 'include', 'node')];
  if (process.env.npm_config_nodedir) candidates.push(path.join(process.env.npm_config_nodedir, 'include', 'node'));
  return candidates.find((dir) => existsSync(path.join(dir, 'node_api.h'))) ?? null;
}

/** Builds the addon unless it is newer than its source. Returns its path, or null when not built. */
export function buildNativeSpawn() {
  if (process.platform !== 'linux') return null;
  if (existsSync(NATIVE_SPAWN_ADDON) && statSync(NATIVE_SPAWN_ADDON).mtimeMs >= statSync(SOURCE).mtimeMs) return NATIVE_SPAWN_ADDON;
  const headers = nodeHeaders();
  if (headers === null) {
    process.stderr.write('build-native: no Node headers (include/node/node_api.h) found; commands will start with fork\n');
    return null;
  }
  mkdirSync(path.dirname(NATIVE_SPAWN_ADDON), { recursive: true });
  const compiler = process.env.CC || 'cc';
  try {
    execFileSync(compiler, ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', '-I', headers, '-o', NATIVE_SPAWN_ADDON, SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const detail = (error.stderr?.toString() ?? error.message).trim().split('\n')[0];
    process.stderr.write(`build-native: ${compiler} could not build vfork-spawn.node (${detail}); commands will start with fork\n`);
    return null;
  }
  return NATIVE_SPAWN_ADDON;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildNativeSpawn();
