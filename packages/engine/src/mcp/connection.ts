/**
 * One live connection to one configured MCP server, on the official client SDK: launch (stdio
 * with an allow-listed environment and a kept stderr tail, or Streamable HTTP with headers and a
 * bearer variable), the handshake with its start-up timeout, the tool listing (all pages), the
 * requests a server may send (roots, ping, elicitation handed to the owner) and its notifications. It does
 * not decide policy (approvals, naming, restarts); the manager does.
 */
import { Client, StreamableHTTPClientTransport, type AuthProvider, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { McpServerConfig } from './config.js';

/** Variables a stdio server inherits from Deputy's environment (when set). */
export const MCP_ENV_ALLOW_LIST = ['HOME', 'LANG', 'LC_ALL', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'] as const;
const STDERR_TAIL_LINES = 20;

/** What a connection reports back to its owner. */
export interface ConnectionHooks {
  /** The connection closed after start-up (the child exited, the session ended). */
  onClosed(reason: string): void;
  /** The server says its tool list changed. */
  onToolsChanged(): void;
  /** A log message from the server. */
  onLog(level: string, data: unknown): void;
  /** The roots to answer `roots/list` with. */
  roots(): { uri: string; name: string }[];
  /** A server's `elicitation/create`; `signal` aborts when the server cancels or the connection ends. */
  elicit(params: Record<string, unknown>, signal: AbortSignal): Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;
}

/** The environment of a stdio server: the allow-list, `env`, then `env_vars`. */
export function buildServerEnv(config: Extract<McpServerConfig['transport'], { type: 'stdio' }>, parent: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of MCP_ENV_ALLOW_LIST) {
    const value = parent[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, config.env);
  for (const name of config.envVars) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A file URL of a directory, as roots carry it. */
export function rootOf(path: string, name: string): { uri: string; name: string } {
  return { uri: pathToFileURL(path).href, name };
}

/** A started connection. */
/** Receives the progress notifications of one call. */
type ProgressCallback = (p: { progress: number; total?: number; message?: string }) => void;

export class McpConnection {
  readonly #client: Client;
  readonly #stderr: string[] = [];
  /** The first stdout line of a stdio server that is not JSON (the SDK skips such lines). */
  #stdoutNoise: string | null = null;
  /** Stops looking at a stdio server's stdout (once the handshake is over). */
  #unwatchStdout: () => void = () => undefined;
  #closedByUs = false;
  #exitCode: number | string | null = null;
  /**
   * The progress callbacks of running calls, by the progress token (a number, as the reference
   * sends) put in their `_meta`. Deputy
   * routes progress itself: the SDK forgets a call's progress handler when its response arrives,
   * before it runs the notification handlers queued just ahead of it, so the last progress of a
   * call was lost whenever it came in the same read as the response.
   */
  readonly #progress = new Map<string, ProgressCallback>();
  #progressTokens = 0;
  tools: Tool[] = [];

  private constructor(
    readonly config: McpServerConfig,
    client: Client,
  ) {
    this.#client = client;
  }

  /** The server's `initialize` instructions, if any. */
  get instructions(): string | undefined {
    return this.#client.getInstructions();
  }

  /** The server's declared capabilities. */
  get capabilities(): Record<string, unknown> {
    return (this.#client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  }

  /** The last stderr lines of a stdio server. */
  get stderrTail(): string {
    return this.#stderr.join('\n');
  }

  /**
   * Launches and handshakes, then lists the tools, all within the start-up timeout. Throws an
   * Error whose message is the REF start-up error text (with Deputy's command/exit/stderr tail).
   */
  static async start(
    config: McpServerConfig,
    cwd: string,
    version: string,
    hooks: ConnectionHooks,
    parentEnv: NodeJS.ProcessEnv,
    signal: AbortSignal,
    /** HTTP only: the OAuth token source (docs/mcp-client.md "OAuth"). */
    authProvider?: AuthProvider,
  ): Promise<McpConnection> {
    const client = new Client(
      { name: 'codex-mcp-client', title: 'Codex', version },
      // `url` too: URL-mode elicitations are forwarded to the front door like forms (the SDK refuses a
      // mode the client does not declare; the reference forwards them while declaring only `form`).
      { capabilities: { roots: { listChanged: true }, elicitation: { form: {}, url: {} } } },
    );
    const conn = new McpConnection(config, client);
    client.setRequestHandler('roots/list', async () => ({ roots: hooks.roots() }));
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const answer = await hooks.elicit(request.params as Record<string, unknown>, ctx.mcpReq.signal);
      return answer as never;
    });
    client.setNotificationHandler('notifications/tools/list_changed', async () => hooks.onToolsChanged());
    client.setNotificationHandler('notifications/message', async (n) => hooks.onLog(n.params.level, n.params.data));
    client.setNotificationHandler('notifications/progress', async (n) => {
      const { progressToken, progress, total, message } = n.params;
      conn.#progress.get(String(progressToken))?.({ progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) });
    });

    const transport = conn.#transport(cwd, parentEnv, authProvider);
    let started = false;
    client.onclose = () => {
      if (started && !conn.#closedByUs) hooks.onClosed(conn.#exitText());
    };
    const timeoutMs = config.startupTimeoutMs;
    const timer = AbortSignal.timeout(Math.max(1, timeoutMs));
    const both = AbortSignal.any([timer, signal]);
    try {
      await raceSignal(client.connect(transport, { signal: both, timeout: timeoutMs }), both);
      conn.tools = await raceSignal(conn.listTools(both, timeoutMs), both);
      started = true;
      conn.#unwatchStdout();
      return conn;
    } catch (error) {
      conn.#closedByUs = true;
      await client.close().catch(() => undefined);
      if (timer.aborted) {
        const secs = Number.isInteger(timeoutMs / 1000) ? String(timeoutMs / 1000) : (timeoutMs / 1000).toFixed(1);
        throw new Error(
          `MCP client for \`${config.name}\` timed out after ${secs} seconds. Add or adjust \`startup_timeout_sec\` in your config.toml:\n[mcp_servers.${config.name}]\nstartup_timeout_sec = XX`,
        );
      }
      if (signal.aborted) throw new Error('cancelled');
      throw new Error(`MCP client for \`${config.name}\` failed to start: MCP startup failed: ${conn.#describeStartError(error)}`);
    }
  }

  /** Lists every tool, following `nextCursor`. */
  async listTools(signal: AbortSignal, timeoutMs: number): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** One `tools/call`; aborting sends `notifications/cancelled`. With `onProgress`, the call carries a progress token. */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    meta: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; onProgress?: ProgressCallback },
  ): Promise<CallToolResult> {
    const token = options.onProgress ? ++this.#progressTokens : null;
    const params: Record<string, unknown> = { name, _meta: token === null ? meta : { ...meta, progressToken: token } };
    if (args !== undefined) params.arguments = args;
    if (token !== null && options.onProgress) this.#progress.set(String(token), options.onProgress);
    try {
      return (await this.#client.request({ method: 'tools/call', params }, { signal: options.signal, timeout: options.timeoutMs })) as CallToolResult;
    } finally {
      // Notifications that arrived with the response run after it; let them through first.
      if (token !== null) setImmediate(() => this.#progress.delete(String(token)));
    }
  }

  /** Any other request (resources). */
  request(method: 'resources/list' | 'resources/templates/list' | 'resources/read', params: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
    return this.#client.request({ method, params }, { signal, timeout: timeoutMs });
  }

  /** Closes the session; a stdio child gets SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    this.#closedByUs = true;
    await this.#client.close().catch(() => undefined);
  }

  #transport(cwd: string, parentEnv: NodeJS.ProcessEnv, authProvider: AuthProvider | undefined): StdioClientTransport | StreamableHTTPClientTransport {
    const t = this.config.transport;
    if (t.type === 'stdio') {
      const transport = new StdioClientTransport({ command: t.command, args: t.args, env: buildServerEnv(t, parentEnv), cwd: t.cwd ?? cwd, stderr: 'pipe' });
      // The exit code for crash and handshake messages: the child is the transport's own field.
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        const child = (transport as unknown as { _process?: ChildProcess })._process;
        child?.once('exit', (code, sig) => {
          this.#exitCode = code ?? (sig ? String(sig) : null);
        });
        // Kept for the start-up error: a program that is not an MCP server prints something else.
        let head = '';
        const noise = (chunk: Buffer): void => {
          head += chunk.toString('utf8');
          const lines = head.split('\n');
          head = lines.pop() ?? '';
          this.#stdoutNoise ??= lines.find((line) => line.trim() !== '' && !isJson(line))?.slice(0, 200) ?? null;
          if (this.#stdoutNoise !== null) this.#unwatchStdout();
        };
        // Only during start-up: afterwards every line is protocol and the SDK's alone.
        this.#unwatchStdout = () => child?.stdout?.off('data', noise);
        child?.stdout?.on('data', noise);
      };
      let partial = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        this.#stderr.push(...lines);
        if (this.#stderr.length > STDERR_TAIL_LINES) this.#stderr.splice(0, this.#stderr.length - STDERR_TAIL_LINES);
      });
      return transport;
    }
    const headers: Record<string, string> = { ...t.httpHeaders };
    for (const [header, variable] of Object.entries(t.envHttpHeaders)) {
      const value = parentEnv[variable];
      if (value) headers[header] = value;
    }
    if (t.bearerTokenEnvVar !== null) {
      const value = parentEnv[t.bearerTokenEnvVar];
      if (value === undefined) throw new Error(`Environment variable ${t.bearerTokenEnvVar} for MCP server '${this.config.name}' is not set`);
      if (value === '') throw new Error(`Environment variable ${t.bearerTokenEnvVar} for MCP server '${this.config.name}' is empty`);
      headers.Authorization = `Bearer ${value}`;
    }
    return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) });
  }

  #exitText(): string {
    const tail = this.stderrTail;
    return `server exited${this.#exitCode !== null ? ` (code ${this.#exitCode})` : ''}${tail ? `; stderr: ${tail}` : ''}`;
  }

  #describeStartError(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const t = this.config.transport;
    if (t.type === 'stdio' && /ENOENT/.test(message)) return `No such file or directory (os error 2): ${t.command}`;
    // fetch says only "fetch failed"; the reason (refused, unknown host, reset) is in its causes.
    const network = networkCause(error);
    if (t.type === 'http' && network !== null) return `handshaking with MCP server failed: error sending request for url (${t.url}): ${network}`;
    const tail = this.stderrTail;
    const base = /closed/i.test(message) ? 'handshaking with MCP server failed: connection closed: initialize response' : `handshaking with MCP server failed: ${message}`;
    const code = this.#exitCode !== null ? `; exit code ${this.#exitCode}` : '';
    const noise = this.#stdoutNoise !== null ? `; stdout is not JSON-RPC: ${this.#stdoutNoise}` : '';
    return `${base}${code}${noise}${tail ? `; stderr: ${tail}` : ''}`;
  }
}

/** The innermost cause of a failed fetch (`connect ECONNREFUSED 127.0.0.1:9`), or null for other errors. */
function networkCause(error: unknown): string | null {
  let fetchFailed = false;
  let inner: Error | null = null;
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause.message === 'fetch failed') fetchFailed = true;
    inner = cause;
  }
  return fetchFailed && inner !== null && inner.message !== 'fetch failed' ? inner.message : null;
}

/** Whether `line` parses as JSON. */
function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Rejects as soon as `signal` aborts. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
