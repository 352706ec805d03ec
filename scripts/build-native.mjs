// Builds the engine's two Node-API addons from packages/engine/native/ into
// packages/engine/dist/native/: vfork-spawn.node (the spawn helper's way to start commands without
// a fork; docs/performance.md "Starting commands without a fork") and malloc-trim.node (the
// app-server gives the C heap's free pages back once idle after a burst; "Freed memory back to
// the system"). Called by scripts/postbuild.mjs before the bundles, which copy them beside their
// chunks. Linux only; it needs a C compiler (`$CC`, else `cc`) and Node's headers
// (`<prefix>/include/node`, as Node's own packages install them). When either is missing or the
// compiler fails, it says so in one line and Deputy works as it did without them: the helper
// forks, and freed C memory stays with the process until glibc reuses it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NATIVE_DIR = path.join(REPO, 'packages/engine/native');
const OUT_DIR = path.join(REPO, 'packages/engine/dist/native');
/** The addons, by file name; each is built from the `.c` file of the same stem. */
const ADDONS = [
  { name: 'vfork-spawn.node', without: 'commands will start with fork' },
  { name: 'malloc-trim.node', without: 'freed C memory stays with the process' },
];
/** The built addons' paths; scripts/bundle.mjs copies those that exist. */
export const NATIVE_ADDONS = ADDONS.map(({ name }) => path.join(OUT_DIR, name));

/** Node's headers: beside the running node (`bin/../include/node`), or where npm_config_nodedir says. */
function nodeHeaders() {
  const candidates = [path.join(path.dirname(process.execPath), '..', 'include', 'node')];
  if (process.env.npm_config_nodedir) candidates.push(path.join(process.env.npm_config_nodedir, 'include', 'node'));
  return candidates.find((dir) => existsSync(path.join(dir, 'node_api.h'))) ?? null;
}

/** Builds each addon unless it is newer than its source. Returns the paths of those built. */
export function buildNativeAddons() {
  if (process.platform !== 'linux') return [];
  const built = [];
  let headers;
  for (const { name, without } of ADDONS) {
    const output = path.join(OUT_DIR, name);
    const source = path.join(NATIVE_DIR, name.replace(/\.node$/, '.c'));
    if (existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs) {
      built.push(output);
      continue;
    }
    headers ??= nodeHeaders();
    if (headers === null) {
      process.stderr.write(`build-native: no Node headers (include/node/node_api.h) found; ${without}\n`);
      continue;
    }
    mkdirSync(OUT_DIR, { recursive: true });
    const compiler = process.env.CC || 'cc';
    try {
      execFileSync(compiler, ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', '-I', headers, '-o', output, source], { stdio: ['ignore', 'ignore', 'pipe'] });
      built.push(output);
    } catch (error) {
      const detail = (error.stderr?.toString() ?? error.message).trim().split('\n')[0];
      process.stderr.write(`build-native: ${compiler} could not build ${name} (${detail}); ${without}\n`);
    }
  }
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildNativeAddons();
