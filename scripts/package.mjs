#!/usr/bin/env node
/**
 * `pnpm package`: writes dist/deputy-<version>.tgz, one npm package with the whole of Deputy:
 * the `deputy` CLI and both servers bundled by esbuild from the built `apps/cli/dist/deputy.js`
 * (the servers are chunks the CLI loads when `mcp-server` / `app-server` is asked for), the
 * native addons (`better-sqlite3`, `@lydell/node-pty`) as real dependencies at the versions the
 * workspace uses, `bin: deputy`, `engines`, the README and the licence. No workspace links and
 * no test support: everything else is inlined. Run `pnpm build` first (`pnpm package` does).
 *   node scripts/package.mjs [--out DIR]
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(REPO, 'apps/cli/dist/deputy.js');
/** Native addons: installed by npm with the package, loaded at run time. */
const NATIVE = ['better-sqlite3', '@lydell/node-pty', '@napi-rs/keyring'];
/** ws's optional native helpers: never required, left to `ws` to look for. */
const OPTIONAL = ['bufferutil', 'utf-8-validate'];
const REQUIRE_SHIM = "import { createRequire as __deputyCreateRequire } from 'node:module'; const require = __deputyCreateRequire(import.meta.url);";

const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? path.resolve(process.argv[outIndex + 1]) : path.join(REPO, 'dist');

if (!existsSync(ENTRY)) {
  process.stderr.write(`package: ${path.relative(REPO, ENTRY)} is missing; run pnpm build first\n`);
  process.exit(2);
}

const cli = JSON.parse(readFileSync(path.join(REPO, 'apps/cli/package.json'), 'utf8'));
const root = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const requireFromCli = createRequire(path.join(REPO, 'apps/cli/package.json'));
const requireFromEngine = createRequire(path.join(REPO, 'packages/engine/package.json'));
/** The installed version of a native dependency (what the workspace was built and tested with). */
function installedVersion(name) {
  for (const req of [requireFromCli, requireFromEngine]) {
    try {
      return JSON.parse(readFileSync(req.resolve(`${name}/package.json`), 'utf8')).version;
    } catch {
      // try the next workspace package
    }
  }
  throw new Error(`package: cannot find ${name} in the workspace; run pnpm install`);
}

const stage = path.join(outDir, `.stage-${process.pid}`);
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
try {
  await build({
    entryPoints: { deputy: ENTRY },
    outdir: path.join(stage, 'lib'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // The checkout's launcher starts a server's own bundle when one sits beside it; in the package
    // there is none (the servers are inside this bundle, reached through program.ts).
    external: [...NATIVE, ...OPTIONAL, '../../app-server/bundle/main.js', '../../mcp-server/bundle/main.js'],
    banner: { js: REQUIRE_SHIM },
    chunkNames: 'chunk-[hash]',
    // `#!/usr/bin/env node` of the entry is kept by esbuild.
    logLevel: 'warning',
  });
  const license = existsSync(path.join(REPO, 'LICENSE')) ? 'SEE LICENSE IN LICENSE' : (root.license ?? 'UNLICENSED');
  const manifest = {
    name: cli.name,
    version: cli.version,
    description: 'Deputy: a coding agent that other programs drive (MCP server, Codex-compatible app-server, codex exec compatible CLI).',
    type: 'module',
    bin: { deputy: 'lib/deputy.js' },
    engines: cli.engines ?? root.engines,
    license,
    files: ['lib', 'README.md', ...(existsSync(path.join(REPO, 'LICENSE')) ? ['LICENSE'] : [])],
    dependencies: Object.fromEntries(NATIVE.map((name) => [name, installedVersion(name)])),
  };
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(path.join(REPO, 'README.md'), path.join(stage, 'README.md'));
  if (existsSync(path.join(REPO, 'LICENSE'))) copyFileSync(path.join(REPO, 'LICENSE'), path.join(stage, 'LICENSE'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' }).trim().split('\n').at(-1);
  const tarball = path.join(outDir, `deputy-${cli.version}.tgz`);
  if (path.join(outDir, packed) !== tarball) renameSync(path.join(outDir, packed), tarball);
  process.stdout.write(`${tarball}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
