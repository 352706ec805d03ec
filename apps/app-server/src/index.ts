/**
 * @deputy/app-server: the Codex-compatible app-server (JSON-RPC over stdio, WebSocket and Unix
 * socket). `runAppServer` is the whole command (`deputy app-server …`); `DeputyAppServer` serves
 * transports in-process (tests, embedding).
 */
export { runAppServer, type RunOptions } from './run.js';
export { parseAppServerArgs, USAGE, UsageError, type AppServerArgs } from './cli-args.js';
export { DeputyAppServer, type AppServerOptions, type DeferredConfig } from './server.js';
export { ConnectionState, type TransportKind } from './connection-state.js';
export { createLogger, parseLogLevel, type AppLogger, type LogLevel } from './logger.js';
