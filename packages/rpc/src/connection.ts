/**
 * One JSON-RPC peer over one `Transport`. Inbound requests go to a handler, each with its own
 * `AbortController` that is aborted when the connection closes; their results and thrown errors
 * (through `toRpcError`) become responses. Work a handler schedules with `afterResponse` runs
 * after its response is queued (on the next turn of the event loop), so whatever it sends
 * follows the response on the wire.
 * Outbound requests get this connection's own integer ids, counting from 0 on each connection
 * (docs/app-server.md, "Envelope and errors"), and are matched with their responses. Every
 * outbound message goes through a single write queue, which is bounded: past a soft limit new
 * client requests are answered -32001 `Server overloaded; retry later.`, and past a hard limit
 * the connection is closed, so one client that stops reading never stalls the others. The queue
 * is bounded in bytes too, when the transport can encode ahead (`Transport.encode`): past a soft
 * byte limit new requests are answered -32001; past the byte budget the queued messages are
 * dropped, each dropped response is answered -32001 instead, and the connection is closed with
 * code 1013 once those answers are out (or a grace ran out), so a few huge replies to a client
 * that stopped reading cannot grow the server's memory. In-flight requests are bounded the same
 * way (reference: codex-rs/app-server/src/transport/mod.rs). Inbound handling yields to the
 * event loop after a few milliseconds of one connection's backlog, so a flood on one connection
 * never keeps the others waiting for all of it. The connection knows no method names; the
 * dispatcher does.
 */
import {
  INTERNAL_ERROR,
  SERVER_OVERLOADED,
  isJsonRpcNotification,
  isJsonRpcRequest,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '@deputy/protocol/jsonrpc';
import { RpcError, toRpcError, type ErrorDialect } from './errors.js';
import { NOOP_LOGGER, type RpcLogger, type Transport } from './transport/transport.js';

/** What a handler gets with each inbound message. */
export interface IncomingContext {
  /** The connection the message came on (answer, notify, or ask it things). */
  connection: Connection;
  /** Aborted when the connection closes. */
  signal: AbortSignal;
}

/** What a handler gets with each inbound request. */
export interface RequestContext extends IncomingContext {
  /**
   * Runs `fn` after this request's response (result or error) is queued, on the next turn of the
   * event loop (at once if the response is already queued). A throw is logged.
   */
  afterResponse(fn: () => void): void;
}

/** Receives inbound requests and notifications (the dispatcher implements it). */
export interface IncomingHandler {
  /** Returns the result (or a promise of it) or throws; `undefined` is sent as `null`. */
  handleRequest(request: JsonRpcRequest, ctx: RequestContext): unknown;
  /** Optional; thrown errors are logged, never answered. */
  handleNotification?(notification: JsonRpcNotification, ctx: IncomingContext): void | Promise<void>;
}

/** Options of {@link Connection}. */
export interface ConnectionOptions {
  /** Where inbound requests and notifications go. */
  handler: IncomingHandler;
  /** Receives dropped-input and slow-consumer lines. */
  logger?: RpcLogger;
  /** Requests handled at once; more are answered -32001. Defaults to 128. */
  maxInFlightRequests?: number;
  /** Queued outbound messages from which new requests are answered -32001. Defaults to 256. */
  outboundSoftLimit?: number;
  /** Queued outbound messages past which the connection is closed. Defaults to 1024; `Infinity` disables (stdio). */
  outboundHardLimit?: number;
  /** Queued outbound bytes from which new requests are answered -32001. Defaults to 8 MiB. */
  outboundSoftBytes?: number;
  /**
   * Queued outbound bytes past which the queue is dropped (its responses answered -32001) and the
   * connection closed with code {@link SLOW_CONSUMER_CLOSE_CODE}. Defaults to 32 MiB; `Infinity`
   * disables (stdio, which cannot be reconnected).
   */
  outboundBudgetBytes?: number;
  /** Error wording for thrown errors; see `ErrorDialect`. */
  errorDialect?: ErrorDialect;
}

/** Options of {@link Connection.request}. */
export interface RequestOptions {
  /** Rejects the call with the signal's reason when aborted; a late response is then dropped. */
  signal?: AbortSignal;
  /** Rejects with {@link RequestTimeoutError} after this many milliseconds. */
  timeoutMs?: number;
}

/** The reason of aborted handlers and rejected calls once the connection is closed. */
export class ConnectionClosedError extends Error {
  constructor(reason: string) {
    super(`connection closed: ${reason}`);
    this.name = 'ConnectionClosedError';
  }
}

/** An outbound request got no response in time. */
export class RequestTimeoutError extends Error {
  constructor(method: string, timeoutMs: number) {
    super(`request ${method} timed out after ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** Default of `ConnectionOptions.outboundSoftBytes`. */
export const DEFAULT_OUTBOUND_SOFT_BYTES = 8 * 1024 * 1024;
/** Default of `ConnectionOptions.outboundBudgetBytes`. */
export const DEFAULT_OUTBOUND_BUDGET_BYTES = 32 * 1024 * 1024;
/** WebSocket close code of a connection closed over its byte budget: 1013 "Try Again Later". */
export const SLOW_CONSUMER_CLOSE_CODE = 1013;
/** Longest run of inbound message handling on one connection before it yields to the event loop. */
const SLICE_MS = 4;
/** How long the -32001 answers of a dropped queue may take to go out before the close. */
const OVER_BUDGET_GRACE_MS = 10_000;

/** One queued outbound message, encoded ahead when the transport can. */
interface Outgoing {
  message: JsonRpcMessage;
  text?: string;
  bytes: number;
}

interface PendingCall {
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

let nextConnectionId = 1;

/** See the module comment. Reading starts as soon as it is constructed. */
export class Connection {
  /** Process-unique, for logs and per-connection maps. */
  readonly id = nextConnectionId++;
  readonly transport: Transport;
  /** Resolves once the connection is closed and its handlers were aborted. */
  readonly closed: Promise<void>;
  readonly #handler: IncomingHandler;
  readonly #logger: RpcLogger;
  readonly #maxInFlight: number;
  readonly #softLimit: number;
  readonly #hardLimit: number;
  readonly #dialect: ErrorDialect | undefined;
  readonly #life = new AbortController();
  readonly #inFlight = new Set<AbortController>();
  readonly #pending = new Map<RequestId, PendingCall>();
  readonly #outbox: Outgoing[] = [];
  #outboxBytes = 0;
  readonly #softBytes: number;
  readonly #budgetBytes: number;
  /** Set once over budget: every request is answered -32001 until the close. */
  #isDraining = false;
  #flushWaiters: (() => void)[] = [];
  #isWriting = false;
  #isClosed = false;
  #nextRequestId = 0;
  #markClosed!: () => void;

  constructor(transport: Transport, options: ConnectionOptions) {
    this.transport = transport;
    this.#handler = options.handler;
    this.#logger = options.logger ?? NOOP_LOGGER;
    this.#maxInFlight = options.maxInFlightRequests ?? 128;
    this.#softLimit = options.outboundSoftLimit ?? 256;
    this.#hardLimit = options.outboundHardLimit ?? 1024;
    this.#softBytes = options.outboundSoftBytes ?? DEFAULT_OUTBOUND_SOFT_BYTES;
    this.#budgetBytes = options.outboundBudgetBytes ?? DEFAULT_OUTBOUND_BUDGET_BYTES;
    this.#dialect = options.errorDialect;
    this.closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
    void transport.closed.then(() => this.close('transport closed'));
    void this.#readLoop();
  }

  /** Aborted when the connection closes. */
  get signal(): AbortSignal {
    return this.#life.signal;
  }

  /** True once `close()` started. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Outbound messages not yet taken by the transport (including the one being written). */
  get outboundQueueLength(): number {
    return this.#outbox.length;
  }

  /** Encoded bytes of the outbound messages not yet taken by the transport (0 if it cannot encode ahead). */
  get outboundQueueBytes(): number {
    return this.#outboxBytes;
  }

  /** Inbound requests whose handler has not finished. */
  get inFlightRequests(): number {
    return this.#inFlight.size;
  }

  /**
   * Sends a request to the peer and resolves with its `result`; rejects with an `RpcError` for an
   * error response, a {@link ConnectionClosedError} when the connection closes first, the signal's
   * reason on abort, or a {@link RequestTimeoutError}.
   */
  request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.#isClosed) return Promise.reject(new ConnectionClosedError('already closed'));
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextRequestId++;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => settle(() => reject(signal?.reason));
      const settle = (finish: () => void): void => {
        if (!this.#pending.delete(id)) return;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        finish();
      };
      this.#pending.set(id, {
        resolve: (result) => settle(() => resolve(result)),
        reject: (error) => settle(() => reject(error)),
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => settle(() => reject(new RequestTimeoutError(method, timeoutMs))), timeoutMs);
      }
      this.#enqueue(params === undefined ? { method, id } : { method, id, params });
    });
  }

  /** Queues a notification; never waits for the peer (use `flush()` to wait for the queue). */
  notify(method: string, params?: unknown): void {
    this.#enqueue(params === undefined ? { method } : { method, params });
  }

  /** Resolves when the write queue is empty (or the connection closed). */
  flush(): Promise<void> {
    if (this.#outbox.length === 0 || this.#isClosed) return Promise.resolve();
    return new Promise((resolve) => this.#flushWaiters.push(resolve));
  }

  /**
   * Closes the connection: aborts in-flight handlers, rejects pending outbound calls, drops the
   * unsent queue (call `flush()` first to deliver it) and closes the transport.
   */
  async close(reason = 'closed', code?: number): Promise<void> {
    if (!this.#isClosed) {
      this.#isClosed = true;
      const error = new ConnectionClosedError(reason);
      this.#life.abort(error);
      for (const controller of this.#inFlight) controller.abort(error);
      for (const call of [...this.#pending.values()]) call.reject(error);
      this.#outbox.length = 0;
      this.#outboxBytes = 0;
      this.#releaseFlushWaiters();
      try {
        await this.transport.close(reason, code);
      } catch (e) {
        this.#logger.warn('transport close failed', { connection: this.id, error: String(e) });
      }
      this.#markClosed();
    }
    await this.closed;
  }

  async #readLoop(): Promise<void> {
    try {
      // Messages already read are taken in microtasks; a backlog of them (a burst read in one
      // chunk, a client flooding) would keep every other connection waiting until it is done, so
      // after SLICE_MS of work this connection yields to the event loop before the next message.
      let sliceStart = performance.now();
      for await (const message of this.transport.messages()) {
        if (this.#isClosed) break;
        this.#receive(message);
        if (performance.now() - sliceStart >= SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
    } catch (e) {
      this.#logger.error('reading from the transport failed', { connection: this.id, error: String(e) });
    }
    await this.close('peer went away');
  }

  #receive(message: JsonRpcMessage): void {
    if (isJsonRpcRequest(message)) this.#onRequest(message);
    else if (isJsonRpcNotification(message)) this.#onNotification(message);
    else this.#onResponse(message);
  }

  #onRequest(request: JsonRpcRequest): void {
    if (this.#isDraining || this.#outbox.length >= this.#softLimit || this.#outboxBytes >= this.#softBytes || this.#inFlight.size >= this.#maxInFlight) {
      this.#logger.warn('answered a request with overloaded', {
        connection: this.id,
        method: request.method,
        queued: this.#outbox.length,
        queuedBytes: this.#outboxBytes,
        inFlight: this.#inFlight.size,
      });
      this.#enqueue({ id: request.id, error: RpcError.overloaded().toJSON() });
      return;
    }
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const after: Array<() => void> = [];
    let isAnswered = false;
    const afterResponse = (fn: () => void): void => {
      if (isAnswered) this.#runAfterResponse(request.method, fn);
      else after.push(fn);
    };
    void (async () => {
      try {
        const result = await this.#handler.handleRequest(request, { connection: this, signal: controller.signal, afterResponse });
        this.#enqueue({ id: request.id, result: result === undefined ? null : result });
      } catch (e) {
        this.#enqueue({ id: request.id, error: this.#toWireError(request.method, e).toJSON() });
      } finally {
        this.#inFlight.delete(controller);
        isAnswered = true;
        // On the next turn of the event loop: a burst of requests read in one chunk is answered
        // first, before the work they scheduled (a turn's notifications) fills the write queue,
        // which would answer the rest of the burst "overloaded".
        if (after.length > 0) setImmediate(() => after.forEach((fn) => this.#runAfterResponse(request.method, fn)));
      }
    })();
  }

  #runAfterResponse(method: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.#logger.error('post-response work failed', { connection: this.id, method, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  #toWireError(method: string, e: unknown): RpcError {
    const error = toRpcError(e, { dialect: this.#dialect });
    if (error.code === INTERNAL_ERROR && !(e instanceof RpcError)) {
      this.#logger.error('request handler failed', {
        connection: this.id,
        method,
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      });
    }
    return error;
  }

  #onNotification(notification: JsonRpcNotification): void {
    const handle = this.#handler.handleNotification;
    if (!handle) return;
    void (async () => {
      try {
        await handle.call(this.#handler, notification, { connection: this, signal: this.#life.signal });
      } catch (e) {
        this.#logger.warn('notification handler failed', { connection: this.id, method: notification.method, error: String(e) });
      }
    })();
  }

  #onResponse(response: JsonRpcResponse): void {
    const call = this.#pending.get(response.id);
    if (!call) {
      this.#logger.warn('dropped a response to an unknown request id', { connection: this.id, id: response.id });
      return;
    }
    if (response.error !== undefined) {
      call.reject(new RpcError(response.error.code, response.error.message, response.error.data));
    } else {
      call.resolve(response.result);
    }
  }

  /** Encodes ahead when the transport can; an unencodable response becomes -32603. */
  #outgoing(message: JsonRpcMessage): Outgoing {
    if (!this.transport.encode) return { message, bytes: 0 };
    try {
      const text = this.transport.encode(message);
      return { message, text, bytes: text.length };
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      // A TypeError is an unencodable message (BigInt, cycle): drop it, keep the connection.
      this.#logger.error('dropped a message that cannot be encoded', { connection: this.id, error: e.message });
      if ('method' in message || message.error !== undefined) return { message, text: undefined, bytes: -1 };
      return this.#outgoing({ id: message.id, error: RpcError.internal('Internal error').toJSON() });
    }
  }

  #enqueue(message: JsonRpcMessage): void {
    if (this.#isClosed) return;
    if (this.#isDraining) {
      // Over budget and closing: only -32001 answers go out.
      if (!('method' in message)) this.#push(this.#outgoing(message.error?.code === SERVER_OVERLOADED ? message : { id: message.id, error: RpcError.overloaded().toJSON() }));
      return;
    }
    const entry = this.#outgoing(message);
    if (entry.bytes < 0) return;
    this.#outbox.push(entry);
    this.#outboxBytes += entry.bytes;
    // One message larger than the budget alone is not a slow reader: it is written.
    if (this.#outboxBytes > this.#budgetBytes && this.#outbox.length > 1 && !this.#isDraining) {
      this.#overBudget();
      return;
    }
    if (this.#outbox.length > this.#hardLimit) {
      this.#logger.warn('disconnecting a slow connection: outbound queue is full', {
        connection: this.id,
        transport: this.transport.description,
        queued: this.#outbox.length,
      });
      void this.close('outbound queue overflow');
      return;
    }
    if (!this.#isWriting) void this.#pump();
  }

  /**
   * The client is owed more than the budget: everything queued behind the message being written
   * is dropped, each dropped response is answered -32001 instead, and once those answers are out
   * (or the grace ran out) the connection closes with {@link SLOW_CONSUMER_CLOSE_CODE}.
   */
  #overBudget(): void {
    this.#isDraining = true;
    const owed = this.#outboxBytes;
    const dropped = this.#outbox.splice(this.#isWriting ? 1 : 0);
    this.#outboxBytes = this.#outbox.reduce((sum, e) => sum + e.bytes, 0);
    this.#logger.warn('disconnecting a slow connection: outbound byte budget exceeded', {
      connection: this.id,
      transport: this.transport.description,
      owedBytes: owed,
      budgetBytes: this.#budgetBytes,
      dropped: dropped.length,
    });
    for (const { message } of dropped) {
      if (!('method' in message)) this.#push(this.#outgoing({ id: message.id, error: RpcError.overloaded().toJSON() }));
    }
    const reason = `slow consumer: over the ${this.#budgetBytes}-byte outbound budget`;
    const timer = setTimeout(() => void this.close(reason, SLOW_CONSUMER_CLOSE_CODE), OVER_BUDGET_GRACE_MS);
    timer.unref();
    void this.flush().then(() => {
      clearTimeout(timer);
      void this.close(reason, SLOW_CONSUMER_CLOSE_CODE);
    });
  }

  #push(entry: Outgoing): void {
    if (entry.bytes < 0) return;
    this.#outbox.push(entry);
    this.#outboxBytes += entry.bytes;
    if (!this.#isWriting) void this.#pump();
  }

  async #pump(): Promise<void> {
    this.#isWriting = true;
    try {
      while (this.#outbox.length > 0 && !this.#isClosed) {
        const entry = this.#outbox[0] as Outgoing;
        try {
          if (entry.text !== undefined && this.transport.sendEncoded) await this.transport.sendEncoded(entry.text);
          else await this.transport.send(entry.message);
        } catch (e) {
          if (!(e instanceof TypeError)) throw e;
          // A TypeError is an unencodable message (BigInt, cycle): drop it, keep the connection.
          this.#logger.error('dropped a message that cannot be encoded', { connection: this.id, error: e.message });
          const message = entry.message;
          if (!('method' in message) && message.error === undefined) {
            this.#outbox.splice(1, 0, { message: { id: message.id, error: RpcError.internal('Internal error').toJSON() }, bytes: 0 });
          }
        }
        if (this.#outbox[0] === entry) {
          this.#outbox.shift();
          this.#outboxBytes -= entry.bytes;
        }
      }
    } catch (e) {
      if (!this.#isClosed) {
        this.#logger.warn('writing to the transport failed', { connection: this.id, error: String(e) });
        void this.close('write failed');
      }
    } finally {
      this.#isWriting = false;
      if (this.#outbox.length === 0) this.#releaseFlushWaiters();
    }
  }

  #releaseFlushWaiters(): void {
    const waiters = this.#flushWaiters;
    this.#flushWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
