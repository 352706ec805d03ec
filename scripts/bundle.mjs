// Bundles the server binaries and the rest of the CLI after `tsc -b`: esbuild follows
// `apps/<app>/dist/main.js` (`apps/cli/dist/program.js` for the CLI) through the workspace
// packages and their dependencies (zod, openai, ws, jose, …) into chunks in `apps/<app>/bundle/`,
// keeping every dynamic `import()` a separate chunk so a lazy start stays lazy. Node then reads a
// handful of files instead of ~370 modules before it can answer `initialize` or run a turn (see
// docs/app-server.md, "Start-up"). The chunks are CommonJS (esbuild splits ES modules only, so
// each chunk is converted after the split) and `main.js` loads them with V8's code cache, which
// Node 20 offers for scripts but not for ES modules; a short run of each server after the build
// writes that cache, and one `deputy exec` demo turn the CLI's (docs/performance.md, "Start-up
// through the CLI").
// `modules.json` lists the source modules of each chunk. Native addons stay external and are
// loaded from the app's own node_modules, which is why each app lists them as dependencies.
//   node scripts/bundle.mjs          (run by `pnpm build`)
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { NATIVE_ADDONS } from './build-native.mjs';

const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A stdio client's first line to each server: the warm-up run after a build sends it (see `bundle`). */
export const APP_SERVER_INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'deputy-build', title: null, version: '0' }, capabilities: null } };
export const MCP_SERVER_INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deputy-build', version: '0' } } };

/** What is bundled: the entry (built by tsc) and where its chunks go (flat: see `identity.ts`). */
export const BUNDLES = [
  {
    name: 'app-server',
    entry: path.join(REPO_DIR, 'apps/app-server/dist/main.js'),
    outdir: path.join(REPO_DIR, 'apps/app-server/bundle'),
    warm: [{ args: [], initialize: APP_SERVER_INITIALIZE }],
  },
  {
    name: 'mcp-server',
    entry: path.join(REPO_DIR, 'apps/mcp-server/dist/main.js'),
    outdir: path.join(REPO_DIR, 'apps/mcp-server/bundle'),
    warm: [{ args: [], initialize: MCP_SERVER_INITIALIZE }],
  },
  // The rest of the `deputy` command line (`exec`, `mcp`, `acp`, --help): apps/cli/dist/deputy.cjs
  // starts it when it is there. Its warm-up is one `deputy exec` turn with the offline demo model,
  // named explicitly so no key in the builder's environment sends it anywhere; its `ls` runs in
  // the warm-up's empty temp directory without a sandbox, so the build does not depend on bwrap.
  {
    name: 'cli',
    entry: path.join(REPO_DIR, 'apps/cli/dist/program.js'),
    outdir: path.join(REPO_DIR, 'apps/cli/bundle'),
    warm: [
      {
        args: ['exec', '--skip-git-repo-check', '-s', 'danger-full-access', '-a', 'never', '-c', 'model_provider="demo"', 'what is in this directory?'],
      },
    ],
  },
];

/** Native addons (and ws's optional native helpers): resolved at run time, never inlined. */
const EXTERNAL = ['better-sqlite3', '@lydell/node-pty', '@napi-rs/keyring', 'bufferutil', 'utf-8-validate'];

/** The loader written as each bundle's `main.js` (its `ENTRY` line names the entry chunk). */
const LOADER = path.join(REPO_DIR, 'scripts/bundle-main.cjs');
const ENTRY_LINE = "const ENTRY = './server.js';";

/**
 * Builds one bundle from scratch (stale chunks of an earlier build are removed first) and its
 * code cache: `entry` (built by tsc) into `outdir`, the entry chunk named `<name>-<hash>.js`;
 * `external` adds specifiers left unbundled; each of `warm` (`{ args, initialize }`) is one
 * warm-up run of `main.js` with those arguments.
 */
export async function bundle({ entry, outdir, warm, name = 'server', external = [] }) {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { [name]: entry },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: [...EXTERNAL, ...external],
    // The MCP SDK's Node shims without AJV (apps/mcp-server/src/sdk-shims.ts says why).
    alias: { '@modelcontextprotocol/server/_shims': path.join(REPO_DIR, 'apps/mcp-server/dist/sdk-shims.js') },
    // The entry is named by its content too, like the chunks: a code cache is kept per file name.
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  mkdirSync(outdir, { recursive: true });
  // A directory of CommonJS files inside an ES-module package.
  writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  const modules = {};
  let entryName = null;
  for (const file of result.outputFiles) {
    const chunk = path.basename(file.path);
    const cjs = await transform(file.text.replace(/^#!.*\n/, ''), {
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      // `import.meta.url` becomes a parameter the loader passes (the chunk's own file URL).
      define: { 'import.meta.url': '__deputyImportMetaUrl' },
      // `import()` of a chunk becomes `require` of it, through the loader and its cache.
      supported: { 'dynamic-import': false },
      // Whitespace and syntax only (names are kept, so stack traces still name functions): a
      // smaller chunk is read, hashed and matched with its code cache faster; for the MCP server
      // ~10 ms less CPU before `initialize` (docs/performance.md, "Start-up through the CLI").
      minifyWhitespace: true,
      minifySyntax: true,
      logLevel: 'warning',
    });
    writeFileSync(path.join(outdir, chunk), cjs.code);
    const output = result.metafile.outputs[path.relative(process.cwd(), file.path)];
    modules[chunk] = Object.keys(output?.inputs ?? {}).map((input) => path.relative(REPO_DIR, path.resolve(process.cwd(), input)));
    if (chunk.startsWith(`${name}-`)) entryName = chunk;
  }
  if (entryName === null) throw new Error(`bundle: esbuild wrote no entry chunk for ${entry}`);
  writeFileSync(path.join(outdir, 'modules.json'), `${JSON.stringify(modules, null, 1)}\n`);
  const loader = readFileSync(LOADER, 'utf8');
  if (!loader.includes(ENTRY_LINE)) throw new Error(`bundle: ${LOADER} has no line ${ENTRY_LINE}`);
  writeFileSync(path.join(outdir, 'main.js'), loader.replace(ENTRY_LINE, `const ENTRY = './${entryName}';`));
  chmodSync(path.join(outdir, 'main.js'), 0o755);
  // The native addons that were built sit beside the chunks that look for them.
  for (const addon of NATIVE_ADDONS) if (existsSync(addon)) copyFileSync(addon, path.join(outdir, path.basename(addon)));
  for (const run of warm) await warmCodeCache({ outdir, ...run });
}

/**
 * Starts the bundle once with a temp home (and cwd) and waits for its exit, when its loader writes
 * the code cache of every chunk it ran (`code-cache/`). A server is sent `initialize` on stdio and
 * its stdin is ended once it answered; a command (no `initialize`) gets an empty stdin and must
 * exit 0.
 */
async function warmCodeCache({ outdir, args, initialize }) {
  const home = path.join(tmpdir(), `deputy-bundle-home-${process.pid}-${path.basename(path.dirname(outdir))}`);
  mkdirSync(home, { recursive: true });
  try {
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(outdir, 'main.js'), ...args], {
        env: { ...process.env, DEPUTY_HOME: home },
        cwd: home,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (initialize && stdout.includes('\n')) child.stdin.end();
      });
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (initialize ? stdout.includes('"id":1') : code === 0) resolve();
        else reject(new Error(`bundle: ${outdir}/main.js ${args.join(' ')} ${initialize ? 'did not answer initialize' : 'failed'} (exit ${code ?? signal}): ${stderr}`));
      });
      if (initialize) child.stdin.write(`${JSON.stringify(initialize)}\n`);
      else child.stdin.end();
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const target of BUNDLES) await bundle(target);
}
