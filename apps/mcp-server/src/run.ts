/**
 * `runMcpServer(argv)`: the whole server process minus `process.exit` — parse the command line,
 * serve stdio (default) or Streamable HTTP (`--listen`), stop on stdin EOF (stdio) or
 * SIGTERM/SIGINT, close the engine, and return the exit code. Stdout carries protocol only;
 * everything else goes to stderr.
 */
import { McpApp } from './app.js';
import { parseMcpServerArgs, USAGE, UsageError, type McpServerArgs } from './cli-args.js';
import { createLogger, type Logger } from './log.js';
import { buildServer, SERVER_VERSION } from './server.js';
import { StrictStdioServerTransport } from './transport/strict-stdio.js';

/** Streams and environment of the process (replaceable in tests). */
export interface ServerIo {
  stdin: NodeJS.ReadableStream & import('node:stream').Readable;
  stdout: NodeJS.WritableStream & import('node:stream').Writable;
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** How long shutdown may take after a signal before the process gives up waiting. */
const SHUTDOWN_GRACE_MS = 1_000;

/** Runs the MCP server until its input ends or a signal arrives; resolves with the exit code. */
export async function runMcpServer(argv: string[], io: ServerIo = defaultIo()): Promise<number> {
  let args: McpServerArgs;
  try {
    args = parseMcpServerArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`deputy mcp-server: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stderr.write(USAGE);
    return 0;
  }
  if (args.version) {
    io.stderr.write(`deputy-mcp-server ${SERVER_VERSION}\n`);
    return 0;
  }
  const log = createLogger(io.env.DEPUTY_LOG, (line) => void io.stderr.write(line));
  const app = new McpApp({ overrides: args.overrides, profile: args.profile, env: io.env, cwd: io.cwd, transport: args.listen === undefined ? 'stdio' : 'http', log });
  // Installed for the whole run and removed only after the engine closed: a second SIGTERM/SIGINT
  // during shutdown is absorbed instead of killing the process before the turns' ends are written.
  const signal = waitForSignal(log);
  try {
    return args.listen === undefined ? await runStdio(app, io, log, signal.promise) : await runHttp(app, args, args.listen, io, log, signal.promise);
  } finally {
    await withGrace(app.close());
    signal.dispose();
  }
}

async function runStdio(app: McpApp, io: ServerIo, log: Logger, stopped: Promise<void>): Promise<number> {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const transport = new StrictStdioServerTransport(io.stdin, io.stdout, { log: (m) => log.warn(m) });
  const handle = serveStdio((ctx) => buildServer(app, ctx), { transport, onerror: (e) => log.debug(`stdio: ${e.message}`) });
  await Promise.race([transport.closed, stopped]);
  await withGrace(handle.close());
  return 0;
}

async function runHttp(app: McpApp, args: McpServerArgs, rawUrl: string, io: ServerIo, log: Logger, stopped: Promise<void>): Promise<number> {
  const { parseListenUrl } = await import('./transport/listen-url.js');
  let listen;
  try {
    listen = parseListenUrl(rawUrl);
  } catch (error) {
    io.stderr.write(`deputy mcp-server: ${(error as Error).message}\n`);
    return 2;
  }
  if (!listen.isLoopback && args.insecureNoAuth) {
    io.stderr.write(`deputy mcp-server: refusing to listen on ${listen.host} without a bearer token; drop --insecure-no-auth or bind 127.0.0.1\n`);
    return 2;
  }
  let host;
  try {
    host = await app.host();
  } catch (error) {
    io.stderr.write(`deputy mcp-server: ${(error as Error).message}\n`);
    return 1;
  }
  let token: string | null = null;
  if (!args.insecureNoAuth) {
    const { defaultTokenFile, loadOrCreateToken } = await import('./transport/auth-token.js');
    const file = host.settings.token_file ?? defaultTokenFile(host.config.home);
    token = (await loadOrCreateToken(file)).token;
    // Where the token is, never the token: stderr ends up in logs other users can read.
    io.stderr.write(`deputy mcp-server: bearer token kept in ${file} (send it as "Authorization: Bearer <token>")\n`);
  }
  const { serveHttp } = await import('./transport/http.js');
  let listener;
  try {
    listener = await serveHttp({
      listen,
      token,
      factory: (ctx) => buildServer(app, ctx),
      log,
      sessionIdleMs: host.settings.http_session_idle_seconds * 1000,
      maxSessions: host.settings.http_max_sessions,
    });
  } catch (error) {
    io.stderr.write(`deputy mcp-server: cannot listen on ${rawUrl}: ${(error as Error).message}\n`);
    return 1;
  }
  io.stderr.write(`deputy mcp-server: listening on ${listener.url}${token === null ? ' (no authentication)' : ''}\n`);
  await stopped;
  await withGrace(listener.close());
  return 0;
}

/** Resolves on the first SIGTERM/SIGINT; later ones are logged and ignored until `dispose()`. */
function waitForSignal(log: Logger): { promise: Promise<void>; dispose(): void } {
  let resolve = (): void => undefined;
  let seen = false;
  const promise = new Promise<void>((r) => (resolve = r));
  const onSignal = (name: NodeJS.Signals): void => {
    if (seen) return log.warn(`${name} again: already shutting down`);
    seen = true;
    resolve();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    promise,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

function withGrace(work: Promise<unknown>): Promise<void> {
  return Promise.race([work.then(() => undefined, () => undefined), new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
}

function defaultIo(): ServerIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}
