/**
 * The project and section facts other handlers need (docs/app-server.md "Projects"): which
 * project and section a thread belongs to (`Thread.projectId`, `section`, `sectionEnteredAt`),
 * the wire form of a section, the check that a project exists, and the
 * `thread/project/updated` announcement after a request moved threads. A leaf module, so the
 * thread handlers and the `project/*` handlers can share it.
 */
import { RpcError, type HandlerContext } from '@deputy/rpc/core';
import type { StoredMembership, StoredProject, StoredSection } from '@deputy/engine';
import { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { invalidParams } from './command.js';

/** The project a stored thread belongs to, or null. */
export function projectIdOf(app: AppContext, threadId: string): string | null {
  return app.manager.state.projects.projectOf(threadId);
}

/** The wire form of a stored section. */
export function wireSection(section: StoredSection): AppServer.ThreadSection {
  const appearance = AppServer.ThreadSectionSchema.shape.appearance.safeParse(section.appearance);
  return { id: section.id, name: section.name, appearance: appearance.success ? appearance.data : null };
}

/** Where a stored thread is filed: its project, and its section with the time it entered it. */
export interface ThreadPlacement {
  projectId: string | null;
  section: AppServer.ThreadSection | null;
  sectionEnteredAt: number | null;
}

/** The placement of an ephemeral thread (never filed anywhere). */
export const UNPLACED: ThreadPlacement = { projectId: null, section: null, sectionEnteredAt: null };

/** The project and section of a stored thread (`Thread.projectId`, `section`, `sectionEnteredAt`). */
export function placementOf(app: AppContext, threadId: string): ThreadPlacement {
  return placementFrom(app, app.manager.state.membership(threadId), projectIdOf(app, threadId));
}

/**
 * `placementOf` for many stored threads at once (a `thread/list` page): two queries in all
 * instead of two per thread.
 */
export function placementsOf(app: AppContext, threadIds: readonly string[]): Map<string, ThreadPlacement> {
  const memberships = app.manager.state.membershipsOf(threadIds);
  const projects = app.manager.state.projects.projectsOf(threadIds);
  return new Map(threadIds.map((id) => [id, placementFrom(app, memberships.get(id) ?? null, projects.get(id) ?? null)]));
}

function placementFrom(app: AppContext, membership: StoredMembership | null, projectId: string | null): ThreadPlacement {
  const section = membership === null ? null : app.manager.state.section(membership.sectionId);
  return {
    projectId,
    section: section === null ? null : wireSection(section),
    sectionEnteredAt: section === null || membership === null ? null : membership.enteredAt,
  };
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
