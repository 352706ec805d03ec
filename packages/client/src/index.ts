/**
 * @deputy/client: a typed client for the app-server (docs/client.md). `connect` opens one
 * connection over stdio (a spawned `deputy app-server`, or streams the caller opened), `ws://` or
 * a Unix socket, runs the `initialize` handshake, and returns a {@link DeputyClient}: `request`
 * checks the result against the method's zod schema in `@deputy/protocol` (unless `validate` is
 * off, for servers the schemas do not model exactly), with an optional timeout or abort signal;
 * `requestTimed` also says how long the response took on the wire; `notifications` gives async
 * iterators (all, or one thread's); server requests (approvals, elicitations, dynamic tool calls)
 * go to the handlers given at connect time, the rest to `onServerRequest`. `close` ends the
 * connection (and the spawned process); there is no reconnect.
 */
import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';
import type { z } from 'zod';
import { AppServer, type JsonRpcMessage, type RequestId } from '@deputy/protocol';
import { AsyncQueue, Connection, RpcError, WebSocketTransport, createStdioTransport, type InboundFrame, type Transport } from '@deputy/rpc';

export { ConnectionClosedError, RequestTimeoutError, RpcError } from '@deputy/rpc';

type Methods = AppServer.ClientRequestMethod;
type NotificationMethod = AppServer.ServerNotificationMethod;
type ServerRequestMethod = AppServer.ServerRequestMethod;

/** One server notification, discriminated by `method`, with its params parsed. */
export type Notification = { [M in NotificationMethod]: { method: M; params: AppServer.NotificationParamsOf<M> } }[NotificationMethod];

/** Answers one kind of server request; a throw is sent back as a JSON-RPC error. */
export type ServerRequestHandler<M extends ServerRequestMethod> = (
  params: AppServer.ServerRequestParamsOf<M>,
) => z.input<(typeof AppServer.serverRequests)[M]['result']> | Promise<z.input<(typeof AppServer.serverRequests)[M]['result']>>;

/** Handlers of server requests, by method. A request without a handler is answered -32601. */
export type ServerRequestHandlers = { [M in ServerRequestMethod]?: ServerRequestHandler<M> };

/** How to start the server `spawn` talks to over stdio. */
export interface SpawnOptions {
  /** Defaults to `deputy`. */
  command?: string;
  /** Defaults to `['app-server']` (which listens on stdio). */
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the server's stderr (its logs) goes; defaults to `inherit`. `pipe`: read it from `client.child.stderr`. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** A server request without a typed handler (any method, known or not), as received. */
export interface RawServerRequest {
  method: string;
  params: unknown;
}

/** Options of {@link connect}: exactly one of `spawn`, `stdio`, `ws` and `unix`. */
export interface ConnectOptions {
  /** Spawn the server and speak over its stdin/stdout (`true`: `deputy app-server`). */
  spawn?: SpawnOptions | true;
  /**
   * Speak NDJSON over streams opened elsewhere, e.g. the stdout (`input`) and stdin (`output`) of
   * a server process the caller started and stops itself; `close()` stops reading `input` and
   * leaves both streams to the caller.
   */
  stdio?: { input: Readable; output: Writable };
  /** A `ws://host:port` URL. */
  ws?: string;
  /** The path of the server's Unix socket. */
  unix?: string;
  /** The bearer sent with the WebSocket upgrade (`--ws-auth capability-token` or a signed JWT). */
  token?: string;
  /** Sent in `initialize`; defaults to `{name: 'deputy-client', version: '0.1.0'}`. */
  clientInfo?: { name: string; version: string; title?: string | null };
  /** Sent as `initialize.capabilities.experimentalApi`. */
  experimentalApi?: boolean;
  handlers?: ServerRequestHandlers;
  /**
   * Answers the server requests `handlers` has no handler for, whatever their method (e.g. every
   * `…/requestApproval` of a server whose params the schemas do not model); its return value is
   * sent as the result unchecked, a throw as an error. Without it such requests are answered -32601.
   */
  onServerRequest?: (request: RawServerRequest) => unknown;
  /**
   * `false`: results, notification params and server-request params are passed on as received,
   * without checking them against the schemas, and notifications of methods the tables do not
   * know are delivered too. For servers the schemas do not model exactly (the reference Codex
   * app-server) and for measurements. The types stay those of the schemas. Defaults to `true`.
   */
  validate?: boolean;
  /** Rejects each request with `RequestTimeoutError` after this many milliseconds (per request: `RequestOptions.timeoutMs`). */
  timeoutMs?: number;
}

/** Options of one request. */
export interface RequestOptions {
  /** Rejects with `RequestTimeoutError` after this many milliseconds (overrides `ConnectOptions.timeoutMs`). */
  timeoutMs?: number;
  /** Rejects with the signal's reason when aborted; a late response is dropped. */
  signal?: AbortSignal;
}

/** A result with how long it took on the wire. */
export interface TimedResult<T> {
  result: T;
  /** Milliseconds from queuing the request to the arrival of the response's last byte (decoding and checking excluded). */
  ms: number;
  /** Size of the response frame in bytes. */
  bytes: number;
}

/** A result that does not match the method's schema. */
export class ResultValidationError extends Error {
  constructor(
    readonly method: string,
    readonly issues: unknown,
  ) {
    super(`the result of ${method} does not match its schema: ${JSON.stringify(issues)}`);
    this.name = 'ResultValidationError';
  }
}


/** A connected, initialized client. */
export interface DeputyClient {
  /** The `initialize` result. */
  readonly server: AppServer.ResultOf<'initialize'>;
  /** The spawned server's PID (spawn only). */
  readonly pid: number | undefined;
  /** The spawned server's process (spawn only); its `stderr` is readable with `spawn.stderr: 'pipe'`. */
  readonly child: ChildProcess | undefined;
  /**
   * Sends a request; resolves with the parsed result, rejects with {@link RpcError},
   * {@link ResultValidationError}, `RequestTimeoutError`, `ConnectionClosedError` or the signal's reason.
   */
  request<M extends Methods>(method: M, params: AppServer.ParamsInputOf<M>, options?: RequestOptions): Promise<AppServer.ResultOf<M>>;
  /** As `request`, and says how long the response took and how large it was (see {@link TimedResult}). */
  requestTimed<M extends Methods>(method: M, params: AppServer.ParamsInputOf<M>, options?: RequestOptions): Promise<TimedResult<AppServer.ResultOf<M>>>;
  /**
   * Notifications from now on, until the client closes or the loop breaks; with `threadId`, only
   * that thread's. Create the iterator before the request that causes them.
   */
  notifications(filter?: { threadId?: string }): AsyncIterable<Notification>;
  /** Ends the connection and, with `spawn`, the process (SIGKILL after 3 s). */
  close(): Promise<void>;
  /** Resolves once the connection is closed (by either side). */
  readonly closed: Promise<void>;
}

interface Subscriber {
  queue: AsyncQueue<Notification>;
  threadId: string | undefined;
}

function threadIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { threadId?: unknown; thread?: { id?: unknown } };
  if (typeof p.threadId === 'string') return p.threadId;
  return typeof p.thread?.id === 'string' ? p.thread.id : undefined;
}

function openWebSocket(url: string, token: string | undefined): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      ws.terminate();
      reject(new Error(`WebSocket upgrade to ${url} refused: HTTP ${res.statusCode}`));
    });
    ws.once('error', reject);
  });
}

type OnFrame = (message: JsonRpcMessage, frame: InboundFrame) => void;

async function openTransport(options: ConnectOptions, onFrame: OnFrame): Promise<{ transport: Transport; child?: ChildProcess }> {
  const chosen = [options.spawn, options.stdio, options.ws, options.unix].filter((x) => x !== undefined).length;
  if (chosen !== 1) throw new TypeError('connect: give exactly one of spawn, stdio, ws and unix');
  if (options.stdio !== undefined) return { transport: createStdioTransport({ ...options.stdio, onFrame }) };
  if (options.ws !== undefined) {
    return { transport: new WebSocketTransport(await openWebSocket(options.ws, options.token), { description: options.ws, onFrame }) };
  }
  if (options.unix !== undefined) {
    const ws = await openWebSocket(`ws+unix://${options.unix}:/`, options.token);
    return { transport: new WebSocketTransport(ws, { description: `unix://${options.unix}`, onFrame }) };
  }
  const spec = options.spawn === true ? {} : (options.spawn as SpawnOptions);
  const child = spawnProcess(spec.command ?? 'deputy', spec.args ?? ['app-server'], { cwd: spec.cwd, env: spec.env ?? process.env, stdio: ['pipe', 'pipe', spec.stderr ?? 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  // A server that exits before reading everything must not crash the client with EPIPE.
  child.stdin?.on('error', () => undefined);
  return { transport: createStdioTransport({ input: child.stdout as Readable, output: child.stdin as Writable, onFrame }), child };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      } catch {
        // Gone in between.
      }
    }, 3_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin?.end();
  });
}

/**
 * The transport as the connection sees it, learning the id of each request it encodes: the
 * connection encodes a request synchronously inside `Connection.request`, so right after that
 * call `lastRequestId` is the id the request went out with (how timed requests find their response).
 */
class IdTrackingTransport implements Transport {
  lastRequestId: RequestId | undefined;
  readonly sendEncoded?: (text: string) => Promise<void>;

  constructor(readonly inner: Transport) {
    const sendEncoded = inner.sendEncoded?.bind(inner);
    if (sendEncoded) this.sendEncoded = sendEncoded;
  }

  get closed(): Promise<void> {
    return this.inner.closed;
  }

  get description(): string {
    return this.inner.description;
  }

  encode(message: JsonRpcMessage): string {
    if ('method' in message && 'id' in message) this.lastRequestId = message.id;
    return this.inner.encode ? this.inner.encode(message) : JSON.stringify(message);
  }

  send(message: JsonRpcMessage): Promise<void> {
    return this.inner.send(message);
  }

  messages(): AsyncIterable<JsonRpcMessage> {
    return this.inner.messages();
  }

  close(reason?: string, code?: number): Promise<void> {
    return this.inner.close(reason, code);
  }
}

/** Opens the connection, runs `initialize` + `initialized`, and returns the client. */
export async function connect(options: ConnectOptions): Promise<DeputyClient> {
  const subscribers = new Set<Subscriber>();
  const handlers = options.handlers ?? {};
  const validate = options.validate ?? true;
  // Response frames awaited by timed requests, by id.
  const timed = new Map<RequestId, InboundFrame | null>();
  const onFrame: OnFrame = (message, frame) => {
    if (timed.size > 0 && !('method' in message) && timed.has(message.id)) timed.set(message.id, frame);
  };
  const opened = await openTransport(options, onFrame);
  const { child } = opened;
  const transport = new IdTrackingTransport(opened.transport);
  const connection = new Connection(transport, {
    outboundHardLimit: Infinity,
    handler: {
      async handleRequest(request) {
        const handler = AppServer.isServerRequestMethod(request.method) ? (handlers[request.method] as ((params: unknown) => unknown) | undefined) : undefined;
        if (handler === undefined) {
          if (options.onServerRequest) return await options.onServerRequest({ method: request.method, params: request.params });
          if (!AppServer.isServerRequestMethod(request.method)) throw new RpcError(-32601, `Method not found: ${request.method}`);
          throw new RpcError(-32601, `no handler for ${request.method}`);
        }
        if (!validate) return await handler(request.params);
        const spec = AppServer.serverRequests[request.method as ServerRequestMethod];
        return spec.result.parse(await handler(spec.params.parse(request.params)));
      },
      handleNotification(message) {
        let params: unknown = message.params ?? {};
        if (validate) {
          if (!AppServer.isServerNotificationMethod(message.method)) return;
          const parsed = AppServer.serverNotifications[message.method].params.safeParse(params);
          if (!parsed.success) return;
          params = parsed.data;
        }
        const note = { method: message.method, params } as Notification;
        const threadId = threadIdOf(params);
        for (const sub of subscribers) {
          if (sub.queue.ended) subscribers.delete(sub);
          else if (sub.threadId === undefined || sub.threadId === threadId) sub.queue.push(note);
        }
      },
    },
  });
  const closed = connection.closed.then(() => {
    for (const sub of subscribers) sub.queue.end();
    subscribers.clear();
  });
  const checked = <M extends Methods>(method: M, raw: unknown): AppServer.ResultOf<M> => {
    if (!validate) return raw as AppServer.ResultOf<M>;
    const parsed = AppServer.clientRequests[method].result.safeParse(raw);
    if (!parsed.success) throw new ResultValidationError(method, parsed.error.issues);
    return parsed.data as AppServer.ResultOf<M>;
  };
  const send = (method: string, params: unknown, requestOptions: RequestOptions): Promise<unknown> =>
    connection.request(method, params, { timeoutMs: requestOptions.timeoutMs ?? options.timeoutMs, signal: requestOptions.signal });
  const request = async <M extends Methods>(method: M, params: AppServer.ParamsInputOf<M>, requestOptions: RequestOptions = {}): Promise<AppServer.ResultOf<M>> =>
    checked(method, await send(method, params, requestOptions));
  const requestTimed = async <M extends Methods>(method: M, params: AppServer.ParamsInputOf<M>, requestOptions: RequestOptions = {}): Promise<TimedResult<AppServer.ResultOf<M>>> => {
    transport.lastRequestId = undefined;
    const sentAt = performance.now();
    const pending = send(method, params, requestOptions);
    const id = transport.lastRequestId;
    if (id !== undefined) timed.set(id, null);
    try {
      const raw = await pending;
      const frame = id === undefined ? null : (timed.get(id) ?? null);
      return { result: checked(method, raw), ms: (frame?.receivedAt ?? performance.now()) - sentAt, bytes: frame === null ? 0 : Buffer.byteLength(frame.text) };
    } finally {
      if (id !== undefined) timed.delete(id);
    }
  };
  const close = async (): Promise<void> => {
    await connection.close('client closed');
    if (child) await stopChild(child);
    await closed;
  };
  let server: AppServer.ResultOf<'initialize'>;
  try {
    server = await request('initialize', {
      clientInfo: options.clientInfo ?? { name: 'deputy-client', version: '0.1.0' },
      capabilities: options.experimentalApi ? { experimentalApi: true } : null,
    });
    connection.notify('initialized');
  } catch (error) {
    await close();
    throw error;
  }
  return {
    server,
    pid: child?.pid,
    child,
    request,
    requestTimed,
    notifications(filter = {}) {
      const sub: Subscriber = { queue: new AsyncQueue<Notification>(), threadId: filter.threadId };
      if (!connection.isClosed) subscribers.add(sub);
      else sub.queue.end();
      return sub.queue;
    },
    close,
    closed,
  };
}
