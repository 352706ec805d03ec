/**
 * Read state (experimental; docs/app-server.md, "0.171 additions"): where each stored thread's
 * unread part starts, with a revision that guards updates. A completed turn makes the thread
 * unread from that turn when it was read (`thread-state.ts`); `thread/readState/update` marks it
 * read or unread. Every change gets a new revision and is announced to every client with
 * `thread/readState/changed`. `thread/list` reports the listed threads' states (`readStates`).
 */
import { RpcError } from '@deputy/rpc/core';
import type { StoredReadState } from '@deputy/engine';
import { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { existingThread } from './goals.js';
import type { Handlers } from './types.js';

/** The read state of a stored thread (read, revision `0`, when it never had one). */
export function readStateOf(app: AppContext, threadId: string): AppServer.ThreadReadState {
  return wireReadState(app.manager.state.readState(threadId));
}

/** `readStateOf` for many stored threads at once (a `thread/list` page's `readStates`): one query. */
export function readStatesOf(app: AppContext, threadIds: readonly string[]): Record<string, AppServer.ThreadReadState> {
  const stored = app.manager.state.readStatesOf(threadIds);
  return Object.fromEntries(threadIds.map((id) => [id, wireReadState(stored.get(id) ?? null)]));
}

function wireReadState(stored: StoredReadState | null): AppServer.ThreadReadState {
  if (stored === null) return { firstUnread: null, revision: '0' };
  const position = AppServer.ThreadUnreadPositionSchema.nullable().safeParse(stored.firstUnread);
  return { firstUnread: position.success ? position.data : null, revision: String(stored.revision) };
}

/** Sets a thread's first unread position with a new revision; returns the `thread/readState/changed` to send. */
export function setFirstUnread(app: AppContext, threadId: string, firstUnread: AppServer.ThreadUnreadPosition | null): AppServer.ThreadReadState {
  const revision = (app.manager.state.readState(threadId)?.revision ?? 0) + 1;
  app.manager.state.putReadState(threadId, { firstUnread, revision });
  return { firstUnread, revision: String(revision) };
}

/** The handlers of this area. */
export function readStateHandlers(app: AppContext): Handlers {
  return {
    'thread/readState/update': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const current = readStateOf(app, threadId);
      if (params.expectedRevision !== current.revision) {
        throw RpcError.invalidRequest(`stale read state revision ${params.expectedRevision}: thread ${threadId} is at revision ${current.revision}`);
      }
      const readState = setFirstUnread(app, threadId, params.operation.type === 'read' ? null : { type: 'threadStart' });
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [notification('thread/readState/changed', { threadId, readState })]));
      return { readState };
    },
  };
}
