/**
 * Handlers of `turn/start`, `turn/steer`, `turn/interrupt` (docs/app-server.md "Methods served")
 * and `thread/compact/start` (a turn that only compacts the history). A turn needs a loaded thread.
 * `turn/start` or `thread/compact/start` while a turn runs is refused (steer adds input to a
 * running turn); `turn/interrupt` answers at once, also when nothing runs (docs/app-server.md
 * "What differs from codex app-server"). While a turn call is answered the thread's delivery is
 * held, so the response precedes the events it caused.
 */
import type { Thread } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import { afterResponse, type AppContext } from '../app-context.js';
import { newTurn } from '../project/threads.js';
import { requireLoaded } from './common.js';
import { engineInput, turnOverrides } from './turn-input.js';
import type { Handlers } from './types.js';

/** Refuses to start a turn on a thread that is running one. */
export function refuseWhileRunning(thread: Thread): void {
  const active = thread.activeTurnId;
  if (active !== null) {
    throw RpcError.invalidRequest(
      `a turn is already running on thread ${thread.id} (turn ${active}); use turn/steer to add input to it or turn/interrupt to stop it`,
    );
  }
}

/** The handlers of this area. */
export function turnHandlers(app: AppContext): Handlers {
  return {
    'turn/start': async (params, ctx) => {
      const thread = requireLoaded(app, params.threadId);
      const input = await engineInput(params.input, thread.settings.cwd);
      const overrides = turnOverrides(params, app.cwd, app.runtime.config.sandboxWorkspaceWrite);
      refuseWhileRunning(thread);
      const release = app.router.hold(thread.id);
      afterResponse(ctx, release);
      // A staged config/mcpServer/reload applies now; its status events follow the response.
      await app.mcp.applyReload(thread);
      refuseWhileRunning(thread);
      const { turnId } = thread.startTurn(input, overrides);
      return { turn: newTurn(turnId, overrides.rootTurnId ?? turnId) };
    },
    'thread/compact/start': (params, ctx) => {
      const thread = requireLoaded(app, params.threadId);
      refuseWhileRunning(thread);
      afterResponse(ctx, app.router.hold(thread.id));
      // Not awaited: the answer is `{}` at once; the compaction turn follows as notifications.
      thread.startCompaction();
      return {};
    },
    'turn/steer': async (params) => {
      const thread = requireLoaded(app, params.threadId);
      const input = await engineInput(params.input, thread.settings.cwd);
      return { turnId: thread.steer(input, params.expectedTurnId, params.clientUserMessageId ?? null) };
    },
    'turn/interrupt': (params, ctx) => {
      const thread = requireLoaded(app, params.threadId);
      const active = thread.activeTurnId;
      if (active === null) return {};
      if (active !== params.turnId) throw RpcError.invalidRequest(`expected active turn id ${params.turnId} but found ${active}`);
      afterResponse(ctx, app.router.hold(thread.id));
      // Not awaited: the answer is immediate; the turn's end follows as notifications.
      void thread.interrupt(active);
      return {};
    },
  };
}
