/**
 * The part of the app-server that needs the engine, opened on first need: the server imports this
 * module dynamically when the first request after `initialize` arrives, so answering `initialize`
 * never loads `@deputy/engine` (openai, SQLite, the tools). It opens the engine runtime and the
 * thread manager on the configuration, wires the client approvals, the event projection and the
 * router to them, and builds the context handlers work with and every handler table except the
 * handshake's.
 */
import { EngineRuntime, ThreadManager, type ResolvedConfig } from '@deputy/engine';
import type { Connection } from '@deputy/rpc/core';
import type { AppContext } from './app-context.js';
import { ClientApprovals } from './client-approvals.js';
import type { ConnectionState } from './connection-state.js';
import { accountHandlers } from './handlers/account.js';
import { catalogHandlers, createSkillsWatcher } from './handlers/catalog.js';
import { commandHandlers } from './handlers/command.js';
import { processHandlers } from './handlers/process.js';
import { fsHandlers } from './handlers/fs.js';
import { fuzzySearchHandlers } from './handlers/fuzzy-search.js';
import { currentHandlers } from './handlers/current.js';
import { mcpHandlers } from './handlers/mcp.js';
import { configHandlers } from './handlers/config.js';
import { modelHandlers } from './handlers/model.js';
import { reviewHandlers } from './handlers/review.js';
import { shellCommandHandlers } from './handlers/shell-command.js';
import { goalHandlers } from './handlers/goals.js';
import { threadDeleteHandlers } from './handlers/thread-delete.js';
import { threadHistoryHandlers } from './handlers/thread-history.js';
import { threadQueueHandlers } from './handlers/thread-queue.js';
import { threadSearchHandlers } from './handlers/thread-search.js';
import { readStateHandlers } from './handlers/read-state.js';
import { sectionHandlers } from './handlers/sections.js';
import { projectHandlers } from './handlers/projects.js';
import { attachmentHandlers } from './handlers/attachments.js';
import { serverLocalHandlers } from './handlers/server-local.js';
import { importHistoryHandlers } from './handlers/import-history.js';
import { threadStoreHandlers } from './handlers/thread-store.js';
import { threadHandlers } from './handlers/thread.js';
import { turnHandlers } from './handlers/turn.js';
import { turnsListHandlers } from './handlers/turns-list.js';
import type { Handlers } from './handlers/types.js';
import type { AppLogger } from './logger.js';
import { McpState } from './mcp-state.js';
import { ModelCatalog } from './model-catalog.js';
import { createThreadView, projectEvent } from './project/notifications.js';
import type { Router } from './router.js';
import { followThreadState } from './thread-state.js';

/** What the server hands over when it opens the engine. */
export interface EngineServicesOptions {
  config: ResolvedConfig;
  /** The server's router (it already tracks the open connections). */
  router: Router;
  logger: AppLogger;
  /** Default thread cwd and base of relative paths. */
  cwd: string;
  /** Paths hidden from sandboxed commands besides the home (sockets, token files). */
  sandboxHiddenPaths?: readonly string[];
  stateOf(connection: Connection): ConnectionState;
}

/** The opened engine with the handlers that use it. */
export interface EngineServices {
  readonly app: AppContext;
  /** Handlers of every client request method the server serves, except `initialize`. */
  readonly handlers: Handlers;
  /** Stops watching skill folders and routing engine events, closes the thread manager (threads, store, index) and the runtime (the demo model). */
  close(): Promise<void>;
}

/** Opens the engine (thread store and index) and builds the handlers; see the module comment. */
export async function openEngineServices(options: EngineServicesOptions): Promise<EngineServices> {
  const { config, router, logger } = options;
  const approvals = new ClientApprovals(router, logger);
  const runtime = await EngineRuntime.create({ config, approvals, source: 'vscode', sandboxHiddenPaths: options.sandboxHiddenPaths ?? [] });
  const manager = await ThreadManager.open(runtime);
  router.attach(manager, approvals, { createThreadView, projectEvent });
  const app: AppContext = {
    manager,
    runtime,
    get config() {
      return runtime.config;
    },
    router,
    approvals,
    mcp: new McpState(),
    models: new ModelCatalog(config, logger),
    logger,
    cwd: options.cwd,
    stateOf: options.stateOf,
  };
  const skillsWatcher = createSkillsWatcher(app);
  const handlers: Handlers = {
    ...threadHandlers(app),
    ...threadStoreHandlers(app),
    ...turnsListHandlers(app),
    ...turnHandlers(app),
    ...shellCommandHandlers(app),
    ...reviewHandlers(app),
    ...accountHandlers(app),
    ...configHandlers(app),
    ...modelHandlers(app),
    ...catalogHandlers(app, skillsWatcher),
    ...fsHandlers(app),
    ...fuzzySearchHandlers(app),
    ...commandHandlers(app),
    ...processHandlers(app),
    ...mcpHandlers(app),
    ...currentHandlers(app),
    ...threadHistoryHandlers(app),
    ...goalHandlers(app),
    ...threadDeleteHandlers(app),
    ...threadQueueHandlers(app),
    ...threadSearchHandlers(app),
    ...readStateHandlers(app),
    ...sectionHandlers(app),
    ...projectHandlers(app),
    ...attachmentHandlers(app),
    ...serverLocalHandlers(app),
    ...importHistoryHandlers(app),
  };
  const stopFollowing = followThreadState(app);
  return {
    app,
    handlers,
    async close() {
      skillsWatcher.close();
      stopFollowing();
      router.detach();
      await manager.close();
      await runtime.close();
    },
  };
}
