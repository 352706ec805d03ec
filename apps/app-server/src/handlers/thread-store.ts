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
import { placementOf, placementsOf, requireProject, type ThreadPlacement } from './project-state.js';
import { readStateOf, readStatesOf } from './read-state.js';
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
/** Largest page `thread/list` returns; a larger `limit` is cut to it (docs/app-server.md "Limits"). */
export const MAX_LIST_PAGE = 500;
/** Longest `searchTerm`, in characters (docs/app-server.md "Limits"). */
export const MAX_SEARCH_TERM_CHARS = 1024;

/** Refuses a search term the index should not be asked about: too long, or holding NUL. */
function checkSearchTerm(term: string | null | undefined): void {
  if (!term) return;
  if (term.length > MAX_SEARCH_TERM_CHARS) {
    throw RpcError.invalidRequest(`Invalid request: searchTerm is ${term.length} characters long; the limit is ${MAX_SEARCH_TERM_CHARS}`);
  }
  if (term.includes('\u0000')) throw RpcError.invalidRequest('Invalid request: searchTerm must not contain NUL (U+0000)');
}

/** The engine source strings a `sourceKinds` filter selects (absent or `[]`: the interactive ones). */
export function sourcesOf(kinds: readonly AppServer.ThreadSourceKind[] | null | undefined): string[] {
  return kinds == null || kinds.length === 0 ? INTERACTIVE_SOURCES : [...new Set(kinds.flatMap((k) => SOURCES_OF_KIND[k]))];
}

/**
 * The wire thread of a listed summary: the loaded thread's view when loaded, else `notLoaded`
 * (with `placement` when the caller looked it up already, for a whole page at once).
 */
export function wireListed(app: AppContext, summary: ThreadSummary, placement?: ThreadPlacement): AppServer.Thread {
  const loaded = app.manager.get(summary.id);
  return loaded
    ? wireLoadedThread(app, loaded)
    : projectThread({ summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' }, ...(placement ?? placementOf(app, summary.id)) });
}

type IndexSortKey = 'created_at' | 'updated_at';

/** The index order of a wire sort key: `recency_at` is `updated_at` (Deputy has no other recency). */
function indexSortKey(sortKey: AppServer.ThreadListParams['sortKey']): IndexSortKey {
  return sortKey === 'updated_at' || sortKey === 'recency_at' ? 'updated_at' : 'created_at';
}

/**
 * One index page, with the list's filters. A page with a search term is read on the index's
 * worker thread (a text search can take long); a plain page is a short indexed lookup.
 */
async function indexPage(app: AppContext, params: AppServer.ThreadListParams, sources: string[], limit: number, cursor: string | null) {
  try {
    return await app.manager.listAsync({
      limit,
      cursor,
      sortKey: indexSortKey(params.sortKey),
      sortDirection: params.sortDirection ?? 'desc',
      archived: params.archived === true,
      ...(params.cwd ? { cwd: params.cwd } : {}),
      ...(params.modelProviders && params.modelProviders.length > 0 ? { modelProviders: params.modelProviders } : {}),
      sources,
      ...(params.searchTerm ? { search: params.searchTerm } : {}),
    });
  } catch (e) {
    if (e instanceof EngineError && (e.code === 'invalid_cursor' || e.code === 'index_timeout')) throw RpcError.invalidRequest(e.message);
    throw e;
  }
}

/** Which threads a list keeps, by id: the `sectionId: null` and `projectId` filters that the index cannot apply. */
type Keep = (threadId: string) => boolean;

/** The predicate of the section and project filters, or null when neither narrows the list. */
function keepOf(app: AppContext, params: AppServer.ThreadListParams): Keep | null {
  const tests: Keep[] = [];
  if (params.sectionId === null) {
    const sectioned = app.manager.state.sectionedThreadIds();
    tests.push((id) => !sectioned.has(id));
  }
  if (typeof params.projectId === 'string') {
    requireProject(app, params.projectId);
    const members = new Set(app.manager.state.projects.members(params.projectId));
    tests.push((id) => members.has(id));
  } else if (params.projectId === null) {
    const assigned = app.manager.state.projects.assignedThreadIds();
    tests.push((id) => !assigned.has(id));
  }
  return tests.length === 0 ? null : (id) => tests.every((test) => test(id));
}

/**
 * The threads among `threadIds` (a section's in section order, or a project's), in that order
 * (`section_position`) or by time, paged by the id of the last thread returned. The list's
 * archive, source and other filters apply.
 */
function memberPage(app: AppContext, params: AppServer.ThreadListParams, threadIds: readonly string[], sources: string[], limit: number, keep: Keep | null): { rows: ThreadSummary[]; nextCursor: string | null } {
  const rows = threadIds
    .filter((id) => keep === null || keep(id))
    .map((id) => app.manager.index.get(id))
    .filter((row): row is NonNullable<typeof row> => row !== null && row.archived === (params.archived === true) && sources.includes(row.source));
  if (params.sortKey === 'section_position') {
    if (params.sortDirection === 'desc') rows.reverse();
  } else {
    const key = indexSortKey(params.sortKey) === 'created_at' ? 'createdAtMs' : 'updatedAtMs';
    const sign = params.sortDirection === 'asc' ? 1 : -1;
    rows.sort((a, b) => sign * (a[key] - b[key] || a.id.localeCompare(b.id)));
  }
  let start = 0;
  if (params.cursor != null) {
    start = rows.findIndex((row) => row.id === params.cursor) + 1;
    if (start === 0) throw RpcError.invalidRequest(`invalid cursor: ${params.cursor}`);
  }
  const page = rows.slice(start, start + limit);
  return { rows: page, nextCursor: start + page.length < rows.length ? (page.at(-1)?.id ?? null) : null };
}

/** Index pages filtered by `keep`: each page asks for no more rows than are still wanted, so none is cut. */
async function filteredPage(app: AppContext, params: AppServer.ThreadListParams, sources: string[], limit: number, keep: Keep): Promise<{ rows: ThreadSummary[]; nextCursor: string | null }> {
  const rows: ThreadSummary[] = [];
  let cursor = params.cursor ?? null;
  do {
    const page = await indexPage(app, params, sources, limit - rows.length, cursor);
    rows.push(...page.threads.filter((t) => keep(t.id)));
    cursor = page.nextCursor;
  } while (cursor !== null && rows.length < limit);
  return { rows, nextCursor: cursor };
}

async function listPage(app: AppContext, params: AppServer.ThreadListParams): Promise<AppServer.ThreadListResult> {
  checkSearchTerm(params.searchTerm);
  if (params.sortKey === 'section_position' && typeof params.sectionId !== 'string') {
    throw RpcError.invalidRequest('sortKey section_position requires a sectionId');
  }
  const sources = sourcesOf(params.sourceKinds);
  if (sources.length === 0 || params.limit === 0) return { data: [], nextCursor: null, backwardsCursor: null, readStates: {} };
  const limit = Math.min(params.limit ?? DEFAULT_PAGE, MAX_LIST_PAGE);
  const keep = keepOf(app, params);
  let page: { rows: ThreadSummary[]; nextCursor: string | null };
  if (typeof params.sectionId === 'string') {
    const members = app.manager.state.members(params.sectionId).map((m) => m.threadId);
    page = memberPage(app, params, members, sources, limit, keep);
  } else if (typeof params.projectId === 'string') {
    page = memberPage(app, params, app.manager.state.projects.members(params.projectId), sources, limit, keep);
  } else if (keep !== null) page = await filteredPage(app, params, sources, limit, keep);
  else {
    const indexed = await indexPage(app, params, sources, limit, params.cursor ?? null);
    page = { rows: indexed.threads, nextCursor: indexed.nextCursor };
  }
  // The page's placements and read states are read with a few queries, not a few per thread.
  const ids = page.rows.map((summary) => summary.id);
  const placements = placementsOf(app, ids);
  const data = page.rows.map((summary) => wireListed(app, summary, placements.get(summary.id)));
  const readStates = readStatesOf(app, ids);
  return { data, nextCursor: page.nextCursor, backwardsCursor: null, readStates };
}

/** The handlers of this area. */
export function threadStoreHandlers(app: AppContext): Handlers {
  return {
    'thread/read': async (params) => {
      const threadId = parseThreadId(params.threadId);
      const snapshot = await orNotFound(app.manager.read(threadId), () => RpcError.invalidRequest(`thread not loaded: ${threadId}`));
      const loaded = app.manager.get(threadId);
      const turns = params.includeTurns === true ? projectTurns(snapshot.turns) : [];
      if (loaded) return { thread: wireLoadedThread(app, loaded, turns), readState: loaded.meta.ephemeral === true ? null : readStateOf(app, threadId) };
      const thread = projectThread({ summary: snapshot.summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' }, turns, ...placementOf(app, threadId) });
      return { thread, readState: readStateOf(app, threadId) };
    },
    'thread/list': (params) => listPage(app, params),
    'thread/archive': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      if (app.manager.index.isArchived(threadId) === true) throw noRollout(threadId);
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
      if (app.manager.index.isArchived(threadId) !== true) {
        throw RpcError.invalidRequest(`no archived rollout found for thread id ${threadId}`);
      }
      const summary = await app.manager.unarchive(threadId);
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [threadUnarchived(threadId)]));
      return { thread: projectThread({ summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' }, ...placementOf(app, threadId) }) };
    },
    'thread/name/set': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      const name = params.name.trim();
      if (name === '') throw RpcError.invalidRequest('thread name must not be empty');
      if (app.manager.index.isArchived(threadId) === true) throw noRollout(threadId);
      const wasLoaded = app.manager.get(threadId) !== undefined;
      await app.manager.setName(threadId, name);
      // Naming a stored thread loads it in the engine; put it back the way it was.
      if (!wasLoaded) await app.manager.unload(threadId);
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [threadNameUpdated(threadId, name)]));
      return {};
    },
    'thread/rollback': async (params) => {
      const threadId = parseThreadId(params.threadId);
      if (app.manager.index.isArchived(threadId) === true) throw noRollout(threadId);
      const thread = await app.manager.rollback(threadId, params.numTurns);
      return { thread: wireLoadedThread(app, thread, projectTurns(thread.turns)) };
    },
  };
}
