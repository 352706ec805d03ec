/**
 * `deputy app-server`: parses the command line, refuses a non-loopback WebSocket bind without
 * auth, opens every listener (`--ws-auth` guards the ws and the unix listeners alike), prints one
 * `listening on` line per listener on stderr, plus a warning when a Unix socket sits in a
 * directory other users can write, and serves
 * until stdin reaches EOF (stdio mode), a SIGINT/SIGTERM arrives, or a caller's signal aborts.
 * Start-up stays lean: the configuration is loaded from the home together with the engine, by the
 * first request after `initialize` (the engine runs the offline demo model itself when that is the
 * provider, from its first model request); a configuration that does not load then ends the
 * server with exit code 1. Returns the process exit code; never calls `process.exit`.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '@deputy/engine';
import {
  createStdioListener,
  createWsAuthenticator,
  formatWsUrl,
  isLoopbackHost,
  parseListenUrl,
  resolveWsAuthFlags,
  type ListenTarget,
  type Listener,
  type WsAuthenticator,
} from '@deputy/rpc/core';
import { parseAppServerArgs, USAGE, UsageError, type AppServerArgs } from './cli-args.js';
import type { TransportKind } from './connection-state.js';
import { APP_SERVER_VERSION, deputyHomeOf } from './identity.js';
import { capYoungGeneration, startIdleGc } from './idle-gc.js';
import { createLogger, parseLogLevel, type AppLogger } from './logger.js';
import { DeputyAppServer, type DeferredConfig } from './server.js';

/** Where `runAppServer` reads and writes besides the listeners (tests substitute these). */
export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Receives help, version (stdout) … */
  stdout?: (text: string) => void;
  /** … and banners and errors (stderr). */
  stderr?: (text: string) => void;
  /** Stops the server when aborted (in addition to SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

interface Opened {
  listener: Listener;
  kind: TransportKind;
  url: string;
  /** Printed after the banner (a Unix socket in a shared directory). */
  warnings?: readonly string[];
}

/**
 * The configuration as the server loads it on first need: from the home, with the command line's
 * overrides and profile (once it has loaded, it is not loaded again); its warnings are logged, and
 * the offline demo model is announced when it is the provider.
 */
function deferredConfig(args: AppServerArgs, home: string, options: Required<Omit<RunOptions, 'signal'>>, logger: AppLogger): DeferredConfig {
  return {
    home,
    async load(): Promise<ResolvedConfig> {
      const { loadConfig } = await import('@deputy/engine');
      const config = await loadConfig({ home, cwd: options.cwd, overrides: args.configOverrides, profile: args.profile, env: options.env });
      for (const warning of config.warnings) logger.warn(warning);
      if (config.modelProviderId === 'demo') {
        const why = config.usingDemoFallback ? 'no model provider configured; ' : '';
        options.stderr(`deputy app-server: ${why}serving the built-in offline demo model (a scripted model, not a real one)\n`);
      }
      return config;
    },
  };
}

function checkBinds(targets: readonly ListenTarget[], auth: unknown): void {
  for (const target of targets) {
    if (target.kind === 'ws' && !isLoopbackHost(target.host) && auth === undefined) {
      throw new UsageError(
        `refusing to listen on ${formatWsUrl(target.host, target.port)} without authentication: a non-loopback WebSocket bind needs --ws-auth`,
      );
    }
  }
}

async function openListener(target: ListenTarget, auth: WsAuthenticator | undefined, logger: AppLogger): Promise<Opened | null> {
  switch (target.kind) {
    case 'stdio':
      return { listener: createStdioListener({ logger }), kind: 'stdio', url: 'stdio://' };
    // The socket listeners (HTTP, ws) are loaded only when one is asked for.
    case 'ws': {
      const { listenWebSocket } = await import('@deputy/rpc');
      const ws = await listenWebSocket({ host: target.host, port: target.port, auth, logger });
      return { listener: ws, kind: 'ws', url: ws.url };
    }
    case 'unix': {
      const { listenUnixSocket } = await import('@deputy/rpc');
      // The default socket's directory is the server's own; a custom one is only checked.
      const unix = await listenUnixSocket({ path: target.path, isDedicatedDir: target.isDefault, auth, logger });
      return { listener: unix, kind: 'unix', url: `unix://${unix.path}`, warnings: unix.warnings };
    }
    case 'off':
      return null;
  }
}

function banner(opened: Opened): string {
  const lines = [`deputy app-server listening on ${opened.url}`];
  if (opened.kind === 'ws') {
    const http = opened.url.replace(/^ws:/, 'http:');
    lines.push(`  readyz: ${http}/readyz`, `  healthz: ${http}/healthz`);
  }
  for (const warning of opened.warnings ?? []) lines.push(`deputy app-server: warning: ${warning}`);
  return `${lines.join('\n')}\n`;
}

/** Serves until stdin EOF (with a stdio listener), a signal, or `options.signal`. */
async function serve(args: AppServerArgs, options: Required<Omit<RunOptions, 'signal'>> & Pick<RunOptions, 'signal'>): Promise<number> {
  const logger = createLogger(parseLogLevel(options.env.DEPUTY_LOG, 'warn'), options.stderr);
  const home = deputyHomeOf(options.env);
  const targets = args.listen.map((url) => parseListenUrl(url, { home, cwd: options.cwd }));
  const authConfig = resolveWsAuthFlags(args.wsAuth);
  checkBinds(targets, authConfig);
  const auth = authConfig ? await createWsAuthenticator(authConfig) : undefined;
  // Synchronous on purpose: nothing else runs yet, and it spares starting the thread pool.
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const config = deferredConfig(args, home, options, logger);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  // A configuration or store that does not open ends the server, as it did before it served.
  let failure = null as { error: unknown } | null;
  const onEngineError = (error: unknown): void => {
    failure ??= { error };
    onSignal();
  };
  // No sandboxed command may reach this server's own sockets or read its token files (the home,
  // with the default socket, is hidden by the engine anyway).
  const sandboxHiddenPaths = [
    ...targets.flatMap((t) => (t.kind === 'unix' ? [t.path] : [])),
    ...[args.wsAuth.wsTokenFile, args.wsAuth.wsSharedSecretFile].flatMap((f) => (f === undefined ? [] : [f])),
  ];
  const traceSetting = args.trace ?? (options.env.DEPUTY_TRACE?.trim() || undefined);
  const traceFile = traceSetting === undefined ? undefined : path.resolve(options.cwd, traceSetting);
  if (traceFile !== undefined) {
    options.stderr(`deputy app-server: tracing every JSON-RPC message to ${traceFile}\n`);
    // The trace holds what clients sent; sandboxed commands may not read it.
    sandboxHiddenPaths.push(traceFile);
  }
  const server = await DeputyAppServer.start({ config, logger, cwd: options.cwd, onEngineError, sandboxHiddenPaths, traceFile });
  // Memory grown by a burst goes back once the server is idle, and the young generation stays
  // at the size start-up gives it (`idle-gc.ts`).
  const stopIdleGc = startIdleGc();
  const stopYoungCap = capYoungGeneration();
  const opened: Opened[] = [];
  // `on`, not `once`, and removed only after the close: a second signal during shutdown is
  // absorbed (shutdown is idempotent) instead of killing the process before the turns' ends are written.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  options.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    for (const target of targets) {
      const o = await openListener(target, auth, logger);
      if (o) opened.push(o);
    }
    for (const o of opened) {
      options.stderr(banner(o));
      void server.serve(o.listener, o.kind, (state) => {
        // In stdio mode the process lives as long as stdin: EOF ends the server (exit 0).
        if (o.kind === 'stdio') void state.connection.closed.then(onSignal);
      });
    }
    if (!stop.signal.aborted) await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
    if (failure !== null) throw failure.error;
    return 0;
  } finally {
    options.signal?.removeEventListener('abort', onSignal);
    try {
      await Promise.all(opened.map((o) => o.listener.close().catch(() => undefined)));
      await server.close();
    } finally {
      stopIdleGc();
      stopYoungCap();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

/** Runs `deputy app-server` with the arguments after the command name; resolves with the exit code. */
export async function runAppServer(argv: readonly string[], options: RunOptions = {}): Promise<number> {
  const resolved = {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    stdout: options.stdout ?? ((text: string) => void process.stdout.write(text)),
    stderr: options.stderr ?? ((text: string) => void process.stderr.write(text)),
    signal: options.signal,
  };
  let args: AppServerArgs;
  try {
    args = parseAppServerArgs(argv);
  } catch (e) {
    resolved.stderr(`deputy app-server: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    resolved.stdout(USAGE);
    return 0;
  }
  if (args.version) {
    resolved.stdout(`deputy-app-server ${APP_SERVER_VERSION}\n`);
    return 0;
  }
  try {
    return await serve(args, resolved);
  } catch (e) {
    const isUsage = e instanceof UsageError || (e as Error).name === 'ListenUrlError' || (e as Error).name === 'WsAuthConfigError';
    resolved.stderr(`deputy app-server: ${(e as Error).message}\n`);
    return isUsage ? 2 : 1;
  }
}
