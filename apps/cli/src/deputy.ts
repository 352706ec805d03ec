#!/usr/bin/env node
/**
 * The `deputy` binary. `deputy app-server` and `deputy mcp-server`, what hosts are configured to
 * run, start the server's bundle (`apps/<server>/bundle/main.js`, built by `pnpm build`) directly:
 * nothing of the command line (commander, the `exec` and `mcp` commands) is loaded before the
 * server answers `initialize`. Everything else, and the servers when their bundles are absent (a
 * tsc-only build), goes through program.ts. Only Node built-ins are imported here.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const subcommand = process.argv[2];
const bundleOf = (server: string) => fileURLToPath(new URL(`../../${server}/bundle/main.js`, import.meta.url));
const require = createRequire(import.meta.url);
// The bundle reads its arguments from argv[2…], as its own bin does. Its `main.js` is CommonJS
// (it loads the bundle's chunks with V8's code cache), so it is required directly rather than
// imported through the ES module loader. Literal specifiers, so the dependency rules see every
// import.
if (subcommand === 'app-server' && existsSync(bundleOf('app-server'))) {
  process.argv.splice(2, 1);
  require('../../app-server/bundle/main.js');
} else if (subcommand === 'mcp-server' && existsSync(bundleOf('mcp-server'))) {
  process.argv.splice(2, 1);
  require('../../mcp-server/bundle/main.js');
} else {
  // Not awaited at the top level: the npm package runs the CLI as CommonJS (scripts/package.mjs).
  import('./program.js').catch((error: unknown) => {
    process.stderr.write(`deputy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
