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

/** The bundle of each server subcommand, relative to this file (`apps/cli/dist/`). */
const SERVER_BUNDLES: Record<string, string> = {
  'app-server': '../../app-server/bundle/main.js',
  'mcp-server': '../../mcp-server/bundle/main.js',
};

const relative = SERVER_BUNDLES[process.argv[2] ?? ''];
const bundle = relative === undefined ? null : new URL(relative, import.meta.url);
if (bundle !== null && existsSync(fileURLToPath(bundle))) {
  // The bundle reads its arguments from argv[2…], as its own bin does.
  process.argv.splice(2, 1);
  await import(bundle.href);
} else {
  await import('./program.js');
}
