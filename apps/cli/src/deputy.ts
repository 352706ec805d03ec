#!/usr/bin/env node
/**
 * The `deputy` binary. `deputy app-server` and `deputy mcp-server`, what hosts are configured to
 * run, start the server's bundle (`apps/<server>/bundle/main.js`, built by `pnpm build`) directly:
 * nothing of the command line (commander, the `exec` and `mcp` commands) is loaded before the
 * server answers `initialize`. Everything else, and the servers when their bundles are absent (a
 * tsc-only build), goes through program.ts. Only Node built-ins are imported here.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const subcommand = process.argv[2];
const bundleOf = (server: string) => fileURLToPath(new URL(`../../${server}/bundle/main.js`, import.meta.url));
// The bundle reads its arguments from argv[2…], as its own bin does. Literal specifiers, so the
// dependency rules see every import; the bundles are prebuilt JavaScript without types.
if (subcommand === 'app-server' && existsSync(bundleOf('app-server'))) {
  process.argv.splice(2, 1);
  // @ts-expect-error a prebuilt bundle (apps/app-server/bundle/main.js) has no type declarations
  await import('../../app-server/bundle/main.js');
} else if (subcommand === 'mcp-server' && existsSync(bundleOf('mcp-server'))) {
  process.argv.splice(2, 1);
  // @ts-expect-error a prebuilt bundle (apps/mcp-server/bundle/main.js) has no type declarations
  await import('../../mcp-server/bundle/main.js');
} else {
  await import('./program.js');
}
