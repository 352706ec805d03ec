/**
 * The app-server's request path after the connection: one dispatcher (`@deputy/rpc`) for every
 * connection, over the method tables of `@deputy/protocol`, which it loads on first need. At
 * start-up it holds only the handshake's rows (`@deputy/protocol/handshake`) and the `initialize`
 * handler, so `initialize` is answered before anything else loads. Admission runs first for each
 * request: until the engine is open, a request waits for what it needs (the full tables for any
 * request but `initialize`, the engine for a request after the handshake) and for whatever is
 * already loading, so requests are handled in the order they arrived. The gates run once params
 * are parsed: `Already initialized`, `Not initialized`, then the experimental capability. The
 * engine's handlers join the `initialize` handler when it opens (`serve`).
 */
import type { AppServer } from '@deputy/protocol';
import { handshakeNotifications, handshakeRequests } from '@deputy/protocol/handshake';
import {
  RpcError,
  createDispatcher,
  toRpcError,
  type Connection,
  type Dispatcher,
  type DispatcherTables,
  type HandlerContext,
  type RequestContext,
} from '@deputy/rpc/core';
import type { ConnectionState } from './connection-state.js';
import type { Handlers } from './handlers/types.js';
import type { AppLogger } from './logger.js';
import { OnFirstNeed } from './on-first-need.js';

/** The whole contract, loaded on first need. */
export interface FullTables {
  readonly protocol: typeof AppServer;
  /** What the dispatcher serves from once they are loaded. */
  readonly dispatch: DispatcherTables;
}

/** What the request path needs from the server. */
export interface RequestPathOptions {
  readonly logger: AppLogger;
  /** Check every result against its schema (tests, dev mode). */
  readonly validateResults: boolean;
  /** The `initialize` handler. */
  readonly initialize: Handlers;
  stateOf(connection: Connection): ConnectionState;
  /** The engine, opened on first need by the server (`value` once open). */
  readonly engine: Pick<OnFirstNeed<unknown>, 'value' | 'attempt'>;
  /** Opens the engine unless it is open or opening; settles with null, or with the error. */
  openEngine(): Promise<unknown>;
}

async function importTables(): Promise<FullTables> {
  const { AppServer: protocol } = await import('@deputy/protocol');
  const dispatch = {
    requests: protocol.clientRequests,
    acceptedMethods: protocol.ACCEPTED_CLIENT_REQUEST_METHODS,
    notifications: protocol.clientNotifications,
  };
  return { protocol, dispatch };
}

/** See the module comment. */
export class RequestPath {
  /** The full tables, loaded with the first request other than `initialize`. */
  readonly tables = new OnFirstNeed(importTables);
  readonly dispatcher: Dispatcher;
  /** Read by the dispatcher at each request: `initialize`, then the engine's too. */
  readonly #handlers: Handlers;

  constructor(private readonly options: RequestPathOptions) {
    this.#handlers = { ...options.initialize };
    this.dispatcher = createDispatcher(handshakeRequests, this.#handlers, {
      validateResults: options.validateResults,
      logger: options.logger,
      admit: (request, ctx) => (options.engine.value !== null ? this.tables.value?.dispatch ?? null : this.#wait(request.method, ctx)),
      guard: (method, params, ctx) => this.#guard(method, params, ctx),
      notifications: { table: handshakeNotifications, handlers: { initialized: () => undefined } },
    });
  }

  /** The full tables, loading them unless loaded or loading; rejects with the load's error. */
  async loadTables(): Promise<FullTables> {
    const error = await this.tables.start();
    if (error !== null) throw error;
    return this.tables.value as FullTables;
  }

  /** Serves `handlers` (the engine's) from now on. */
  serve(handlers: Handlers): void {
    Object.assign(this.#handlers, handlers);
  }

  /** Until the engine is open: waits for what the request needs and for whatever is loading. */
  async #wait(method: string, ctx: RequestContext): Promise<DispatcherTables | null> {
    if (method !== 'initialize' && this.options.stateOf(ctx.connection).isInitialized) {
      const error = await this.options.openEngine();
      // Reported once by the server; each waiting request gets it as its error.
      if (error !== null) throw toRpcError(error);
    } else if (this.options.engine.attempt) {
      await this.options.engine.attempt;
    }
    if (method !== 'initialize' || this.tables.attempt) {
      const error = await this.tables.start();
      if (error !== null) throw toRpcError(error);
    }
    return this.tables.value?.dispatch ?? null;
  }

  #guard(method: string, params: unknown, ctx: HandlerContext): void | Promise<void> {
    const state = this.options.stateOf(ctx.connection);
    if (method === 'initialize') {
      if (state.isInitialized) throw RpcError.alreadyInitialized();
      return;
    }
    if (!state.isInitialized) throw RpcError.notInitialized();
    const protocol = this.tables.value?.protocol;
    const reason = protocol?.isClientRequestMethod(method) ? protocol.experimentalReasonOf(method, params) : undefined;
    if (reason !== undefined && !state.hasExperimentalApi) throw RpcError.experimentalRequired(reason);
    // Admitted before an `initialize` that was answered meanwhile: the engine was not waited for.
    if (this.options.engine.value === null) return this.#openEngine();
  }

  async #openEngine(): Promise<void> {
    const error = await this.options.openEngine();
    if (error !== null) throw toRpcError(error);
  }
}
