/**
 * Handlers of the MCP client methods (docs/app-server.md "MCP servers"):
 * `mcpServerStatus/list` answers from live state, never starting a process (the reference starts
 * every server afresh per call); `mcpServer/tool/call` runs on the thread's live connection,
 * waiting for a server still starting, with no approval and no item; `mcpServer/resource/read`
 * uses the thread's connection, or a temporary one of that server alone without `threadId`;
 * `config/mcpServer/reload` re-reads config.toml and stages the new server set for each loaded
 * thread's next turn; `mcpServer/oauth/login` answers the authorization URL at once and announces
 * the outcome with `mcpServer/oauthLogin/completed` to every connection, after which the server
 * restarts on every loaded thread (docs/mcp-client.md "OAuth"); `mcpServer/event/stream/start`
 * runs one tool on the thread's live connection as an event stream, forwarding the server's
 * progress notifications for that call to the caller alone as `mcpServer/event/stream/notification`
 * (then `notifications/events/terminated` when the call ends), until `mcpServer/event/stream/stop`
 * (idempotent) or the connection closes cancels it. Errors use the reference's codes and wording.
 */
import { randomUUID } from 'node:crypto';
import { reloadUserConfig, type Thread } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import { afterResponse, type AppContext } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import { isToolAllowed, type McpServerConfig } from '../mcp-state.js';
import { notification } from '../project/outbound.js';
import { requireLoaded } from './common.js';
import type { Handlers } from './types.js';

/** How long `mcpServerStatus/list` may spend asking ready servers for their resources. */
const RESOURCE_LISTING_BUDGET_MS = 600;
/** How long `mcpServerStatus/list` waits for a server's OAuth discovery (then reports what it knows). */
const AUTH_STATUS_BUDGET_MS = 500;
/** Broadcasts need a delivery key that is never held and is not a thread id. */
const OAUTH_DELIVERY_KEY = 'mcp-oauth';
/** How often a call waiting for a starting server looks again. */
const READY_POLL_MS = 25;

type ServerRow = AppServer.McpServerStatus;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reference's text for an MCP error: `Mcp error: <code>: <message>` plus `(<data>)` when asked. */
function mcpErrorText(error: unknown, withData: boolean): string {
  if (isRecord(error) && typeof error.code === 'number' && typeof error.message === 'string') {
    const data = withData && error.data !== undefined ? `(${JSON.stringify(error.data)})` : '';
    return `Mcp error: ${error.code}: ${error.message}${data}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The thread whose servers `mcpServerStatus/list` reports: the caller's most recently active, else any loaded one. */
function threadForStatus(app: AppContext, state: ConnectionState): Thread | undefined {
  const newest = (threads: Thread[]): Thread | undefined => threads.reduce<Thread | undefined>((best, t) => (best === undefined || t.updatedAtMs > best.updatedAtMs ? t : best), undefined);
  const own = [...state.subscriptions].map((id) => app.manager.get(id)).filter((t): t is Thread => t !== undefined);
  return newest(own) ?? newest(app.manager.loaded());
}

/** Follows `nextCursor` of a resource listing until done or the signal aborts; what arrived so far on failure. */
async function listAll(thread: Thread, server: string, method: 'resources/list' | 'resources/templates/list', key: string, signal: AbortSignal): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await thread.mcpRequest(server, method, cursor === undefined ? {} : { cursor }, signal);
      if (!isRecord(page)) break;
      const items = page[key];
      if (Array.isArray(items)) out.push(...items);
      cursor = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
    } while (cursor !== undefined && !signal.aborted);
  } catch {
    // A server without resources, or slow: report what we have.
  }
  return out;
}

/** Waits while a thread's server is starting (bounded by its start-up timeout and `signal`). */
async function waitWhileStarting(thread: Thread, config: McpServerConfig, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + config.startupTimeoutMs + 1000;
  while (!signal.aborted && Date.now() < deadline) {
    const status = thread.mcpServerStatuses().find((s) => s.name === config.name);
    if (status?.status !== 'starting') return;
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
}

/** Most event streams one connection may have open (as the reference). */
const MAX_EVENT_STREAMS_PER_CONNECTION = 64;
/** The reference's code for a full server-side limit. */
const OVERLOADED = -32001;

/** The open event streams of each connection, by subscription id. */
const eventStreams = new WeakMap<ConnectionState, Map<string, AbortController>>();

/** The open event streams of a connection; closing it cancels them. */
function streamsOf(state: ConnectionState): Map<string, AbortController> {
  let streams = eventStreams.get(state);
  if (!streams) {
    const created = new Map<string, AbortController>();
    eventStreams.set(state, (streams = created));
    void state.connection.closed.then(() => {
      for (const controller of created.values()) controller.abort(new Error('connection closed'));
      created.clear();
    });
  }
  return streams;
}

/** The handlers of this area. */
export function mcpHandlers(app: AppContext): Handlers {
  /** A server's `authStatus` (stored tokens, bearer variable, or discovery within the budget). */
  const authStatusOf = (config: McpServerConfig): Promise<AppServer.McpAuthStatus> => app.runtime.mcpOAuth.authStatus(config, AUTH_STATUS_BUDGET_MS);

  /** The live rows of a thread's servers (tools remembered for later config-only answers). */
  async function liveRows(thread: Thread, detail: AppServer.McpServerStatusDetail): Promise<Map<string, ServerRow>> {
    const rows = new Map<string, ServerRow>();
    const budget = AbortSignal.timeout(RESOURCE_LISTING_BUDGET_MS);
    await Promise.all(
      thread.mcpServerStatuses().map(async (status) => {
        const config = thread.mcpServerConfig(status.name);
        const tools = Object.fromEntries(status.tools.map((tool) => [tool.name, tool as AppServer.McpTool]));
        if (status.status === 'ready') app.mcp.rememberTools(status.name, tools);
        const wantsResources = detail === 'full' && status.status === 'ready' && thread.mcpServerCapabilities(status.name).resources !== undefined;
        const [resources, resourceTemplates, authStatus] = await Promise.all([
          wantsResources ? listAll(thread, status.name, 'resources/list', 'resources', budget) : [],
          wantsResources ? listAll(thread, status.name, 'resources/templates/list', 'resourceTemplates', budget) : [],
          config ? authStatusOf(config) : ('unsupported' as const),
        ]);
        rows.set(status.name, {
          name: status.name,
          tools,
          resources: resources as AppServer.McpResource[],
          resourceTemplates: resourceTemplates as AppServer.McpResourceTemplate[],
          authStatus,
          startupStatus: status.status,
          error: status.error,
        });
      }),
    );
    return rows;
  }

  /** A row for a configured server no loaded thread runs: cached tools, not started. */
  async function configRow(config: McpServerConfig): Promise<ServerRow> {
    const tools = config.enabled ? Object.fromEntries(Object.entries(app.mcp.cachedTools(config.name)).filter(([name]) => isToolAllowed(config, name))) : {};
    return {
      name: config.name,
      tools,
      resources: [],
      resourceTemplates: [],
      authStatus: await authStatusOf(config),
      ...(config.enabled ? {} : { startupStatus: 'disabled' as const, error: null }),
    };
  }

  /** A thread's server by name, or -32603 `unknown MCP server '<s>'`. */
  function serverOf(thread: Thread, server: string): McpServerConfig {
    const config = thread.mcpServerConfig(server);
    if (!config) throw RpcError.internal(`unknown MCP server '${server}'`);
    return config;
  }

  /** Reads a resource on a temporary connection of that server alone (no thread given). */
  async function readOnTemporaryConnection(server: string, uri: string, signal: AbortSignal): Promise<unknown> {
    const config = app.config.mcpServerConfigs.find((c) => c.name === server);
    if (!config) throw RpcError.internal(`unknown MCP server '${server}'`);
    const services = app.runtime.createThreadServices({ cwd: app.cwd });
    try {
      // Only this server: the others are dropped before anything starts.
      await services.mcp.reload([config]);
      services.mcp.start();
      const deadline = Date.now() + config.startupTimeoutMs + 1000;
      let status = services.mcp.statuses()[0];
      while (status?.status === 'starting' && !signal.aborted && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
        status = services.mcp.statuses()[0];
      }
      if (status?.status !== 'ready') throw new Error(status?.error ?? `MCP server '${server}' is ${status?.status ?? 'not started'}`);
      return await services.mcp.request(server, 'resources/read', { uri }, signal);
    } finally {
      void services.close();
    }
  }

  return {
    'mcpServerStatus/list': async (params, ctx) => {
      const detail = params.detail ?? 'full';
      const thread = threadForStatus(app, app.stateOf(ctx.connection));
      const rows = thread ? await liveRows(thread, detail) : new Map<string, ServerRow>();
      const missing = app.config.mcpServerConfigs.filter((config) => !rows.has(config.name));
      for (const row of await Promise.all(missing.map(configRow))) rows.set(row.name, row);
      const all = [...rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // The cursor is the decimal index of the next entry (as the reference makes it).
      const cursor = params.cursor ?? null;
      const start = cursor === null ? 0 : /^\d+$/.test(cursor) ? Number(cursor) : Number.NaN;
      if (!Number.isSafeInteger(start)) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
      const limit = params.limit === undefined || params.limit === null ? all.length : Math.max(1, params.limit);
      const end = Math.min(all.length, start + limit);
      return { data: all.slice(start, end), nextCursor: end < all.length ? String(end) : null };
    },
    'mcpServer/tool/call': async (params, ctx) => {
      const thread = requireLoaded(app, params.threadId);
      const { server, tool } = params;
      const config = serverOf(thread, server);
      if (!isToolAllowed(config, tool)) throw RpcError.internal(`tool '${tool}' is disabled for MCP server '${server}'`);
      const failed = (cause: string): RpcError => RpcError.internal(`tool call failed for \`${server}/${tool}\`: ${cause}`);
      const args = params.arguments ?? undefined;
      if (args !== undefined && args !== null && !isRecord(args)) throw failed(`MCP tool arguments must be a JSON object, got ${JSON.stringify(args)}`);
      const meta = { ...(isRecord(params._meta) ? params._meta : {}), threadId: thread.id };
      await waitWhileStarting(thread, config, ctx.signal);
      let result;
      try {
        result = await thread.callMcpTool(server, tool, args ?? undefined, meta, ctx.signal);
      } catch (error) {
        throw failed(mcpErrorText(error, true));
      }
      return {
        content: result.content,
        ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
        ...(result.isError !== undefined ? { isError: result.isError } : {}),
        ...(result._meta !== undefined ? { _meta: result._meta } : {}),
      };
    },
    'mcpServer/event/stream/start': async (params, ctx) => {
      const thread = requireLoaded(app, params.threadId);
      const { server, name, subscriptionId } = params;
      const config = serverOf(thread, server);
      if (!isToolAllowed(config, name)) throw RpcError.internal(`tool '${name}' is disabled for MCP server '${server}'`);
      if (!isRecord(params.arguments)) throw RpcError.invalidRequest(`MCP event request arguments must be a JSON object, got ${JSON.stringify(params.arguments)}`);
      if (params._meta != null && !isRecord(params._meta)) throw RpcError.invalidRequest(`MCP event request _meta must be a JSON object, got ${JSON.stringify(params._meta)}`);
      const state = app.stateOf(ctx.connection);
      const streams = streamsOf(state);
      if (streams.has(subscriptionId)) throw RpcError.invalidRequest(`MCP event subscription '${subscriptionId}' already exists`);
      if (streams.size >= MAX_EVENT_STREAMS_PER_CONNECTION) throw new RpcError(OVERLOADED, `MCP event subscription limit of ${MAX_EVENT_STREAMS_PER_CONNECTION} reached`);
      const controller = new AbortController();
      streams.set(subscriptionId, controller);
      const send = (method: string, eventParams: Record<string, unknown>): void => {
        if (controller.signal.aborted) return;
        app.router.sendTo(state, notification('mcpServer/event/stream/notification', { subscriptionId, notification: { method, params: eventParams } }));
      };
      try {
        await waitWhileStarting(thread, config, AbortSignal.any([ctx.signal, controller.signal]));
      } catch (error) {
        streams.delete(subscriptionId);
        throw error;
      }
      if (controller.signal.aborted) return {};
      const meta = { ...(isRecord(params._meta) ? params._meta : {}), threadId: thread.id };
      const call = thread.callMcpTool(server, name, params.arguments, meta, controller.signal, (p) => send('notifications/progress', { ...p }));
      // The stream runs after the response; its end (result, error or stop) closes it.
      afterResponse(ctx, () => {
        void call
          .catch((error: unknown) => app.logger.debug('MCP event stream ended', { subscriptionId, server, error: mcpErrorText(error, false) }))
          .finally(() => {
            send('notifications/events/terminated', {});
            if (streams.get(subscriptionId) === controller) streams.delete(subscriptionId);
          });
      });
      return {};
    },
    'mcpServer/event/stream/stop': (params, ctx) => {
      const streams = streamsOf(app.stateOf(ctx.connection));
      streams.get(params.subscriptionId)?.abort(new Error('stopped'));
      streams.delete(params.subscriptionId);
      return {};
    },
    'mcpServer/resource/read': async (params, ctx) => {
      const { server, uri } = params;
      let result: unknown;
      try {
        if (params.threadId === undefined || params.threadId === null) {
          result = await readOnTemporaryConnection(server, uri, ctx.signal);
        } else {
          const thread = requireLoaded(app, params.threadId);
          const config = serverOf(thread, server);
          await waitWhileStarting(thread, config, ctx.signal);
          result = await thread.mcpRequest(server, 'resources/read', { uri }, ctx.signal);
        }
      } catch (error) {
        if (error instanceof RpcError) throw error;
        throw RpcError.internal(`resources/read failed for \`${server}\` (${uri}): ${mcpErrorText(error, false)}`);
      }
      const contents = isRecord(result) && Array.isArray(result.contents) ? result.contents : [];
      return { contents: contents as AppServer.McpResourceContent[] };
    },
    'mcpServer/oauth/login': async (params, ctx) => {
      const { name } = params;
      const config = app.config.mcpServerConfigs.find((c) => c.name === name);
      if (!config) throw RpcError.invalidRequest(`No MCP server named '${name}' found.`);
      if (config.transport.type !== 'http') throw RpcError.invalidRequest('OAuth login is only supported for streamable HTTP servers.');
      const loginId = randomUUID();
      const completed = (outcome: { success: boolean; error?: string }): void =>
        app.router.publish(OAUTH_DELIVERY_KEY, [notification('mcpServer/oauthLogin/completed', { name, success: outcome.success, ...(outcome.error !== undefined ? { error: outcome.error } : {}), loginId })]);
      const timeoutSecs = params.timeoutSecs ?? null;
      let login;
      try {
        login = await app.runtime.mcpOAuth.login(config, { scopes: params.scopes ?? null, ...(timeoutSecs !== null ? { timeoutMs: Math.max(1, timeoutSecs) * 1000 } : {}) });
      } catch (error) {
        const message = `OAuth login for MCP server '${name}' failed: ${error instanceof Error ? error.message : String(error)}`;
        app.logger.warn(message);
        afterResponse(ctx, () => completed({ success: false, error: message }));
        throw RpcError.internal(message);
      }
      afterResponse(ctx, () => {
        void login.done.then(async (outcome) => {
          if (outcome.success) {
            app.logger.info(`logged in to MCP server '${name}' (mcpServer/oauth/login)`);
            // The server connects with its new tokens on every loaded thread, without a restart of Deputy.
            await Promise.all(app.manager.loaded().map((thread) => thread.restartMcpServer(name).catch(() => undefined)));
          }
          completed(outcome.success ? { success: true } : { success: false, error: outcome.error });
        });
      });
      return { authorizationUrl: login.authorizationUrl, loginId };
    },
    'config/mcpServer/reload': async () => {
      const current = app.runtime.config;
      let next;
      try {
        next = await reloadUserConfig(current);
      } catch (error) {
        throw RpcError.internal(`failed to reload config: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (next !== current) app.runtime.applyConfig(next);
      app.mcp.stageReload(app.runtime.config.mcpServerConfigs);
      return {};
    },
  };
}
