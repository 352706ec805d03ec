#!/usr/bin/env node
/**
 * The `deputy-app-server` binary: runs the app-server with the process's arguments and exits
 * with its code. Exiting explicitly makes stdin EOF end the process promptly even while stray
 * handles (a slow child process, a socket in TIME_WAIT) would keep the event loop alive.
 */
import { runAppServer } from './run.js';

runAppServer(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`deputy app-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
