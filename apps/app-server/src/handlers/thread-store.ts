/**
 * Handlers of the stored-thread methods: `thread/read`, `thread/list` (the SQLite index, with
 * cursor, sort and filters), `thread/archive`, `thread/unarchive`, `thread/name/set` and
 * `thread/rollback` (docs/app-server.md "Methods served"). Lifecycle broadcasts follow the
 * reference's order: `notLoaded` before the archive response, `thread/archived`,
 * `thread/unarchived` and `thread/name/updated` after theirs.
 */
import { RpcError } from '@deputy/rpc/core';
import { EngineError, type ThreadSummary } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { threadArchived, threadNameUpdated, threadStatusChanged, threadUnarchived } from '../project/lifecycle.js';
import { projectThread, projectTurns } from '../project/threads.js';
import { noRollout, orNotFound, parseThreadId } from './common.js';
import { wireLoadedThread } from './thread.js';
import type { Handlers } from './types.js';

/** Source strings the engine records for each wire source kind (sub-agents have none). */
const SOURCES_OF_KIND: Record<AppServer.ThreadSourceKind, string[]> = {
  cli: ['cli'],
  vscode: ['vscode'],
  exec: ['exec'],
  appServer: ['appServer'],
  unknown: ['unknown'],
  subAgent: [],
  subAgentReview: [],
  subAgentCompact: [],
  subAgentThreadSpawn: [],
  subAgentOther: [],
};

/** Interactive sources, listed when `sourceKinds` is absent or empty (as the reference does). */
const INTERACTIVE_SOURCES = ['cli', 'vscode'];

const DEFAULT_PAGE = 25;

/** The engine source strings a `sourceKinds` filter selects (absent or `[]`: the interactive ones). */
export function sourcesOf(kinds: readonly AppServer.ThreadSourceKind[] | null | undefined): string[] {
  return kinds == null || kinds.length === 0 ? INTERACTIVE_SOURCES : [...new Set(kinds.flatMap((k) => SOURCES_OF_KIND[k]))];
}

/** The wire thread of a listed summary: the loaded thread's view when loaded, else `notLoaded`. */
export function wireListed(app: AppContext, summary: ThreadSummary): AppServer.Thread {
  const loaded = app.manager.get(summary.id);
  return loaded ? wireLoadedThread(app, loaded) : projectThread({ summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' } });
}

function listPage(app: AppContext, params: AppServer.ThreadListParams): AppServer.ThreadListResult {
  const sources = sourcesOf(params.sourceKinds);
  if (sources.length === 0 || params.limit === 0) return { data: [], nextCursor: null, backwardsCursor: null };
  let page;
  try {
    page = app.manager.list({
      limit: params.limit ?? DEFAULT_PAGE,
      cursor: params.cursor ?? null,
      sortKey: params.sortKey ?? 'created_at',
      sortDirection: params.sortDirection ?? 'desc',
      archived: params.archived === true,
      ...(params.cwd ? { cwd: params.cwd } : {}),
      ...(params.modelProviders && params.modelProviders.length > 0 ? { modelProviders: params.modelProviders } : {}),
      sources,
      ...(params.searchTerm ? { search: params.searchTerm } : {}),
    });
  } catch (e) {
    if (e instanceof EngineError && e.code === 'invalid_cursor') throw RpcError.invalidRequest(e.message);
    throw e;
  }
  const data = page.threads.map((summary) => wireListed(app, summary));
  return { data, nextCursor: page.nextCursor, backwardsCursor: null };
}

/** The handlers of this area. */
export function threadStoreHandlers(app: AppContext): Handlers {
  return {
    'thread/read': async (params) => {
      const threadId = parseThreadId(params.threadId);
      const snapshot = await orNotFound(app.manager.read(threadId), () => RpcError.invalidRequest(`thread not loaded: ${threadId}`));
      const loaded = app.manager.get(threadId);
      const turns = params.includeTurns === true ? projectTurns(snapshot.turns) : [];
      if (loaded) return { thread: wireLoadedThread(app, loaded, turns) };
      return { thread: projectThread({ summary: snapshot.summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' }, turns }) };
    },
    'thread/list': (params) => listPage(app, params),
    'thread/archive': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      if (app.manager.index.get(threadId)?.archived === true) throw noRollout(threadId);
      if (app.manager.get(threadId)) {
        // Unload first, so the interrupted turn's last events precede `notLoaded`.
        await app.manager.unload(threadId);
        app.router.publish(threadId, [threadStatusChanged(threadId, { type: 'notLoaded' })]);
      }
      await orNotFound(app.manager.archive(threadId), () => noRollout(threadId));
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [threadArchived(threadId)]));
      return {};
    },
    'thread/unarchive': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      if (app.manager.index.get(threadId)?.archived !== true) {
        throw RpcError.invalidRequest(`no archived rollout found for thread id ${threadId}`);
      }
      const summary = await app.manager.unarchive(threadId);
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [threadUnarchived(threadId)]));
      return { thread: projectThread({ summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' } }) };
    },
    'thread/name/set': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      const name = params.name.trim();
      if (name === '') throw RpcError.invalidRequest('thread name must not be empty');
      if (app.manager.index.get(threadId)?.archived === true) throw noRollout(threadId);
      const wasLoaded = app.manager.get(threadId) !== undefined;
      await app.manager.setName(threadId, name);
      // Naming a stored thread loads it in the engine; put it back the way it was.
      if (!wasLoaded) await app.manager.unload(threadId);
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [threadNameUpdated(threadId, name)]));
      return {};
    },
    'thread/rollback': async (params) => {
      const threadId = parseThreadId(params.threadId);
      if (app.manager.index.get(threadId)?.archived === true) throw noRollout(threadId);
      const thread = await app.manager.rollback(threadId, params.numTurns);
      return { thread: wireLoadedThread(app, thread, projectTurns(thread.turns)) };
    },
  };
}
