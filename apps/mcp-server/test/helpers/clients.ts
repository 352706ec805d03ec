/**
 * Official SDK clients connected to the built server: the v1 `@modelcontextprotocol/sdk` Client
 * (2025-era; a transport wrapper can offer 2025-06-18) and the v2 `@modelcontextprotocol/client`
 * pinned to 2026-07-28, over stdio or Streamable HTTP. Each session records the notifications
 * it receives and kills its server by PID on `close()`.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Transport as V1Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { SERVER_MAIN } from './harness.js';

/** A notification as the client saw it. */
export interface SeenNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** Answers an elicitation; return a promise that never settles to leave it unanswered. */
export type ElicitAnswer = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** A connected v1 client. */
export interface V1Session {
  client: V1Client;
  notifications: SeenNotification[];
  /** Raw params of every `elicitation/create` the server sent. */
  elicitations: Record<string, unknown>[];
  /** `codex/event` msgs of one request id. */
  events(requestId: unknown): Record<string, unknown>[];
  /** Every message the server sent, as received. */
  inbound: Record<string, unknown>[];
  /** The protocol version the server answered `initialize` with. */
  negotiatedVersion(): string | undefined;
  close(): Promise<void>;
}

/** Options of a v1 stdio session. */
export interface V1Options {
  env: Record<string, string>;
  cwd?: string;
  args?: string[];
  /** Declare `capabilities.elicitation` (default true). */
  elicitation?: boolean;
  /** Answer for elicitations (default: accept). */
  elicit?: ElicitAnswer;
  /** Offer this protocol version instead of the SDK's latest. */
  protocolVersion?: string;
}

/** Connects a v1 client over stdio. */
export async function connectV1(options: V1Options): Promise<V1Session> {
  const transport = new V1StdioTransport({ command: process.execPath, args: [SERVER_MAIN, ...(options.args ?? [])], env: options.env, cwd: options.cwd, stderr: 'pipe' });
  const session = await attachV1(options.protocolVersion ? offering(transport, options.protocolVersion) : transport, options);
  return {
    ...session,
    close: async () => {
      const pid = transport.pid;
      await session.client.close().catch(() => undefined);
      killPid(pid);
    },
  };
}

/** Connects a v1 client over Streamable HTTP (the server process is the caller's). */
export async function connectV1Http(url: string, token: string | null, options: Omit<V1Options, 'env' | 'args'> = {}): Promise<V1Session> {
  const transport = new V1HttpTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  const session = await attachV1(transport, options);
  return { ...session, close: () => session.client.close().catch(() => undefined) };
}

async function attachV1(transport: V1Transport, options: Pick<V1Options, 'elicitation' | 'elicit'>): Promise<Omit<V1Session, 'close'>> {
  const inbound: Record<string, unknown>[] = [];
  sniff(transport, inbound);
  const client = new V1Client({ name: 'deputy-test-v1', version: '1.0.0' }, { capabilities: options.elicitation === false ? {} : { elicitation: {} } });
  const notifications: SeenNotification[] = [];
  const elicitations: Record<string, unknown>[] = [];
  client.fallbackNotificationHandler = async (n) => void notifications.push(n as SeenNotification);
  if (options.elicitation !== false) {
    client.setRequestHandler(ElicitRequestSchema, async (request: ElicitRequest) => {
      elicitations.push(request.params as Record<string, unknown>);
      return (await (options.elicit ?? (async () => ({ action: 'accept', content: {} })))(request.params as Record<string, unknown>)) as never;
    });
  }
  await client.connect(transport);
  return {
    client,
    notifications,
    elicitations,
    inbound,
    negotiatedVersion: () => (inbound.find((m) => (m.result as { protocolVersion?: string } | undefined)?.protocolVersion)?.result as { protocolVersion: string } | undefined)?.protocolVersion,
    events: (requestId) =>
      notifications.filter((n) => n.method === 'codex/event' && (n.params?._meta as { requestId?: unknown })?.requestId === requestId).map((n) => n.params?.msg as Record<string, unknown>),
  };
}

/** Records every inbound message before the client sees it. */
function sniff(transport: V1Transport, inbound: Record<string, unknown>[]): void {
  let handler: V1Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: V1Transport['onmessage']) => {
      handler = next
        ? (message, extra) => {
            inbound.push(message as Record<string, unknown>);
            next(message, extra);
          }
        : next;
    },
  });
}

/** Wraps a transport so `initialize` offers `version` (the v1 client always offers its latest). */
function offering(transport: V1Transport, version: string): V1Transport {
  const send = transport.send.bind(transport);
  transport.send = (message, opts) => {
    if ('method' in message && message.method === 'initialize' && message.params) message.params.protocolVersion = version;
    return send(message, opts);
  };
  return transport;
}

/** A connected v2 client on the 2026-07-28 revision. */
export interface V2Session {
  client: V2Client;
  notifications: SeenNotification[];
  elicitations: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Options of a v2 session. */
export interface V2Options {
  elicitation?: boolean;
  elicit?: ElicitAnswer;
  /** Hand input-required results to the caller instead of answering them (manual mode). */
  manual?: boolean;
}

/** Connects a v2 client pinned to 2026-07-28 over stdio. */
export async function connectV2(env: Record<string, string>, cwd: string | undefined, options: V2Options = {}, args: string[] = []): Promise<V2Session> {
  const transport = new V2StdioTransport({ command: process.execPath, args: [SERVER_MAIN, ...args], env, cwd, stderr: 'pipe' });
  const session = await attachV2(transport, options);
  return {
    ...session,
    close: async () => {
      const pid = transport.pid;
      await session.client.close().catch(() => undefined);
      killPid(pid);
    },
  };
}

/** Connects a v2 client pinned to 2026-07-28 over Streamable HTTP. */
export async function connectV2Http(url: string, token: string | null, options: V2Options = {}): Promise<V2Session> {
  const transport = new V2HttpTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  const session = await attachV2(transport, options);
  return { ...session, close: () => session.client.close().catch(() => undefined) };
}

async function attachV2(transport: V2StdioTransport | V2HttpTransport, options: V2Options): Promise<Omit<V2Session, 'close'>> {
  const client = new V2Client(
    { name: 'deputy-test-v2', version: '1.0.0' },
    {
      capabilities: options.elicitation === false ? {} : { elicitation: {} },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      ...(options.manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  const notifications: SeenNotification[] = [];
  const elicitations: Record<string, unknown>[] = [];
  client.fallbackNotificationHandler = async (n) => void notifications.push(n as SeenNotification);
  if (options.elicitation !== false) {
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitations.push(request.params as Record<string, unknown>);
      return (await (options.elicit ?? (async () => ({ action: 'accept', content: {} })))(request.params as Record<string, unknown>)) as never;
    });
  }
  await client.connect(transport);
  return { client, notifications, elicitations };
}

function killPid(pid: number | null | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already exited
  }
}
