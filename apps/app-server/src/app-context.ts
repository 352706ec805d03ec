/**
 * What every handler works with: the engine (`ThreadManager`, `EngineRuntime`, the current
 * config), the router, the client approvals, the model catalogue, the logger and the server's
 * working directory, and the helpers around the connection's per-request hook `afterResponse`
 * (work that must follow the response on the wire, such as `thread/started` after `thread/start`).
 * Built once, when the engine opens; handlers receive it and never reach for globals. The config
 * is not fixed: config writes and logins replace the runtime's (`EngineRuntime.applyConfig`), so
 * handlers read it at each use and never keep it.
 */
import type { EngineRuntime, ResolvedConfig, ThreadManager } from '@deputy/engine';
import type { Connection, HandlerContext } from '@deputy/rpc/core';
import type { ClientApprovals } from './client-approvals.js';
import type { ConnectionState } from './connection-state.js';
import type { AppLogger } from './logger.js';
import type { McpState } from './mcp-state.js';
import type { ModelCatalog } from './model-catalog.js';
import type { Router } from './router.js';

/** The services handlers use. */
export interface AppContext {
  readonly manager: ThreadManager;
  readonly runtime: EngineRuntime;
  /** The current config: always `runtime.config` (read it at each use). */
  readonly config: ResolvedConfig;
  readonly router: Router;
  readonly approvals: ClientApprovals;
  /** MCP reloads staged for loaded threads and the tools servers listed last. */
  readonly mcp: McpState;
  /** The catalogue of the config the engine opened with (`model/list` follows later configs). */
  readonly models: ModelCatalog;
  readonly logger: AppLogger;
  /** The server's working directory: default thread cwd and base of relative paths. */
  readonly cwd: string;
  /** The state of a connection (every accepted connection has one). */
  stateOf(connection: Connection): ConnectionState;
}

/**
 * Runs `fn` after this request's response, in order with the thread's other deliveries: the
 * thread is held until the response is queued, and `fn` waits in its queue, ahead of whatever the
 * thread does next (a `turn/start` pipelined right behind a `thread/start` must not overtake its
 * `thread/started`).
 */
export function afterResponseOn(app: Pick<AppContext, 'router'>, ctx: HandlerContext, threadId: string, fn: () => void): void {
  const release = app.router.hold(threadId);
  app.router.deliver(threadId, fn);
  afterResponse(ctx, release);
}

/** Schedules `fn` to run right after this request's response is queued. */
export function afterResponse(ctx: HandlerContext, fn: () => void): void {
  ctx.afterResponse(fn);
}
