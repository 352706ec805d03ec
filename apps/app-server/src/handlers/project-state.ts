/**
 * The project facts other handlers need (docs/app-server.md "Projects"): which project a thread
 * belongs to (`Thread.projectId`), the check that a project exists, and the
 * `thread/project/updated` announcement after a request moved threads. A leaf module, so the
 * thread handlers and the `project/*` handlers can share it.
 */
import { RpcError, type HandlerContext } from '@deputy/rpc/core';
import type { StoredProject } from '@deputy/engine';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';

/** The project a stored thread belongs to, or null. */
export function projectIdOf(app: AppContext, threadId: string): string | null {
  return app.manager.state.projects.projectOf(threadId);
}

/** The project, or -32600 `project not found: <id>`. */
export function requireProject(app: AppContext, projectId: string): StoredProject {
  const project = app.manager.state.projects.get(projectId);
  if (project === null) throw RpcError.invalidRequest(`project not found: ${projectId}`);
  return project;
}

/** `thread/project/updated` for each thread, to every connection, after this request's response. */
export function announceThreadProjects(
  app: AppContext,
  ctx: HandlerContext,
  changes: ReadonlyArray<{ threadId: string; projectId: string | null }>,
): void {
  for (const change of changes) {
    afterResponseOn(app, ctx, change.threadId, () => app.router.publish(change.threadId, [notification('thread/project/updated', change)]));
  }
}
