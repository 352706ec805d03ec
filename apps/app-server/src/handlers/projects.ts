/**
 * Handlers of projects (docs/app-server.md "Projects"): `project/list` (the user's order or
 * newest thread first, paged by project id), `project/read`, `project/create` and
 * `project/import` (idempotent by `idempotencyKey`; import also moves threads in),
 * `project/update`, `project/move`, `project/delete` (its threads belong to no project
 * afterwards), and `thread/metadata/update`, which moves one thread between projects. Projects
 * live in the engine's thread-state store. Every change is announced to every current client:
 * `project/changed` for the project, `thread/project/updated` for each thread that moved.
 */
import path from 'node:path';
import { RpcError, type HandlerContext } from '@deputy/rpc/core';
import type { StoredProject } from '@deputy/engine';
import { wholeSeconds } from '@deputy/engine/facts';
import type { AppServer } from '@deputy/protocol';
import { afterResponse, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { projectThread } from '../project/threads.js';
import { invalidParams } from './command.js';
import { pageById } from './common.js';
import { existingThread } from './goals.js';
import { announceThreadProjects, placementOf, projectIdOf, requireProject } from './project-state.js';
import { wireLoadedThread } from './thread.js';
import type { Handlers } from './types.js';

const DEFAULT_PAGE = 100;
/** Router key of `project/changed` (an audience-`all` notification about no thread; never held). */
const PROJECTS_DELIVERY_KEY = 'projects';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Newest `recencyAt` of the project's unarchived threads, or null. */
function recencyOf(app: AppContext, projectId: string): number | null {
  let newest: number | null = null;
  for (const threadId of app.manager.state.projects.members(projectId)) {
    const row = app.manager.index.get(threadId);
    if (row === null || row.archived) continue;
    const at = wholeSeconds(row.updatedAtMs);
    if (newest === null || at > newest) newest = at;
  }
  return newest;
}

/** The wire form of a stored project. */
function wireProject(app: AppContext, project: StoredProject): AppServer.Project {
  return { ...project, roots: project.roots.map((root) => ({ path: root })), recencyAt: recencyOf(app, project.id) };
}

function nameOf(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalidParams('project name must not be empty');
  return trimmed;
}

/** Normalized roots in the given order; a root given twice is refused. */
function rootsOf(roots: ReadonlyArray<{ path: string }>): string[] {
  const paths = roots.map((root) => path.resolve(root.path));
  const twice = paths.find((p, i) => paths.indexOf(p) !== i);
  if (twice !== undefined) throw invalidParams(`duplicate project root: ${twice}`);
  return paths;
}

/** A thread `project/import` may move: stored or loaded (`thread not found: <id>` otherwise), not ephemeral, not archived. */
function importedThread(app: AppContext, threadId: string): string {
  if (app.manager.get(threadId) === undefined && app.manager.index.get(threadId) === null) throw invalidParams(`thread not found: ${threadId}`);
  return existingThread(app, threadId);
}

/** `project/changed` to every connection, after this request's response. */
function announceProject(app: AppContext, ctx: HandlerContext, projectId: string, changeType: 'created' | 'updated' | 'deleted'): void {
  afterResponse(ctx, () => app.router.publish(PROJECTS_DELIVERY_KEY, [notification('project/changed', { projectId, changeType })]));
}

/** Creates (or, for a known idempotency key, finds) a project and moves `threads` into a new one. */
function createProject(app: AppContext, ctx: HandlerContext, params: AppServer.ProjectImportParams): { project: AppServer.Project } {
  if (params.idempotencyKey === '') throw invalidParams('idempotencyKey must not be empty');
  const name = nameOf(params.name);
  const roots = rootsOf(params.roots);
  // Check every thread first, so a bad id leaves nothing half done.
  const threads = [...new Set((params.threads ?? []).map((threadId) => importedThread(app, threadId)))];
  const { project, created } = app.manager.state.projects.create(
    { name, roots, metadata: params.metadata ?? {}, idempotencyKey: params.idempotencyKey, nowSeconds: nowSeconds() },
    threads,
  );
  if (created) {
    announceProject(app, ctx, project.id, 'created');
    announceThreadProjects(app, ctx, threads.map((threadId) => ({ threadId, projectId: project.id })));
  }
  return { project: wireProject(app, project) };
}

/** Projects in the requested order: by position, or by recency with thread-less projects last. */
function sortedProjects(app: AppContext, params: AppServer.ProjectListParams): AppServer.Project[] {
  const projects = app.manager.state.projects.list().map((project) => wireProject(app, project));
  if (params.sortKey !== 'recencyAt') return params.sortDirection === 'desc' ? projects.reverse() : projects;
  const sign = params.sortDirection === 'asc' ? 1 : -1;
  // A stable sort keeps the user's order among equals.
  return projects.sort((a, b) => {
    if (a.recencyAt == null || b.recencyAt == null) return (a.recencyAt == null ? 1 : 0) - (b.recencyAt == null ? 1 : 0);
    return sign * (a.recencyAt - b.recencyAt);
  });
}

/** The wire thread after a metadata change: the loaded view, or the stored one. */
function wireThreadOf(app: AppContext, threadId: string): AppServer.Thread {
  const loaded = app.manager.get(threadId);
  if (loaded) return wireLoadedThread(app, loaded);
  const summary = app.manager.index.get(threadId);
  if (summary === null) throw RpcError.invalidRequest(`thread not found: ${threadId}`);
  return projectThread({ summary, cliVersion: app.runtime.version, status: { type: 'notLoaded' }, ...placementOf(app, threadId) });
}

/** The handlers of this area. */
export function projectHandlers(app: AppContext): Handlers {
  // The store opens with the first request that needs it.
  const projects = () => app.manager.state.projects;
  return {
    'project/list': (params) => {
      const sorted = sortedProjects(app, params);
      if (params.cursor != null && !sorted.some((p) => p.id === params.cursor)) throw invalidParams(`invalid project cursor: ${params.cursor}`);
      const page = pageById(sorted, params.cursor, params.limit ?? DEFAULT_PAGE);
      return { data: page.data, nextCursor: page.nextCursor };
    },
    'project/read': (params) => ({ project: wireProject(app, requireProject(app, params.projectId)) }),
    'project/create': (params, ctx) => createProject(app, ctx, params),
    'project/import': (params, ctx) => createProject(app, ctx, params),
    'project/update': (params, ctx) => {
      const current = requireProject(app, params.projectId);
      const next: StoredProject = {
        ...current,
        name: params.name == null ? current.name : nameOf(params.name),
        roots: params.roots == null ? current.roots : rootsOf(params.roots),
        metadata: params.metadata ?? current.metadata,
        updatedAt: nowSeconds(),
      };
      projects().update(next);
      announceProject(app, ctx, next.id, 'updated');
      return { project: wireProject(app, next) };
    },
    'project/move': (params, ctx) => {
      const projectId = requireProject(app, params.projectId).id;
      const before = params.beforeProjectId ?? null;
      if (before !== null) {
        if (before === projectId) throw invalidParams(`project ${projectId} cannot be moved before itself`);
        requireProject(app, before, (message) => invalidParams(`before ${message}`));
      }
      projects().move(projectId, before);
      announceProject(app, ctx, projectId, 'updated');
      return {};
    },
    'project/delete': (params, ctx) => {
      const members = projects().delete(params.projectId);
      if (members === null) throw invalidParams(`project not found: ${params.projectId}`);
      announceProject(app, ctx, params.projectId, 'deleted');
      announceThreadProjects(app, ctx, members.map((threadId) => ({ threadId, projectId: null })));
      return {};
    },
    'thread/metadata/update': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      if (params.gitInfo == null && params.projectId == null && params.daybreakEnabled == null) {
        throw RpcError.invalidRequest('thread metadata update must include at least one field');
      }
      const git = params.gitInfo;
      if (git != null && (git.sha !== undefined || git.branch !== undefined || git.originUrl !== undefined)) {
        throw RpcError.invalidRequest('gitInfo updates are not supported by this server: Deputy records no git facts for threads');
      }
      if (params.projectId != null) {
        const projectId = params.projectId === '' ? null : requireProject(app, params.projectId, RpcError.invalidRequest).id;
        if (projectIdOf(app, threadId) !== projectId) {
          projects().assign(threadId, projectId);
          announceThreadProjects(app, ctx, [{ threadId, projectId }]);
        }
      }
      return { thread: wireThreadOf(app, threadId) };
    },
  };
}
