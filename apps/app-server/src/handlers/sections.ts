/**
 * Handlers of thread sections (docs/app-server.md, "0.171 additions"): `threadSection/list`,
 * `create`, `update`, `delete` (user-defined groups of threads, in creation order) and
 * `thread/section/move` (a thread into a section, before another of its threads or at its end,
 * or out of it), stored in the engine's thread-state store. Each thread that enters or leaves a
 * section is announced to every client with `thread/section/changed`. `thread/list` filters and
 * orders by section (`thread-store.ts`).
 */
import { RpcError, type HandlerContext } from '@deputy/rpc/core';
import type { StoredSection } from '@deputy/engine';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { pageById } from './common.js';
import { existingThread } from './goals.js';
import { wireSection } from './project-state.js';
import type { Handlers } from './types.js';

const DEFAULT_PAGE = 100;

/** The section, or -32600 `section not found: <id>`. */
export function requireSection(app: AppContext, sectionId: string): StoredSection {
  const section = app.manager.state.section(sectionId);
  if (section === null) throw RpcError.invalidRequest(`section not found: ${sectionId}`);
  return section;
}

function nameOf(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw RpcError.invalidRequest('section name must not be empty');
  return trimmed;
}

/** `thread/section/changed` for each thread, after this request's response. */
function announce(app: AppContext, ctx: HandlerContext, changes: ReadonlyArray<{ threadId: string; sectionId: string | null }>): void {
  for (const change of changes) {
    afterResponseOn(app, ctx, change.threadId, () => app.router.publish(change.threadId, [notification('thread/section/changed', change)]));
  }
}

/** The handlers of this area. */
export function sectionHandlers(app: AppContext): Handlers {
  return {
    'threadSection/list': (params) => {
      const page = pageById(app.manager.state.sections(), params.cursor, params.limit ?? DEFAULT_PAGE);
      return { data: page.data.map(wireSection), nextCursor: page.nextCursor };
    },
    'threadSection/create': (params) => ({
      section: wireSection(app.manager.state.createSection(nameOf(params.name), params.appearance ?? null)),
    }),
    'threadSection/update': (params) => {
      const current = requireSection(app, params.sectionId);
      const next: StoredSection = {
        id: current.id,
        name: nameOf(params.name),
        appearance: params.appearance === undefined ? current.appearance : params.appearance,
      };
      app.manager.state.updateSection(next);
      return { section: wireSection(next) };
    },
    'threadSection/delete': (params, ctx) => {
      const members = app.manager.state.deleteSection(params.sectionId);
      if (members === null) throw RpcError.invalidRequest(`section not found: ${params.sectionId}`);
      announce(app, ctx, members.map((threadId) => ({ threadId, sectionId: null })));
      return {};
    },
    'thread/section/move': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const sectionId = params.sectionId;
      const before = params.beforeThreadId ?? null;
      if (sectionId !== null) {
        requireSection(app, sectionId);
        if (before !== null && (before === threadId || app.manager.state.membership(before)?.sectionId !== sectionId)) {
          throw RpcError.invalidRequest(`thread ${before} is not another thread of section ${sectionId}`);
        }
      }
      const was = app.manager.state.membership(threadId)?.sectionId ?? null;
      app.manager.state.moveToSection(threadId, sectionId, sectionId === null ? null : before, Math.floor(Date.now() / 1000));
      if (was !== sectionId) announce(app, ctx, [{ threadId, sectionId }]);
      return {};
    },
  };
}
