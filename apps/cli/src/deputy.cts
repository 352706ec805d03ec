#!/usr/bin/env node
/**
 * The `deputy` binary (`bin` of the package; `node apps/cli/dist/deputy.cjs` from a checkout).
 * `deputy app-server` and `deputy mcp-server`, what hosts are configured to run, start the
 * server's bundle (`apps/<server>/bundle/main.js`, built by `pnpm build`) directly: nothing of the
 * command line (commander, the `exec` and `mcp` commands) is loaded before the server answers
 * `initialize`. Everything else starts the CLI's own bundle (`apps/cli/bundle/`, program.ts and
 * what it loads, with V8's code cache), and goes through program.ts directly when the bundles are
 * absent (a tsc-only build). Only Node built-ins are loaded here.
 *
 * CommonJS, so Node starts it without its ES module loader (about 9 ms of every start here);
 * `deputy.js` runs this file for the paths written before it existed.
 */
import fs = require('node:fs');
import path = require('node:path');

const subcommand = process.argv[2];
const exists = (relative: string) => fs.existsSync(path.join(__dirname, relative));
// The bundle reads its arguments from argv[2…], as its own bin does. Its `main.js` is CommonJS
// (it loads the bundle's chunks with V8's code cache). Literal specifiers, so the dependency
// rules see every import.
if (subcommand === 'app-server' && exists('../../app-server/bundle/main.js')) {
  process.argv.splice(2, 1);
  require('../../app-server/bundle/main.js');
} else if (subcommand === 'mcp-server' && exists('../../mcp-server/bundle/main.js')) {
  process.argv.splice(2, 1);
  require('../../mcp-server/bundle/main.js');
} else if (exists('../bundle/main.js')) {
  require('../bundle/main.js');
} else {
  import('./program.js').catch((error: unknown) => {
    process.stderr.write(`deputy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
