/**
 * The app-server: listeners → connections → one dispatcher. `serve` accepts every connection of
 * a listener; `accept` wraps a transport in a `Connection` with its per-connection state, whose
 * requests take the request path (`request-path.ts`). The server also owns what the first request
 * after the handshake opens (the configuration when it was deferred, then the engine, whose
 * handlers then join the dispatcher; `engine-services.ts`) and the greeting that follows each
 * `initialize`. It opens no sockets itself.
 */
import type { ResolvedConfig } from '@deputy/engine';
import { Connection, RpcError, type Listener, type Transport } from '@deputy/rpc/core';
import { ConnectionState, type TransportKind } from './connection-state.js';
import type { EngineServices } from './engine-services.js';
import { initializeHandlers } from './handlers/initialize.js';
import { createLogger, type AppLogger } from './logger.js';
import { serverIdentity } from './installation.js';
import { OnFirstNeed } from './on-first-need.js';
import { configWarning, remoteControlDisabled } from './project/lifecycle.js';
import { RequestPath } from './request-path.js';
import { tracedTransport, WireTrace } from './trace.js';
import { Router } from './router.js';

/** A configuration loaded when the engine is first needed rather than before the server starts. */
export interface DeferredConfig {
  /** The Deputy home it is loaded from (`initialize` reports it before it is loaded). */
  readonly home: string;
  /** Loads it (starting whatever it needs, such as the demo model). Called again after a failure. */
  load(): Promise<ResolvedConfig>;
}

/** Options of {@link DeputyAppServer.start}. */
export interface AppServerOptions {
  /**
   * The resolved configuration (the demo provider's base URL already filled in), or how to load
   * it on first need.
   */
  config: ResolvedConfig | DeferredConfig;
  /** Defaults to a stderr logger at `warn`. */
  logger?: AppLogger;
  /** Check every result and notification against its schema (tests, dev mode). */
  validateOutput?: boolean;
  /** Default thread cwd and base of relative paths; defaults to the configuration's `cwd`. */
  cwd?: string;
  /**
   * Paths hidden from sandboxed commands besides the home: the server's Unix sockets and token
   * files, so no command can reach its own control plane or read its credentials.
   */
  sandboxHiddenPaths?: readonly string[];
  /** Outbound queue limits of ws, unix and memory connections (stdio has no hard limit). */
  outboundSoftLimit?: number;
  outboundHardLimit?: number;
  /** Outbound byte limits per connection (see `ConnectionOptions`); defaults 8 MiB and 32 MiB. */
  outboundSoftBytes?: number;
  outboundBudgetBytes?: number;
  /**
   * A loaded thread with no subscribed connection and no running turn is unloaded after this
   * long without activity (its rollout is complete on disk; `thread/resume` loads it again).
   * Defaults to 10 minutes; 0 keeps threads loaded until the server stops.
   */
  idleThreadUnloadMs?: number;
  /**
   * Told when the engine cannot be opened (a configuration that does not load, a store that does
   * not open), once the requests that waited for it have been answered with the error. The next
   * request tries again. Without it, the failure is logged.
   */
  onEngineError?: (error: unknown) => void;
  /** Append every JSON-RPC message in and out to this file (`trace.ts`); off when absent. */
  traceFile?: string;
}

function isDeferred(config: ResolvedConfig | DeferredConfig): config is DeferredConfig {
  return typeof (config as Partial<DeferredConfig>).load === 'function';
}

/** Default of `AppServerOptions.idleThreadUnloadMs`. */
export const DEFAULT_IDLE_THREAD_UNLOAD_MS = 10 * 60_000;

/** See the module comment. */
export class DeputyAppServer {
  readonly #states = new WeakMap<Connection, ConnectionState>();
  readonly #connections = new Set<Connection>();
  readonly #listeners = new Set<Listener>();
  readonly #logger: AppLogger;
  readonly #router: Router;
  readonly #path: RequestPath;
  readonly #engine: OnFirstNeed<EngineServices>;
  /** Greeted connections that get the configuration's warnings once it is loaded. */
  readonly #awaitingWarnings = new Set<ConnectionState>();
  #config: ResolvedConfig | null;
  readonly #trace: WireTrace | null;
  #isClosed = false;
  #idleSweep: NodeJS.Timeout | null = null;

  private constructor(private readonly options: AppServerOptions) {
    this.#logger = options.logger ?? createLogger('warn');
    this.#router = new Router(this.#logger);
    this.#trace = options.traceFile ? new WireTrace(options.traceFile) : null;
    this.#config = isDeferred(options.config) ? null : options.config;
    this.#engine = new OnFirstNeed(
      () => this.#open(),
      (error) => this.#engineFailed(error),
    );
    const stateOf = (connection: Connection): ConnectionState => this.#stateOf(connection);
    this.#path = new RequestPath({
      logger: this.#logger,
      validateResults: options.validateOutput === true,
      initialize: initializeHandlers({ logger: this.#logger, home: options.config.home, stateOf, greet: (state) => this.#greet(state) }),
      stateOf,
      engine: this.#engine,
      openEngine: () => this.#startEngine(),
    });
  }

  /**
   * Creates the server. The full tables load with the first request other than `initialize`, the
   * engine with the first request after a handshake; with `validateOutput` the tables load now.
   */
  static async start(options: AppServerOptions): Promise<DeputyAppServer> {
    const server = new DeputyAppServer(options);
    if (options.validateOutput) await server.#path.loadTables();
    return server;
  }

  /** The connections currently open. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** True once the engine is open. */
  get isEngineOpen(): boolean {
    return this.#engine.value !== null;
  }

  /** Serves one transport; returns its per-connection state. */
  accept(transport: Transport, kind: TransportKind): ConnectionState {
    let connectionId = 0;
    const carrier = this.#trace ? tracedTransport(transport, this.#trace, () => connectionId) : transport;
    const connection = new Connection(carrier, {
      handler: this.#path.dispatcher,
      logger: this.#logger,
      outboundSoftLimit: this.options.outboundSoftLimit,
      outboundHardLimit: kind === 'stdio' ? Infinity : this.options.outboundHardLimit,
      // stdio cannot be reconnected: over budget it only answers -32001 (docs/app-server.md "Limits").
      outboundSoftBytes: this.options.outboundSoftBytes,
      outboundBudgetBytes: kind === 'stdio' ? Infinity : this.options.outboundBudgetBytes,
    });
    connectionId = connection.id;
    const validateOutput = this.options.validateOutput ? this.#path.tables.value?.protocol : undefined;
    const state = new ConnectionState(connection, kind, { validateOutput });
    this.#states.set(connection, state);
    this.#connections.add(connection);
    this.#router.addConnection(state);
    this.#logger.info('connection opened', { connection: connection.id, transport: transport.description });
    void connection.closed.then(() => {
      this.#connections.delete(connection);
      this.#awaitingWarnings.delete(state);
      this.#router.removeConnection(state);
      this.#logger.info('connection closed', { connection: connection.id, transport: transport.description });
    });
    return state;
  }

  /** Accepts every connection of `listener` until it ends; resolves then. */
  async serve(listener: Listener, kind: TransportKind, onConnection?: (state: ConnectionState) => void): Promise<void> {
    this.#listeners.add(listener);
    for await (const transport of listener.connections()) {
      if (this.#isClosed) {
        await transport.close('server shutting down');
        continue;
      }
      const state = this.accept(transport, kind);
      onConnection?.(state);
    }
  }

  /** Stops listening, closes every connection, interrupts running turns and closes the store. */
  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    if (this.#idleSweep) clearInterval(this.#idleSweep);
    await Promise.all([...this.#listeners].map((l) => l.close().catch(() => undefined)));
    await Promise.all([...this.#connections].map((c) => c.close('server shutting down')));
    // An engine still opening is closed once it is open.
    await this.#engine.attempt;
    await this.#engine.value?.close();
    await this.#trace?.close();
  }

  #stateOf(connection: Connection): ConnectionState {
    const state = this.#states.get(connection);
    if (!state) throw RpcError.internal('Internal error: unknown connection');
    return state;
  }

  /** Opens the engine unless it is open or opening; settles with null, or with the error. */
  #startEngine(): Promise<unknown> {
    if (this.#isClosed) return Promise.resolve(RpcError.internal('Internal error: the server is shutting down'));
    return this.#engine.start();
  }

  #engineFailed(error: unknown): void {
    const report = this.options.onEngineError;
    // After the requests that waited have been answered with the error (microtasks from now).
    if (report) setImmediate(() => report(error));
    else this.#logger.error('could not open the engine', { error: error instanceof Error ? error.message : String(error) });
  }

  async #open(): Promise<EngineServices> {
    const startedAt = performance.now();
    const { protocol } = await this.#path.loadTables();
    let config = this.#config;
    if (config === null) {
      config = await (this.options.config as DeferredConfig).load();
      this.#config = config;
      // Before any waiting request is answered, as if the configuration had been there at initialize.
      for (const state of this.#awaitingWarnings) this.#sendWarnings(state, config);
      this.#awaitingWarnings.clear();
    }
    this.#router.routeBy(protocol.serverNotifications);
    const { openEngineServices } = await import('./engine-services.js');
    const engine = await openEngineServices({
      config,
      router: this.#router,
      logger: this.#logger,
      cwd: this.options.cwd ?? config.cwd,
      sandboxHiddenPaths: this.options.sandboxHiddenPaths ?? [],
      stateOf: (connection) => this.#stateOf(connection),
    });
    this.#path.serve(engine.handlers);
    this.#sweepIdleThreads(engine);
    this.#logger.info('engine opened', { ms: Math.round(performance.now() - startedAt) });
    return engine;
  }

  /** Unloads, now and then, the loaded threads nobody is subscribed to that have been idle long enough. */
  #sweepIdleThreads(engine: EngineServices): void {
    const idleMs = this.options.idleThreadUnloadMs ?? DEFAULT_IDLE_THREAD_UNLOAD_MS;
    if (idleMs <= 0) return;
    // When each thread was first seen without a subscriber or a turn: the idle time counts from
    // then too, so a thread loaded a moment ago for a reader is not dropped for its old activity.
    const unwatchedSince = new Map<string, number>();
    this.#idleSweep = setInterval(() => {
      const now = Date.now();
      const manager = engine.app.manager;
      const loaded = manager.loaded();
      for (const id of unwatchedSince.keys()) if (!manager.get(id)) unwatchedSince.delete(id);
      for (const thread of loaded) {
        if (thread.activeTurnId !== null || this.#router.subscribersOf(thread.id).length > 0) {
          unwatchedSince.delete(thread.id);
          continue;
        }
        const since = unwatchedSince.get(thread.id) ?? now;
        unwatchedSince.set(thread.id, since);
        if (now - since < idleMs || now - thread.updatedAtMs < idleMs) continue;
        unwatchedSince.delete(thread.id);
        this.#logger.info('unloading an idle thread nobody is subscribed to', { threadId: thread.id });
        void manager.unload(thread.id).catch((error: unknown) => this.#logger.warn('could not unload an idle thread', { threadId: thread.id, error: String(error) }));
      }
    }, Math.max(50, Math.min(idleMs / 4, 60_000)));
    this.#idleSweep.unref();
  }

  /** The notifications that follow a successful `initialize`. */
  #greet(state: ConnectionState): void {
    this.#router.sendTo(state, remoteControlDisabled(serverIdentity(this.options.config.home)));
    if (this.#config) this.#sendWarnings(state, this.#config);
    else this.#awaitingWarnings.add(state);
  }

  #sendWarnings(state: ConnectionState, config: ResolvedConfig): void {
    for (const warning of config.warnings) this.#router.sendTo(state, configWarning(warning));
  }
}
