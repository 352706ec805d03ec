/**
 * McpManager: one thread's MCP servers. Starts every enabled server in parallel when the thread
 * is created, tracks each one's status (starting | ready | failed | cancelled | disabled) and
 * reports every change, lets a turn wait a short grace for servers still starting, restarts a
 * crashed server with back-off when the next model request is built, re-lists tools on
 * `tools/list_changed`, runs calls (serially per server unless the server allows parallel
 * calls), applies a reloaded config by restarting only changed servers, and kills every child on
 * shutdown. It knows no model wire and no approval policy.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { checkServerName, type McpServerConfig } from './config.js';
// The connection module loads the MCP client SDK: it is imported when a server first starts.
import type { ConnectionHooks, McpConnection } from './connection.js';
import type { McpOAuth } from './oauth/index.js';

/** A server's start-up status. */
export type McpServerStatusValue = 'starting' | 'ready' | 'failed' | 'cancelled' | 'disabled';

/** The live status of one server. */
export interface McpServerStatus {
  name: string;
  status: McpServerStatusValue;
  error: string | null;
  /** Raw tools (filters applied); empty unless ready. */
  tools: Tool[];
}

/** What a manager needs from its thread. */
export interface McpManagerOptions {
  servers: McpServerConfig[];
  cwd: string;
  /** Extra roots besides the cwd (writable roots). */
  writableRoots?: readonly string[];
  version: string;
  /** How long a turn waits for servers still starting. */
  startupGraceMs: number;
  env?: NodeJS.ProcessEnv;
  /** How long an MCP tool-call approval waits for an answer (0: forever). */
  approvalTimeoutMs?: number;
  /** Persists an "always" approval (`approval_mode = "approve"` for the tool) in the config. */
  persistApproval?(server: string, tool: string): Promise<void>;
  onStatus?(status: { name: string; status: McpServerStatusValue; error: string | null }): void;
  onLog?(server: string, level: string, data: unknown): void;
  /** OAuth of HTTP servers (stored tokens, refresh); without it no OAuth token is sent. */
  oauth?: McpOAuth;
}

/** Answers a server's `elicitation/create` (the thread's; without it every elicitation is declined). */
export type McpElicitationHandler = (
  server: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;

const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 30000];
const MAX_RESTARTS = 5;

interface ServerState {
  config: McpServerConfig;
  status: McpServerStatusValue;
  error: string | null;
  conn: McpConnection | null;
  starting: Promise<void> | null;
  abort: AbortController;
  restarts: number;
  retryAtMs: number;
  /** When the current start began: the grace a turn waits counts from here. */
  launchedAtMs: number;
  /** Serial calls queue. */
  queue: Promise<unknown>;
}

/** The MCP servers of one thread. */
export class McpManager {
  readonly #servers = new Map<string, ServerState>();
  #onStatus: McpManagerOptions['onStatus'];
  #onElicitation: McpElicitationHandler | undefined;
  #closed = false;

  constructor(readonly options: McpManagerOptions) {
    this.#onStatus = options.onStatus;
    for (const config of options.servers) this.#servers.set(config.name, this.#newState(config));
  }

  /** Whether any server is configured (the resource tools are offered then). */
  get hasServers(): boolean {
    return this.#servers.size > 0;
  }

  /** Sets who hears status changes (the thread, once it exists). */
  set onStatus(listener: McpManagerOptions['onStatus']) {
    this.#onStatus = listener;
  }

  /** Sets who answers server elicitations (the thread, once it exists). */
  set onElicitation(handler: McpElicitationHandler | undefined) {
    this.#onElicitation = handler;
  }

  /** Starts every enabled server (in parallel; returns at once). */
  start(): void {
    for (const state of this.#servers.values()) if (state.config.enabled) this.#launch(state);
  }

  /** Waits for the `required` servers; returns the REF failure text, or null when all started. */
  async waitRequired(): Promise<string | null> {
    const required = [...this.#servers.values()].filter((s) => s.config.enabled && s.config.required);
    await Promise.all(required.map((s) => s.starting));
    const failed = required.filter((s) => s.status !== 'ready');
    if (failed.length === 0) return null;
    return `required MCP servers failed to initialize: ${failed.map((s) => `${s.config.name}: ${s.error ?? s.status}`).join('; ')}`;
  }

  /**
   * Before a model request: restarts crashed servers whose back-off has passed, then waits for
   * servers still starting, until each has had the grace period since its start began (or until
   * `signal` aborts). A server started with the thread has used part of its grace by the first
   * request; one that has had its grace is not waited for again.
   */
  async prepare(signal: AbortSignal): Promise<void> {
    const now = Date.now();
    for (const state of this.#servers.values()) {
      if (state.status === 'failed' && state.conn === null && state.restarts > 0 && state.restarts <= MAX_RESTARTS && now >= state.retryAtMs) this.#launch(state);
    }
    const starting = [...this.#servers.values()].filter((s) => s.status === 'starting');
    const waitMs = Math.max(0, ...starting.map((s) => s.launchedAtMs + this.options.startupGraceMs - Date.now()));
    const pending = starting.map((s) => s.starting);
    if (pending.length === 0 || waitMs === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      Promise.all(pending),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }

  /** Every configured server's live status, sorted by name. */
  statuses(): McpServerStatus[] {
    return [...this.#servers.values()].map((s) => ({
      name: s.config.name,
      status: s.config.enabled ? s.status : 'disabled',
      error: s.error,
      tools: s.status === 'ready' && s.conn ? s.conn.tools.filter((t) => isToolAllowed(s.config, t.name)) : [],
    }));
  }

  /** A server's config, if configured. */
  config(server: string): McpServerConfig | undefined {
    return this.#servers.get(server)?.config;
  }

  /** A ready server's raw tool, when it is listed and allowed. */
  tool(server: string, tool: string): Tool | undefined {
    const state = this.#servers.get(server);
    if (!state?.conn || state.status !== 'ready' || !isToolAllowed(state.config, tool)) return undefined;
    return state.conn.tools.find((t) => t.name === tool);
  }

  /** The server's initialize instructions. */
  instructions(server: string): string | undefined {
    return this.#servers.get(server)?.conn?.instructions;
  }

  /** The server's declared capabilities. */
  capabilities(server: string): Record<string, unknown> {
    return this.#servers.get(server)?.conn?.capabilities ?? {};
  }

  /** Runs one `tools/call` (serial per server unless parallel calls are allowed). */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    meta: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress?: (p: { progress: number; total?: number; message?: string }) => void; isReadOnly?: boolean },
  ): Promise<CallToolResult> {
    const state = this.#servers.get(server);
    if (!state?.conn || state.status !== 'ready') return Promise.reject(new Error('Transport closed'));
    const conn = state.conn;
    const timeoutMs = state.config.toolTimeoutMs;
    const run = async (): Promise<CallToolResult> => {
      try {
        return await conn.callTool(tool, args, meta, { signal: options.signal, timeoutMs, onProgress: options.onProgress });
      } catch (error) {
        if (options.signal.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        if (/timed out|timeout/i.test(message)) throw new Error(`timed out awaiting tools/call after ${formatSecs(timeoutMs)}s`);
        throw error;
      }
    };
    if (state.config.supportsParallelToolCalls || options.isReadOnly) return run();
    const next = state.queue.then(run, run);
    state.queue = next.catch(() => undefined);
    return next;
  }

  /** A resource request to a ready server. */
  request(server: string, method: 'resources/list' | 'resources/templates/list' | 'resources/read', params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const state = this.#servers.get(server);
    if (!state?.conn || state.status !== 'ready') return Promise.reject(new Error(`unknown MCP server '${server}'`));
    return state.conn.request(method, params, signal, state.config.toolTimeoutMs);
  }

  /** Names of servers that are ready. */
  readyServers(): string[] {
    return [...this.#servers.values()].filter((s) => s.status === 'ready').map((s) => s.config.name);
  }

  /**
   * Applies a new server set: unchanged servers keep their sessions (and send no events),
   * changed ones restart, removed ones stop, new ones start.
   */
  async reload(servers: McpServerConfig[]): Promise<void> {
    const next = new Map(servers.map((c) => [c.name, c]));
    const stops: Promise<void>[] = [];
    for (const [name, state] of this.#servers) {
      const config = next.get(name);
      if (config && JSON.stringify(config) === JSON.stringify(state.config)) continue;
      stops.push(this.#stop(state, false));
      this.#servers.delete(name);
    }
    await Promise.all(stops);
    for (const config of servers) {
      if (this.#servers.has(config.name)) continue;
      const state = this.#newState(config);
      this.#servers.set(config.name, state);
      if (config.enabled) this.#launch(state);
    }
  }

  /** Restarts one enabled server now (after an OAuth login), whatever its state. */
  async restart(server: string): Promise<void> {
    const state = this.#servers.get(server);
    if (!state || !state.config.enabled || this.#closed) return;
    await this.#stop(state, false);
    state.restarts = 0;
    this.#launch(state);
  }

  /** Stops every server; a server still starting is reported `cancelled`. Children are killed. */
  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#servers.values()].map((s) => this.#stop(s, true)));
  }

  #newState(config: McpServerConfig): ServerState {
    return { config, status: 'starting', error: null, conn: null, starting: null, abort: new AbortController(), restarts: 0, retryAtMs: 0, launchedAtMs: 0, queue: Promise.resolve() };
  }

  async #stop(state: ServerState, report: boolean): Promise<void> {
    const wasStarting = state.status === 'starting' && state.starting !== null;
    state.abort.abort();
    const conn = state.conn;
    state.conn = null;
    if (wasStarting && report) this.#set(state, 'cancelled', null);
    await conn?.close();
  }

  #launch(state: ServerState): void {
    const { config } = state;
    state.abort = new AbortController();
    state.launchedAtMs = Date.now();
    const signal = state.abort.signal;
    this.#set(state, 'starting', null);
    const nameError = checkServerName(config.name);
    if (nameError) {
      state.starting = Promise.resolve();
      this.#set(state, 'failed', `MCP client for \`${config.name}\` failed to start: MCP startup failed: ${nameError}`);
      return;
    }
    const roots = (): { uri: string; name: string }[] => [
      { uri: toFileUri(this.options.cwd), name: 'workspace' },
      ...(this.options.writableRoots ?? []).map((r) => ({ uri: toFileUri(r), name: r })),
    ];
    const hooks: ConnectionHooks = {
      roots,
      onClosed: (reason) => this.#crashed(state, reason),
      onToolsChanged: () => void this.#relist(state),
      onLog: (level, data) => this.options.onLog?.(config.name, level, data),
      elicit: (params, signal) => this.#onElicitation?.(config.name, params, signal) ?? Promise.resolve({ action: 'decline' as const }),
    };
    const transportAuth = this.options.oauth?.transportAuth(config);
    const env = this.options.env ?? process.env;
    state.starting = import('./connection.js')
      .then(({ McpConnection: Connection }) => Connection.start(config, this.options.cwd, this.options.version, hooks, env, signal, transportAuth))
      .then(
        (conn) => {
          if (signal.aborted || this.#closed) {
            void conn.close();
            return;
          }
          state.conn = conn;
          state.restarts = 0;
          this.#set(state, 'ready', null);
        },
        (error: unknown) => {
          if (signal.aborted) return;
          this.#set(state, 'failed', error instanceof Error ? error.message : String(error));
        },
      );
  }

  #crashed(state: ServerState, reason: string): void {
    if (this.#closed || state.conn === null) return;
    state.conn = null;
    state.restarts += 1;
    state.retryAtMs = Date.now() + (BACKOFF_MS[Math.min(state.restarts - 1, BACKOFF_MS.length - 1)] ?? 30000);
    this.#set(state, 'failed', reason);
  }

  async #relist(state: ServerState): Promise<void> {
    const conn = state.conn;
    if (!conn) return;
    try {
      conn.tools = await conn.listTools(AbortSignal.timeout(state.config.startupTimeoutMs), state.config.startupTimeoutMs);
    } catch {
      // Keep the previous list: a failed re-list must not withdraw working tools.
    }
  }

  #set(state: ServerState, status: McpServerStatusValue, error: string | null): void {
    state.status = status;
    state.error = error;
    this.#onStatus?.({ name: state.config.name, status, error });
  }
}

/** Whether `enabled_tools` / `disabled_tools` let the model see a raw tool. */
export function isToolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.enabledTools !== null && !config.enabledTools.includes(tool)) return false;
  return !config.disabledTools.includes(tool);
}

function formatSecs(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : String(Math.round(s * 1000) / 1000);
}

function toFileUri(path: string): string {
  return `file://${path.split('/').map(encodeURIComponent).join('/')}`;
}
