// Bundles the server binaries after `tsc -b`: esbuild follows `apps/<app>/dist/main.js`
// through the workspace packages and their dependencies (zod, openai, ws, jose, …) and writes ES
// module chunks to `apps/<app>/bundle/`, keeping every dynamic `import()` a separate chunk so
// a lazy start stays lazy. Node then reads a handful of files instead of ~370 modules before it
// can answer `initialize` (see docs/app-server.md, "Start-up"). Native addons stay external and
// are loaded from the app's own node_modules, which is why each app lists them as dependencies.
//   node scripts/bundle.mjs          (run by `pnpm build`)
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What is bundled: the entry (built by tsc) and where its chunks go (flat: see `identity.ts`). */
export const BUNDLES = [
  {
    name: 'app-server',
    entry: path.join(REPO_DIR, 'apps/app-server/dist/main.js'),
    outdir: path.join(REPO_DIR, 'apps/app-server/bundle'),
  },
  {
    name: 'mcp-server',
    entry: path.join(REPO_DIR, 'apps/mcp-server/dist/main.js'),
    outdir: path.join(REPO_DIR, 'apps/mcp-server/bundle'),
  },
];

/** Native addons (and ws's optional native helpers): resolved at run time, never inlined. */
const EXTERNAL = ['better-sqlite3', '@lydell/node-pty', '@napi-rs/keyring', 'bufferutil', 'utf-8-validate'];

// CommonJS dependencies bundled into ES modules call `require` for Node's built-ins.
const REQUIRE_SHIM = "import { createRequire as __deputyCreateRequire } from 'node:module'; const require = __deputyCreateRequire(import.meta.url);";

/** Builds one bundle from scratch (stale chunks of an earlier build are removed first). */
export async function bundle({ entry, outdir }) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { main: entry },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    banner: { js: REQUIRE_SHIM },
    sourcemap: 'linked',
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
  });
  chmodSync(path.join(outdir, 'main.js'), 0o755);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const target of BUNDLES) await bundle(target);
}
