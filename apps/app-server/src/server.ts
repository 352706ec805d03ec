/**
 * The app-server: one engine (runtime, thread manager), one router and one approval port shared
 * by every connection, whatever carried it. `accept` turns a transport into a `Connection` whose
 * requests go through the method table (`@deputy/protocol`), the handshake and experimental
 * gates, and the handlers; `serve` accepts every connection of a listener. Each request may
 * schedule work for after its response is queued (`afterResponse`). It opens no sockets itself.
 */
import { EngineRuntime, ThreadManager, type ResolvedConfig } from '@deputy/engine';
import { AppServer } from '@deputy/protocol';
import {
  Connection,
  RpcError,
  createDispatcher,
  unsupportedMethodError,
  type HandlerContext,
  type IncomingContext,
  type IncomingHandler,
  type Listener,
  type Transport,
} from '@deputy/rpc';
import type { AppContext, RequestExtras } from './app-context.js';
import { ClientApprovals } from './client-approvals.js';
import { ConnectionState, type TransportKind } from './connection-state.js';
import { accountHandlers } from './handlers/account.js';
import { catalogHandlers } from './handlers/catalog.js';
import { configHandlers } from './handlers/config.js';
import { initializeHandlers } from './handlers/initialize.js';
import { modelHandlers } from './handlers/model.js';
import { threadStoreHandlers } from './handlers/thread-store.js';
import { threadHandlers } from './handlers/thread.js';
import { turnHandlers } from './handlers/turn.js';
import type { Handlers } from './handlers/types.js';
import { createLogger, type AppLogger } from './logger.js';
import { ModelCatalog } from './model-catalog.js';
import { Router } from './router.js';

/** Options of {@link DeputyAppServer.start}. */
export interface AppServerOptions {
  /** The resolved configuration (the demo provider's base URL already filled in). */
  config: ResolvedConfig;
  /** Defaults to a stderr logger at `warn`. */
  logger?: AppLogger;
  /** Check every result and notification against its schema (tests, dev mode). */
  validateOutput?: boolean;
  /** Default thread cwd and base of relative paths; defaults to `config.cwd`. */
  cwd?: string;
  /** Outbound queue limits of ws, unix and memory connections (stdio has no hard limit). */
  outboundSoftLimit?: number;
  outboundHardLimit?: number;
}

/** See the module comment. */
export class DeputyAppServer {
  readonly #states = new WeakMap<Connection, ConnectionState>();
  readonly #connections = new Set<Connection>();
  readonly #listeners = new Set<Listener>();
  readonly #handler: IncomingHandler;
  #isClosed = false;

  private constructor(
    readonly app: AppContext,
    private readonly options: AppServerOptions,
  ) {
    this.#handler = this.#buildHandler();
  }

  /** Opens the engine (thread store and index) and wires the router and approvals. */
  static async start(options: AppServerOptions): Promise<DeputyAppServer> {
    const logger = options.logger ?? createLogger('warn');
    const router = new Router(logger);
    const approvals = new ClientApprovals(router, logger);
    const runtime = await EngineRuntime.create({ config: options.config, approvals, source: 'vscode' });
    const manager = await ThreadManager.open(runtime);
    router.attach(manager, approvals);
    const server: DeputyAppServer = new DeputyAppServer(
      {
        manager,
        runtime,
        config: options.config,
        router,
        approvals,
        models: new ModelCatalog(options.config, logger),
        logger,
        cwd: options.cwd ?? options.config.cwd,
        stateOf: (connection) => {
          const state = server.#states.get(connection);
          if (!state) throw RpcError.internal('Internal error: unknown connection');
          return state;
        },
      },
      options,
    );
    return server;
  }

  /** The connections currently open. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Serves one transport; returns its per-connection state. */
  accept(transport: Transport, kind: TransportKind): ConnectionState {
    const connection = new Connection(transport, {
      handler: this.#handler,
      logger: this.app.logger,
      outboundSoftLimit: this.options.outboundSoftLimit,
      outboundHardLimit: kind === 'stdio' ? Infinity : this.options.outboundHardLimit,
    });
    const state = new ConnectionState(connection, kind, { validateOutput: this.options.validateOutput });
    this.#states.set(connection, state);
    this.#connections.add(connection);
    this.app.router.addConnection(state);
    this.app.logger.info('connection opened', { connection: connection.id, transport: transport.description });
    void connection.closed.then(() => {
      this.#connections.delete(connection);
      this.app.router.removeConnection(state);
      this.app.logger.info('connection closed', { connection: connection.id, transport: transport.description });
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
    this.app.router.detach();
    await this.app.manager.close();
  }

  #buildHandler(): IncomingHandler {
    const { app } = this;
    const handlers: Handlers = {
      ...initializeHandlers(app),
      ...threadHandlers(app),
      ...threadStoreHandlers(app),
      ...turnHandlers(app),
      ...accountHandlers(app),
      ...configHandlers(app),
      ...modelHandlers(app),
      ...catalogHandlers(app),
    };
    const dispatcher = createDispatcher(AppServer.clientRequests, handlers, {
      acceptedMethods: AppServer.ACCEPTED_CLIENT_REQUEST_METHODS,
      validateResults: this.options.validateOutput === true,
      logger: app.logger,
      guard: (method, params, ctx) => this.#guard(method, params, ctx),
      notifications: { table: AppServer.clientNotifications, handlers: { initialized: () => undefined } },
    });
    return {
      handleRequest: async (request, ctx: IncomingContext) => {
        const after: Array<() => void> = [];
        const extras: RequestExtras = { afterResponse: (fn) => after.push(fn) };
        try {
          // A name the reference accepts but this server does not serve gets a well-formed error.
          if (!AppServer.isClientRequestMethod(request.method) && AppServer.isAcceptedClientRequestMethod(request.method)) {
            if (!app.stateOf(ctx.connection).isInitialized) throw RpcError.notInitialized();
            throw unsupportedMethodError(request.method);
          }
          return await dispatcher.handleRequest(request, { ...ctx, ...extras } as IncomingContext);
        } finally {
          // The connection queues the response in the microtasks that follow; this runs after.
          if (after.length > 0) setImmediate(() => after.forEach((fn) => this.#runSafely(fn)));
        }
      },
      handleNotification: (notification, ctx) => dispatcher.handleNotification?.(notification, ctx),
    };
  }

  #guard(method: string, params: unknown, ctx: HandlerContext): void {
    const state = this.app.stateOf(ctx.connection);
    if (method === 'initialize') {
      if (state.isInitialized) throw RpcError.alreadyInitialized();
      return;
    }
    if (!state.isInitialized) throw RpcError.notInitialized();
    const reason = AppServer.experimentalReasonOf(method as AppServer.ClientRequestMethod, params);
    if (reason !== undefined && !state.hasExperimentalApi) throw RpcError.experimentalRequired(reason);
  }

  #runSafely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.app.logger.error('post-response work failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }
}
