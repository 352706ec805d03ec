/**
 * Handler of `review/start` (the Codex TUI's `/review`). The target is resolved first (its git
 * diff read in the thread's cwd), so a bad target fails before anything starts: -32600 for an
 * empty branch, sha or instructions, a git target outside a git repository, an unknown branch or
 * commit, and a thread that is running a turn. `inline` (the default) runs the review as a turn
 * of the thread itself; `detached` forks the thread into a new one, subscribes the caller, and
 * announces it with `thread/started` right after the response, before the review turn's events.
 */
import { resolveReviewRequest, type Thread } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import { afterResponse, afterResponseOn, type AppContext } from '../app-context.js';
import { newTurn } from '../project/threads.js';
import { threadStarted } from '../project/lifecycle.js';
import { noRollout, orNotFound, requireLoaded } from './common.js';
import { wireLoadedThread } from './thread.js';
import type { Handlers } from './types.js';

/** Refuses to review from a thread that is running a turn. */
function refuseWhileRunning(thread: Thread): void {
  const active = thread.activeTurnId;
  if (active !== null) {
    throw RpcError.invalidRequest(
      `a turn is already running on thread ${thread.id} (turn ${active}); wait for it to end or use turn/interrupt before starting a review`,
    );
  }
}

/** The handlers of this area. */
export function reviewHandlers(app: AppContext): Handlers {
  return {
    'review/start': async (params, ctx) => {
      const parent = requireLoaded(app, params.threadId);
      refuseWhileRunning(parent);
      // Its git runs in a read-only sandbox with the server's secrets hidden, and stops when the request is cancelled.
      const request = await resolveReviewRequest(params.target, parent.settings.cwd, { hiddenPaths: app.runtime.sandboxHiddenPaths, signal: ctx.signal });
      if (params.delivery !== 'detached') {
        // Re-checked: a turn may have started while git ran.
        refuseWhileRunning(parent);
        afterResponse(ctx, app.router.hold(parent.id));
        const { turnId } = parent.beginReview(request);
        return { turn: newTurn(turnId), reviewThreadId: parent.id };
      }
      const thread = await orNotFound(app.manager.fork(parent.id), () => noRollout(parent.id));
      app.router.subscribe(thread.id, app.stateOf(ctx.connection));
      const started = wireLoadedThread(app, thread);
      // thread/started goes first in the new thread's queue, ahead of the review turn's events.
      afterResponseOn(app, ctx, thread.id, () => app.router.publish(thread.id, [threadStarted(started)]));
      const { turnId } = thread.beginReview(request);
      return { turn: newTurn(turnId), reviewThreadId: thread.id };
    },
  };
}
