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
import { invalidParams } from './command.js';

/** The project a stored thread belongs to, or null. */
export function projectIdOf(app: AppContext, threadId: string): string | null {
  return app.manager.state.projects.projectOf(threadId);
}

/**
 * The project, or `project not found: <id>`: -32602 by default (the `project/*` methods and the
 * `thread/list` filter, as the reference answers), -32600 with `refuse` (`thread/start`,
 * `thread/metadata/update`, likewise).
 */
export function requireProject(app: AppContext, projectId: string, refuse: (message: string) => RpcError = invalidParams): StoredProject {
  const project = app.manager.state.projects.get(projectId);
  if (project === null) throw refuse(`project not found: ${projectId}`);
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
