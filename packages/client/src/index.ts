/**
 * @deputy/client: a typed client for the app-server (docs/client.md). `connect` opens one
 * connection over stdio (a spawned `deputy app-server`), `ws://` or a Unix socket, runs the
 * `initialize` handshake, and returns a {@link DeputyClient}: `request` checks the result against
 * the method's zod schema in `@deputy/protocol`, `notifications` gives async iterators (all, or
 * one thread's), and server requests (approvals, elicitations, dynamic tool calls) go to the
 * handlers given at connect time. `close` ends the connection (and the spawned process); there is
 * no reconnect.
 */
import { spawn as spawnProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import WebSocket from 'ws';
import type { z } from 'zod';
import { AppServer } from '@deputy/protocol';
import { AsyncQueue, Connection, RpcError, WebSocketTransport, createStdioTransport, type Transport } from '@deputy/rpc';

export { RpcError } from '@deputy/rpc';

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
  /** Where the server's stderr (its logs) goes; defaults to `inherit`. */
  stderr?: 'inherit' | 'ignore';
}

/** Options of {@link connect}: exactly one of `spawn`, `ws` and `unix`. */
export interface ConnectOptions {
  /** Spawn the server and speak over its stdin/stdout (`true`: `deputy app-server`). */
  spawn?: SpawnOptions | true;
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
  /** Sends a request; resolves with the parsed result, rejects with {@link RpcError} or {@link ResultValidationError}. */
  request<M extends Methods>(method: M, params: AppServer.ParamsInputOf<M>): Promise<AppServer.ResultOf<M>>;
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

async function openTransport(options: ConnectOptions): Promise<{ transport: Transport; child?: ChildProcessWithoutNullStreams }> {
  const chosen = [options.spawn, options.ws, options.unix].filter((x) => x !== undefined).length;
  if (chosen !== 1) throw new TypeError('connect: give exactly one of spawn, ws and unix');
  if (options.ws !== undefined) {
    return { transport: new WebSocketTransport(await openWebSocket(options.ws, options.token), { description: options.ws }) };
  }
  if (options.unix !== undefined) {
    const ws = await openWebSocket(`ws+unix://${options.unix}:/`, options.token);
    return { transport: new WebSocketTransport(ws, { description: `unix://${options.unix}` }) };
  }
  const spec = options.spawn === true ? {} : (options.spawn as SpawnOptions);
  const child = spawnProcess(spec.command ?? 'deputy', spec.args ?? ['app-server'], { cwd: spec.cwd, env: spec.env ?? process.env, stdio: ['pipe', 'pipe', spec.stderr ?? 'inherit'] }) as unknown as ChildProcessWithoutNullStreams;
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return { transport: createStdioTransport({ input: child.stdout, output: child.stdin }), child };
}

function stopChild(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin.end();
  });
}

/** Opens the connection, runs `initialize` + `initialized`, and returns the client. */
export async function connect(options: ConnectOptions): Promise<DeputyClient> {
  const { transport, child } = await openTransport(options);
  const subscribers = new Set<Subscriber>();
  const handlers = options.handlers ?? {};
  const connection = new Connection(transport, {
    outboundHardLimit: Infinity,
    handler: {
      async handleRequest(request) {
        if (!AppServer.isServerRequestMethod(request.method)) throw new RpcError(-32601, `Method not found: ${request.method}`);
        const spec = AppServer.serverRequests[request.method];
        const handler = handlers[request.method] as ((params: unknown) => unknown) | undefined;
        if (handler === undefined) throw new RpcError(-32601, `no handler for ${request.method}`);
        return spec.result.parse(await handler(spec.params.parse(request.params)));
      },
      handleNotification(message) {
        if (!AppServer.isServerNotificationMethod(message.method)) return;
        const parsed = AppServer.serverNotifications[message.method].params.safeParse(message.params ?? {});
        if (!parsed.success) return;
        const note = { method: message.method, params: parsed.data } as Notification;
        const threadId = threadIdOf(parsed.data);
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
  const request = async <M extends Methods>(method: M, params: AppServer.ParamsInputOf<M>): Promise<AppServer.ResultOf<M>> => {
    const raw = await connection.request(method, params);
    const parsed = AppServer.clientRequests[method].result.safeParse(raw);
    if (!parsed.success) throw new ResultValidationError(method, parsed.error.issues);
    return parsed.data as AppServer.ResultOf<M>;
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
    request,
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
