/**
 * The app-server: one router shared by every connection, whatever carried it, and the parts it
 * loads on first need. `accept` turns a transport into a `Connection` whose requests go through
 * the method table (`@deputy/protocol`), the handshake and experimental gates, and the handlers;
 * `serve` accepts every connection of a listener. At start-up only the handshake's rows of the
 * tables are loaded (`@deputy/protocol/handshake`), so `initialize` is answered first of all. Any
 * other request loads the full method tables; the first request after the handshake also loads
 * the configuration when it was deferred and opens the engine (`engine-services.ts`). Until the
 * engine is open, a request waits for what it needs and for whatever is already loading, so
 * requests are handled in the order they arrived. Each request may schedule work for after its
 * response is queued (`afterResponse`). It opens no sockets itself.
 */
import type { ResolvedConfig } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { handshakeNotifications, handshakeRequests } from '@deputy/protocol/handshake';
import {
  Connection,
  RpcError,
  createDispatcher,
  toRpcError,
  unsupportedMethodError,
  type Dispatcher,
  type HandlerContext,
  type IncomingContext,
  type IncomingHandler,
  type Listener,
  type MethodHandler,
  type MethodSpec,
  type Transport,
} from '@deputy/rpc/core';
import type { RequestExtras } from './app-context.js';
import { ConnectionState, type TransportKind } from './connection-state.js';
import type { EngineServices } from './engine-services.js';
import { initializeHandlers } from './handlers/initialize.js';
import type { Handlers } from './handlers/types.js';
import { createLogger, type AppLogger } from './logger.js';
import { OnFirstNeed } from './on-first-need.js';
import { configWarning, remoteControlDisabled } from './project/lifecycle.js';
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
  /**
   * Told when the engine cannot be opened (a configuration that does not load, a store that does
   * not open), once the requests that waited for it have been answered with the error. The next
   * request tries again. Without it, the failure is logged.
   */
  onEngineError?: (error: unknown) => void;
}

function isDeferred(config: ResolvedConfig | DeferredConfig): config is DeferredConfig {
  return typeof (config as Partial<DeferredConfig>).load === 'function';
}

/** The whole contract, loaded on first need: the tables and the dispatcher over them. */
interface FullTables {
  readonly protocol: typeof AppServer;
  readonly dispatcher: Dispatcher;
}

/** See the module comment. */
export class DeputyAppServer {
  readonly #states = new WeakMap<Connection, ConnectionState>();
  readonly #connections = new Set<Connection>();
  readonly #listeners = new Set<Listener>();
  readonly #logger: AppLogger;
  readonly #router: Router;
  /** The `initialize` handler (the same in both dispatchers). */
  readonly #initialize: Handlers;
  /** Serves `initialize` until the full tables are loaded. */
  readonly #handshake: Dispatcher;
  readonly #tables: OnFirstNeed<FullTables>;
  readonly #engine: OnFirstNeed<EngineServices>;
  readonly #handler: IncomingHandler;
  /** Greeted connections that get the configuration's warnings once it is loaded. */
  readonly #awaitingWarnings = new Set<ConnectionState>();
  #config: ResolvedConfig | null;
  #isClosed = false;

  private constructor(private readonly options: AppServerOptions) {
    this.#logger = options.logger ?? createLogger('warn');
    this.#router = new Router(this.#logger);
    this.#config = isDeferred(options.config) ? null : options.config;
    this.#initialize = initializeHandlers({
      logger: this.#logger,
      home: options.config.home,
      stateOf: (connection) => this.#stateOf(connection),
      greet: (state) => this.#greet(state),
    });
    this.#handshake = createDispatcher(handshakeRequests, this.#initialize, {
      validateResults: options.validateOutput === true,
      logger: this.#logger,
      guard: (method, params, ctx) => this.#guard(method, params, ctx, null),
      notifications: { table: handshakeNotifications, handlers: { initialized: () => undefined } },
    });
    this.#tables = new OnFirstNeed(() => this.#loadTables());
    this.#engine = new OnFirstNeed(
      () => this.#open(),
      (error) => this.#engineFailed(error),
    );
    this.#handler = this.#buildHandler();
  }

  /**
   * Creates the server. The full tables load with the first request other than `initialize`, the
   * engine with the first request after a handshake; with `validateOutput` the tables load now.
   */
  static async start(options: AppServerOptions): Promise<DeputyAppServer> {
    const server = new DeputyAppServer(options);
    if (options.validateOutput) {
      const error = await server.#tables.start();
      if (error !== null) throw error;
    }
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
    const connection = new Connection(transport, {
      handler: this.#handler,
      logger: this.#logger,
      outboundSoftLimit: this.options.outboundSoftLimit,
      outboundHardLimit: kind === 'stdio' ? Infinity : this.options.outboundHardLimit,
    });
    const validateOutput = this.options.validateOutput ? this.#tables.value?.protocol : undefined;
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
    await Promise.all([...this.#listeners].map((l) => l.close().catch(() => undefined)));
    await Promise.all([...this.#connections].map((c) => c.close('server shutting down')));
    // An engine still opening is closed once it is open.
    await this.#engine.attempt;
    await this.#engine.value?.close();
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

  /**
   * Until the engine is open: waits for what a request needs (the engine for a request after the
   * handshake, the full tables for any request but `initialize`) and for whatever is already
   * loading, so it is not answered ahead of the requests that came before it. Returns the full
   * tables, or null when the handshake's are enough.
   */
  async #admit(method: string, state: ConnectionState): Promise<FullTables | null> {
    if (method !== 'initialize' && state.isInitialized) {
      const error = await this.#startEngine();
      // Reported once through onEngineError (or the log); each waiting request gets it as its error.
      if (error !== null) throw toRpcError(error);
    } else if (this.#engine.attempt) {
      await this.#engine.attempt;
    }
    if (method !== 'initialize' || this.#tables.attempt) {
      const error = await this.#tables.start();
      if (error !== null) throw toRpcError(error);
    }
    return this.#tables.value;
  }

  async #loadTables(): Promise<FullTables> {
    const { AppServer: protocol } = await import('@deputy/protocol');
    const forwarders: Record<string, MethodHandler<MethodSpec>> = {};
    for (const method of Object.keys(protocol.clientRequests)) {
      if (method !== 'initialize') forwarders[method] = (params, ctx) => this.#forward(method, params, ctx);
    }
    const dispatcher = createDispatcher(protocol.clientRequests, { ...forwarders, ...this.#initialize } as Handlers, {
      acceptedMethods: protocol.ACCEPTED_CLIENT_REQUEST_METHODS,
      validateResults: this.options.validateOutput === true,
      logger: this.#logger,
      guard: (method, params, ctx) => this.#guard(method, params, ctx, protocol),
      notifications: { table: protocol.clientNotifications, handlers: { initialized: () => undefined } },
    });
    return { protocol, dispatcher };
  }

  async #open(): Promise<EngineServices> {
    const startedAt = performance.now();
    const error = await this.#tables.start();
    if (error !== null) throw error;
    let config = this.#config;
    if (config === null) {
      config = await (this.options.config as DeferredConfig).load();
      this.#config = config;
      // Before any waiting request is answered, as if the configuration had been there at initialize.
      for (const state of this.#awaitingWarnings) this.#sendWarnings(state, config);
      this.#awaitingWarnings.clear();
    }
    const { openEngineServices } = await import('./engine-services.js');
    const engine = await openEngineServices({
      config,
      router: this.#router,
      logger: this.#logger,
      cwd: this.options.cwd ?? config.cwd,
      sandboxHiddenPaths: this.options.sandboxHiddenPaths ?? [],
      stateOf: (connection) => this.#stateOf(connection),
    });
    this.#logger.info('engine opened', { ms: Math.round(performance.now() - startedAt) });
    return engine;
  }

  /** The notifications that follow a successful `initialize`. */
  #greet(state: ConnectionState): void {
    this.#router.sendTo(state, remoteControlDisabled());
    if (this.#config) this.#sendWarnings(state, this.#config);
    else this.#awaitingWarnings.add(state);
  }

  #sendWarnings(state: ConnectionState, config: ResolvedConfig): void {
    for (const warning of config.warnings) this.#router.sendTo(state, configWarning(warning));
  }

  /** Hands a request to the engine's handler for its method, once the engine is open. */
  #forward(method: string, params: unknown, ctx: HandlerContext): unknown {
    const call = (engine: EngineServices): unknown => {
      const handler = engine.handlers[method as keyof Handlers] as MethodHandler<MethodSpec> | undefined;
      if (!handler) throw unsupportedMethodError(method);
      return handler(params, ctx);
    };
    // Once open, the handler starts in this same tick, exactly as a direct call would.
    const engine = this.#engine.value;
    if (engine) return call(engine);
    return this.#startEngine().then((error) => {
      const opened = this.#engine.value;
      if (!opened) throw toRpcError(error);
      return call(opened);
    });
  }

  #buildHandler(): IncomingHandler {
    return {
      handleRequest: async (request, ctx: IncomingContext) => {
        const after: Array<() => void> = [];
        const extras: RequestExtras = { afterResponse: (fn) => after.push(fn) };
        const context = { ...ctx, ...extras } as IncomingContext;
        try {
          const state = this.#stateOf(ctx.connection);
          const tables = this.#engine.value ? this.#tables.value : await this.#admit(request.method, state);
          if (!tables) return await this.#handshake.handleRequest(request, context);
          const { protocol, dispatcher } = tables;
          // A name the reference accepts but this server does not serve gets a well-formed error.
          if (!protocol.isClientRequestMethod(request.method) && protocol.isAcceptedClientRequestMethod(request.method)) {
            if (!state.isInitialized) throw RpcError.notInitialized();
            throw unsupportedMethodError(request.method);
          }
          return await dispatcher.handleRequest(request, context);
        } finally {
          // The connection queues the response in the microtasks that follow; this runs after.
          if (after.length > 0) setImmediate(() => after.forEach((fn) => this.#runSafely(fn)));
        }
      },
      // Both dispatchers know the same client notifications (`initialized`).
      handleNotification: (notification, ctx) => (this.#tables.value?.dispatcher ?? this.#handshake).handleNotification?.(notification, ctx),
    };
  }

  #guard(method: string, params: unknown, ctx: HandlerContext, protocol: typeof AppServer | null): void {
    const state = this.#stateOf(ctx.connection);
    if (method === 'initialize') {
      if (state.isInitialized) throw RpcError.alreadyInitialized();
      return;
    }
    if (!state.isInitialized) throw RpcError.notInitialized();
    const reason = protocol?.experimentalReasonOf(method as AppServer.ClientRequestMethod, params);
    if (reason !== undefined && !state.hasExperimentalApi) throw RpcError.experimentalRequired(reason);
  }

  #runSafely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.#logger.error('post-response work failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }
}
