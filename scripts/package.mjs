#!/usr/bin/env node
/**
 * `pnpm package`: writes dist/deputy-<version>.tgz, one npm package with the whole of Deputy:
 * the `deputy` CLI and both servers bundled by esbuild from the built `apps/cli/dist/deputy.cjs`
 * (the servers are chunks the CLI loads when `mcp-server` / `app-server` is asked for; CommonJS
 * chunks loaded with V8's code cache, as scripts/bundle.mjs builds them), the
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
import { APP_SERVER_INITIALIZE, bundle, MCP_SERVER_INITIALIZE } from './bundle.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(REPO, 'apps/cli/dist/deputy.cjs');
/** Native addons: installed by npm with the package, loaded at run time. */
const NATIVE = ['better-sqlite3', '@lydell/node-pty', '@napi-rs/keyring'];

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

/** The package's manifest: `bin` is the bundle's loader (scripts/bundle-main.cjs). */
function manifest() {
  const license = existsSync(path.join(REPO, 'LICENSE')) ? 'SEE LICENSE IN LICENSE' : (root.license ?? 'UNLICENSED');
  return {
    name: cli.name,
    version: cli.version,
    description: 'Deputy: a coding agent that other programs drive (MCP server, Codex-compatible app-server, codex exec compatible CLI).',
    type: 'module',
    bin: { deputy: 'lib/main.js' },
    engines: cli.engines ?? root.engines,
    license,
    files: ['lib', 'README.md', ...(existsSync(path.join(REPO, 'LICENSE')) ? ['LICENSE'] : [])],
    dependencies: Object.fromEntries(NATIVE.map((name) => [name, installedVersion(name)])),
  };
}

const stage = path.join(outDir, `.stage-${process.pid}`);
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
try {
  // The CLI with both servers, as CommonJS chunks that `lib/main.js` loads with V8's code cache
  // (scripts/bundle.mjs); a warm-up run of each server writes the cache into lib/code-cache/. It
  // is accepted by the same Node (V8) version only; other versions compile from source and
  // write their own cache on exit where the install is writable. The package.json is written
  // first: the servers read their version from it.
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest(), null, 2)}\n`);
  await bundle({
    entry: ENTRY,
    outdir: path.join(stage, 'lib'),
    name: 'deputy',
    // The checkout's launcher starts a server's own bundle, or the CLI's, when one sits beside it; in the package
    // there is none (the servers are inside this bundle, reached through program.ts).
    external: ['../../app-server/bundle/main.js', '../../mcp-server/bundle/main.js', '../bundle/main.js'],
    warm: [
      { args: ['app-server'], initialize: APP_SERVER_INITIALIZE },
      { args: ['mcp-server'], initialize: MCP_SERVER_INITIALIZE },
    ],
  });
  copyFileSync(path.join(REPO, 'README.md'), path.join(stage, 'README.md'));
  if (existsSync(path.join(REPO, 'LICENSE'))) copyFileSync(path.join(REPO, 'LICENSE'), path.join(stage, 'LICENSE'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' }).trim().split('\n').at(-1);
  const tarball = path.join(outDir, `deputy-${cli.version}.tgz`);
  if (path.join(outDir, packed) !== tarball) renameSync(path.join(outDir, packed), tarball);
  process.stdout.write(`${tarball}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
