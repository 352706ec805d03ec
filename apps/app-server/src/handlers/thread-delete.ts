/**
 * Handler of `thread/delete` (docs/app-server.md, "0.171 additions"): the thread is unloaded (its
 * running turn interrupted, `thread/status/changed` to `notLoaded` before the response, as for an
 * archive), its rollout file removed (live or archived), its index row and its goal and queue
 * dropped; `thread/deleted` is broadcast after the response. An ephemeral thread is unloaded.
 */
import { afterResponseOn, type AppContext } from '../app-context.js';
import { threadStatusChanged } from '../project/lifecycle.js';
import { notification } from '../project/outbound.js';
import { noRollout, orNotFound, parseThreadId } from './common.js';
import type { Handlers } from './types.js';

/** The handlers of this area. */
export function threadDeleteHandlers(app: AppContext): Handlers {
  return {
    'thread/delete': async (params, ctx) => {
      const threadId = parseThreadId(params.threadId);
      const loaded = app.manager.get(threadId);
      if (loaded === undefined && app.manager.index.get(threadId) === null) throw noRollout(threadId);
      if (loaded !== undefined) {
        await app.manager.unload(threadId);
        app.router.publish(threadId, [threadStatusChanged(threadId, { type: 'notLoaded' })]);
      }
      // An ephemeral thread has nothing stored: unloading it was all.
      if (loaded?.meta.ephemeral !== true) await orNotFound(app.manager.delete(threadId), () => noRollout(threadId));
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [notification('thread/deleted', { threadId })]));
      return {};
    },
  };
}
