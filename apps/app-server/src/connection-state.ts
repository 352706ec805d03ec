/**
 * Per-connection state: whether `initialize` succeeded, the client's identity and opt-ins
 * (`experimentalApi`, `optOutNotificationMethods`), the threads it is subscribed to, and the
 * only way the server talks to the client outside responses: `notify` (skipped before
 * initialize and for opted-out methods) and `request` (server→client requests, whose per-connection
 * integer id it tracks so `serverRequest/resolved` can name it). It knows no method semantics.
 */
import type { AppServer } from '@deputy/protocol';
import type { Connection } from '@deputy/rpc/core';
import { isCurrentClient, NOTIFICATIONS_SINCE_0171 } from './generations.js';

/** Which carrier a connection came in on (for logs). */
export type TransportKind = 'stdio' | 'ws' | 'unix' | 'memory';

/** A server→client request in flight on one connection. */
export interface SentRequest {
  /** The id this connection's counter gave it (what `serverRequest/resolved` reports). */
  readonly id: number;
  /** Settles with the client's result; rejects on an error response, abort or disconnect. */
  readonly result: Promise<unknown>;
}

/** The tables outgoing messages are checked against (the server's full method tables). */
export type OutputTables = Pick<typeof AppServer, 'serverNotifications' | 'serverRequests'>;

/** Options of {@link ConnectionState}. */
export interface ConnectionStateOptions {
  /** Parse every outgoing notification and server request against these first (tests, dev mode). */
  validateOutput?: OutputTables;
}

/** See the module comment. */
export class ConnectionState {
  /** True once `initialize` succeeded. */
  isInitialized = false;
  /** The connection opted into experimental methods and fields. */
  hasExperimentalApi = false;
  /** `clientInfo` from `initialize`. */
  clientInfo: AppServer.ClientInfo | null = null;
  /** The client speaks the current (0.169+) protocol (`generations.ts`). */
  isCurrentClient = false;
  /** Thread ids this connection receives turn and item events for. */
  readonly subscriptions = new Set<string>();
  readonly #optOut = new Set<string>();
  readonly #validate: OutputTables | undefined;
  #nextRequestId = 0;

  constructor(
    readonly connection: Connection,
    readonly transportKind: TransportKind,
    options: ConnectionStateOptions = {},
  ) {
    this.#validate = options.validateOutput;
  }

  /** Process-unique id of the underlying connection (for logs). */
  get id(): number {
    return this.connection.id;
  }

  /** True once the connection is closed. */
  get isClosed(): boolean {
    return this.connection.isClosed;
  }

  /** Records a successful `initialize`. */
  initialize(params: AppServer.InitializeParams): void {
    this.isInitialized = true;
    this.clientInfo = params.clientInfo;
    this.hasExperimentalApi = params.capabilities?.experimentalApi === true;
    this.isCurrentClient = isCurrentClient(params);
    for (const method of params.capabilities?.optOutNotificationMethods ?? []) this.#optOut.add(method);
  }

  /**
   * True when this connection receives `method` notifications: initialized, not opted out, and
   * of a generation that defines the method.
   */
  wants(method: string): boolean {
    if (NOTIFICATIONS_SINCE_0171.has(method) && !this.isCurrentClient) return false;
    return this.isInitialized && !this.#optOut.has(method) && !this.connection.isClosed;
  }

  /** Queues a notification unless the connection is not initialized or opted out of it. */
  notify<M extends AppServer.ServerNotificationMethod>(method: M, params: AppServer.NotificationParamsOf<M>): void {
    if (!this.wants(method)) return;
    this.#validate?.serverNotifications[method].params.parse(params);
    this.connection.notify(method, params);
  }

  /**
   * Sends a server→client request. Returns null when the connection is already closed. The id
   * mirrors the connection's own counter, which counts from 0 and advances on every request this
   * connection sends; every server request goes through here, so the two stay in step.
   */
  request<M extends AppServer.ServerRequestMethod>(method: M, params: AppServer.ServerRequestParamsOf<M>, signal: AbortSignal): SentRequest | null {
    if (this.connection.isClosed || signal.aborted) return null;
    this.#validate?.serverRequests[method].params.parse(params);
    const id = this.#nextRequestId++;
    const result = this.connection.request(method, params, { signal });
    return { id, result };
  }
}
