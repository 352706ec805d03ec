/**
 * A test client of the app-server over any `Transport` (in-memory pair, stdio pipes of a child,
 * WebSocket, Unix socket): sends requests and notifications, matches responses by id, keeps
 * every notification and server request it received in order, answers server requests through
 * a settable policy, and waits for conditions with bounded timeouts. Each message in both
 * directions goes through a `WireValidator` (the wire sniffer).
 */
import {
  isJsonRpcNotification,
  isJsonRpcRequest,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '@deputy/protocol';
import type { Transport } from '@deputy/rpc';
import { generationOf, type ClientGeneration } from '../../src/generation.js';
import { WireValidator } from './wire-validator.js';

/** A notification as received. */
export interface Received {
  method: string;
  params: Record<string, unknown>;
}

/** An error response raised as an exception by `call`. */
export class WireError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'WireError';
  }
}

/** Decides the answer to a server request: a result, or undefined to leave it unanswered. */
export type ServerRequestPolicy = (request: JsonRpcRequest) => unknown;

/** Options of {@link WireClient}. */
export interface WireClientOptions {
  /** Shared validator (several clients of one test may share it). */
  validator?: WireValidator;
  /** Name used in timeout messages. */
  name?: string;
}

/** See the module comment. */
export class WireClient {
  readonly validator: WireValidator;
  readonly name: string;
  /** The generation the server sees in this client's `initialize` (0.130 until then). */
  generation: ClientGeneration = '0.130';
  /** Every message received, in order. */
  readonly received: JsonRpcMessage[] = [];
  /** Server→client requests received, in order. */
  readonly serverRequests: JsonRpcRequest[] = [];
  policy: ServerRequestPolicy | null = null;
  readonly #pending = new Map<string, (response: JsonRpcResponse) => void>();
  readonly #waiters = new Set<() => void>();
  #nextId = 1;
  #isClosed = false;

  constructor(
    readonly transport: Transport,
    options: WireClientOptions = {},
  ) {
    this.validator = options.validator ?? new WireValidator();
    this.name = options.name ?? transport.description;
    void this.#read();
  }

  /** True once the transport closed. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  async #read(): Promise<void> {
    for await (const message of this.transport.messages()) {
      this.validator.serverSent(message, this.generation);
      this.received.push(message);
      if (isJsonRpcRequest(message)) {
        this.serverRequests.push(message);
        const answer = this.policy?.(message);
        if (answer !== undefined) void this.respond(message.id, answer);
      } else if (!isJsonRpcNotification(message)) {
        this.#pending.get(JSON.stringify(message.id))?.(message);
        this.#pending.delete(JSON.stringify(message.id));
      }
      this.#wake();
    }
    this.#isClosed = true;
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Sends any message as is (the validator records requests). */
  async send(message: JsonRpcMessage): Promise<void> {
    this.validator.clientSent(message);
    await this.transport.send(message);
  }

  /** Sends a request and resolves with its response (success or error). */
  async request(method: string, params?: unknown, id: RequestId = this.#nextId++): Promise<JsonRpcResponse> {
    const response = new Promise<JsonRpcResponse>((resolve) => this.#pending.set(JSON.stringify(id), resolve));
    await this.send(params === undefined ? { method, id } : { method, id, params });
    return this.#within(response, `response to ${method}`);
  }

  /** Sends a request; resolves with its result or rejects with a `WireError`. */
  async call<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
    const response = await this.request(method, params);
    if ('error' in response && response.error !== undefined) throw new WireError(response.error.code, response.error.message, response.error.data);
    return response.result as T;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.send(params === undefined ? { method } : { method, params });
  }

  /** Answers a server request. */
  respond(id: RequestId, result: unknown): Promise<void> {
    return this.send({ id, result });
  }

  /** `initialize` + `initialized`; returns the initialize result. */
  async initialize(
    capabilities: Record<string, unknown> = {},
    clientInfo: { name: string; version: string } = { name: 'wire-test', version: '0.0.1' },
  ): Promise<Record<string, unknown>> {
    const params = { clientInfo, capabilities };
    this.generation = generationOf(params);
    const result = await this.call('initialize', params);
    await this.notify('initialized');
    return result;
  }

  /** The notifications received so far, optionally only those of `method`. */
  notifications(method?: string): Received[] {
    return this.received
      .filter(isJsonRpcNotification)
      .filter((m) => method === undefined || m.method === method)
      .map((m) => ({ method: m.method, params: (m.params ?? {}) as Record<string, unknown> }));
  }

  /** Waits until `check` returns a value other than undefined/false; rejects after `timeoutMs`. */
  async waitUntil<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
    const first = check();
    if (first !== undefined && first !== false) return first;
    return this.#within(
      new Promise<T>((resolve, reject) => {
        const waiter = (): void => {
          const value = check();
          if (value !== undefined && value !== false) {
            this.#waiters.delete(waiter);
            resolve(value);
          } else if (this.#isClosed) {
            this.#waiters.delete(waiter);
            reject(new Error(`${this.name}: closed while waiting for ${what}`));
          }
        };
        this.#waiters.add(waiter);
      }),
      what,
      timeoutMs,
    );
  }

  /** Waits for a notification of `method` (matching `where`) received after index `from`. */
  waitForNotification(method: string, where: (params: Record<string, unknown>) => boolean = () => true, timeoutMs?: number): Promise<Received> {
    return this.waitUntil(() => this.notifications(method).find((n) => where(n.params)), `notification ${method}`, timeoutMs);
  }

  /** Waits for the n-th (1-based) server request of `method`. */
  waitForServerRequest(method: string, n = 1, timeoutMs?: number): Promise<JsonRpcRequest> {
    return this.waitUntil(() => this.serverRequests.filter((r) => r.method === method)[n - 1], `server request ${method} #${n}`, timeoutMs);
  }

  /** Waits until the transport closes. */
  waitClosed(timeoutMs?: number): Promise<true> {
    return this.waitUntil(() => this.#isClosed || undefined, 'close', timeoutMs);
  }

  async #within<T>(promise: Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name}: timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the transport. */
  async close(): Promise<void> {
    await this.transport.close();
  }
}
