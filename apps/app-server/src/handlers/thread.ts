/**
 * Handlers of the thread session methods: `thread/start`, `thread/resume`, `thread/fork`,
 * `thread/unsubscribe` and `thread/loaded/list` (docs/app-server.md, "Methods served"). Each
 * converts params, calls the `ThreadManager`, subscribes the caller where the reference does, and
 * orders the lifecycle notifications around the response: `thread/started` after start and fork,
 * `idle` before the response of a resume that loads the thread, the token-usage replay and
 * pending approvals after.
 */
import { RpcError } from '@deputy/rpc/core';
import { McpRequiredServersError, type Thread } from '@deputy/engine';
import { instructionSources } from '@deputy/engine/facts';
import type { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import { threadStarted, threadStatusChanged, tokenUsageReplay } from '../project/lifecycle.js';
import { startupStatusReplay } from '../project/notifications.js';
import { projectSession, projectThread, projectTurns } from '../project/threads.js';
import { noRollout, orNotFound, parseThreadId, rejectEphemeral } from './common.js';
import { engineDynamicTools } from './dynamic-tools.js';
import { announceThreadProjects, placementOf, requireProject, UNPLACED } from './project-state.js';
import { threadOptions } from './thread-options.js';
import type { Handlers } from './types.js';

/** The wire form of a loaded thread, with its current status. */
export function wireLoadedThread(app: AppContext, thread: Thread, turns: AppServer.Turn[] = []): AppServer.Thread {
  const summary = app.manager.summaryOf(thread);
  const placement = thread.meta.ephemeral === true ? UNPLACED : placementOf(app, thread.id);
  const wire = projectThread({ summary, cliVersion: thread.meta.cliVersion, status: app.router.statusOf(thread.id), turns, ...placement });
  // Loaded: the current settings decide `model` and `reasoningEffort` (0.171 fields).
  return { ...wire, model: thread.settings.model, reasoningEffort: thread.settings.reasoningEffort };
}

/** The thread-session result for a loaded thread. */
export function sessionResult(app: AppContext, thread: Thread, turns: AppServer.Turn[]): AppServer.ThreadSessionResult {
  return projectSession({
    thread: wireLoadedThread(app, thread, turns),
    settings: thread.settings,
    modelProvider: thread.meta.modelProvider,
    instructionSources: instructionSources(thread.settings.cwd),
  });
}

/** Replays the last usage to one connection, as the reference does after resume and fork. */
function replayUsage(app: AppContext, thread: Thread, state: ConnectionState, lastTurnId: string | undefined): void {
  if (thread.usage && lastTurnId) app.router.sendTo(state, tokenUsageReplay(thread.id, lastTurnId, thread.usage));
}

function refuseArchived(app: AppContext, threadId: string): void {
  if (app.manager.index.isArchived(threadId) === true) throw noRollout(threadId);
}

/** The handlers of this area. */
export function threadHandlers(app: AppContext): Handlers {
  return {
    'thread/start': async (params, ctx) => {
      // An ephemeral thread (the TUI's hidden title thread) lives in memory only.
      const ephemeral = params.ephemeral === true ? { ephemeral: true } : {};
      const dynamicTools = engineDynamicTools(params.dynamicTools);
      const projectId = params.projectId == null ? null : requireProject(app, params.projectId, RpcError.invalidRequest).id;
      const thread = await app.manager
        .start({ cwd: app.cwd, ...threadOptions(app, params), ...ephemeral, ...(dynamicTools.length > 0 ? { dynamicTools } : {}) })
        .catch((error: unknown) => {
          // The reference's wording and code for a required MCP server that failed (the whole text).
          if (error instanceof McpRequiredServersError) throw RpcError.internal(`error creating thread: ${error.message}`);
          throw error;
        });
      app.router.subscribe(thread.id, app.stateOf(ctx.connection));
      // A durable thread keeps its project; an ephemeral one shows it in this response only.
      if (projectId !== null && thread.meta.ephemeral !== true) app.manager.state.projects.assign(thread.id, projectId);
      const started = sessionResult(app, thread, []);
      const result = { ...started, thread: { ...started.thread, projectId } };
      const mcp = startupStatusReplay(thread.id, thread.mcpServerStatuses());
      afterResponseOn(app, ctx, thread.id, () => app.router.publish(thread.id, [threadStarted(result.thread), ...mcp]));
      if (projectId !== null) announceThreadProjects(app, ctx, [{ threadId: thread.id, projectId }]);
      return result;
    },
    'thread/resume': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      refuseArchived(app, threadId);
      const wasLoaded = app.manager.get(threadId) !== undefined;
      const thread = await orNotFound(app.manager.resume(threadId, threadOptions(app, params)), () => noRollout(threadId));
      if (!wasLoaded) app.router.publish(threadId, [threadStatusChanged(threadId, app.router.statusOf(threadId))]);
      const state = app.stateOf(ctx.connection);
      app.router.subscribe(threadId, state);
      // As the reference does, a resumed thread shows its conversation (user and agent messages);
      // thread/read gives every item. This keeps resuming a huge thread cheap.
      const turns = thread.messageTurns();
      const mcp = wasLoaded ? [] : startupStatusReplay(threadId, thread.mcpServerStatuses());
      afterResponseOn(app, ctx, threadId, () => {
        app.router.publish(threadId, mcp);
        replayUsage(app, thread, state, turns.at(-1)?.info.id);
        app.approvals.offerPending(threadId, state);
      });
      return sessionResult(app, thread, params.excludeTurns === true ? [] : projectTurns(turns));
    },
    'thread/fork': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      rejectEphemeral(params.ephemeral);
      refuseArchived(app, threadId);
      const thread = await orNotFound(app.manager.fork(threadId, threadOptions(app, params)), () => noRollout(threadId));
      const state = app.stateOf(ctx.connection);
      app.router.subscribe(thread.id, state);
      const result = sessionResult(app, thread, params.excludeTurns === true ? [] : projectTurns(thread.turns));
      const mcp = startupStatusReplay(thread.id, thread.mcpServerStatuses());
      afterResponseOn(app, ctx, thread.id, () => {
        replayUsage(app, thread, state, thread.turns.at(-1)?.info.id);
        app.router.publish(thread.id, [threadStarted({ ...result.thread, turns: [] }), ...mcp]);
      });
      return result;
    },
    'thread/unsubscribe': (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      if (!app.manager.get(threadId)) return { status: 'notLoaded' };
      const state = app.stateOf(ctx.connection);
      if (!app.router.unsubscribe(threadId, state)) return { status: 'notSubscribed' };
      app.approvals.withdraw(threadId, state);
      return { status: 'unsubscribed' };
    },
    'thread/loaded/list': (params) => {
      const ids = app.manager.loaded().map((t) => t.id);
      let start = 0;
      if (params.cursor) {
        const at = ids.indexOf(params.cursor);
        if (at < 0) throw RpcError.invalidRequest(`invalid cursor: ${params.cursor}`);
        start = at + 1;
      }
      const limit = params.limit ?? ids.length;
      const data = ids.slice(start, start + Math.max(limit, 0));
      const hasMore = start + data.length < ids.length && data.length > 0;
      return { data, nextCursor: hasMore ? (data.at(-1) as string) : null };
    },
  };
}
