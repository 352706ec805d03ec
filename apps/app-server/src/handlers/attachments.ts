/**
 * Handlers of thread attachments (docs/app-server.md "Thread attachments"):
 * `thread/attachment/add` (idempotent on the thread's (`attachmentType`, `identityKey`): a second
 * add answers the stored attachment with `outcome: "existing"` and changes nothing),
 * `thread/attachment/list` (oldest first, paged by attachment id; empty for an unknown thread), `thread/attachment/remove`
 * (removing an identity the thread does not hold changes nothing) and
 * `thread/attachmentOwner/list` (the threads holding an identity, paged by thread id). They live
 * in the engine's thread-state store; each add that creates and each remove that deletes is
 * announced to every current client with `thread/attachment/updated`.
 */
import type { HandlerContext } from '@deputy/rpc/core';
import type { StoredAttachment } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { pageById } from './common.js';
import { existingThread } from './goals.js';
import type { Handlers } from './types.js';

const DEFAULT_PAGE = 100;

/** The wire form of a stored attachment. */
function wireAttachment(attachment: StoredAttachment): AppServer.ThreadAttachment {
  const { id, attachmentType, identityKey, payload, createdAt } = attachment;
  return { id, attachmentType, identityKey, payload, createdAt };
}

/** `thread/attachment/updated` to every current client, after this request's response. */
function announce(app: AppContext, ctx: HandlerContext, attachment: StoredAttachment, operation: 'created' | 'deleted'): void {
  const params = {
    threadId: attachment.threadId,
    attachmentId: attachment.id,
    attachmentType: attachment.attachmentType,
    identityKey: attachment.identityKey,
    operation,
  };
  afterResponseOn(app, ctx, attachment.threadId, () => app.router.publish(attachment.threadId, [notification('thread/attachment/updated', params)]));
}

/** Whether a thread is archived, or null when it is neither loaded nor stored any more. */
function archivedOf(app: AppContext, threadId: string): boolean | null {
  const row = app.manager.index.get(threadId);
  if (row !== null) return row.archived;
  return app.manager.get(threadId) === undefined ? null : false;
}

/** The handlers of this area. */
export function attachmentHandlers(app: AppContext): Handlers {
  // The store opens with the first request that needs it.
  const attachments = () => app.manager.state.attachments;
  return {
    'thread/attachment/add': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const { attachmentType, identityKey, payload } = params;
      const { attachment, created } = attachments().add({ threadId, attachmentType, identityKey, payload }, Math.floor(Date.now() / 1000));
      if (created) announce(app, ctx, attachment, 'created');
      return { attachment: wireAttachment(attachment), outcome: created ? 'created' : 'existing' };
    },
    'thread/attachment/list': (params) => {
      // As the reference: a thread that is not stored holds no attachments.
      const page = pageById(attachments().list(params.threadId), params.cursor, params.limit ?? DEFAULT_PAGE);
      return { data: page.data.map(wireAttachment), nextCursor: page.nextCursor };
    },
    'thread/attachmentOwner/list': (params) => {
      const owners: Array<{ id: string; threadId: string; archived: boolean }> = [];
      for (const threadId of attachments().owners(params.attachmentType, params.identityKey)) {
        const archived = archivedOf(app, threadId);
        if (archived === null || (params.archived != null && archived !== params.archived)) continue;
        owners.push({ id: threadId, threadId, archived });
      }
      const page = pageById(owners, params.cursor, params.limit ?? DEFAULT_PAGE);
      return { data: page.data.map(({ threadId, archived }) => ({ threadId, archived })), nextCursor: page.nextCursor };
    },
    'thread/attachment/remove': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const removed = attachments().remove(threadId, params.attachmentType, params.identityKey);
      if (removed !== null) announce(app, ctx, removed, 'deleted');
      return {};
    },
  };
}
