/**
 * Handlers of `thread/goal/get|set|clear` (docs/app-server.md, "0.171 additions"): one goal per
 * thread, stored in the engine's thread-state store (`thread-state.sqlite`), so it survives
 * restarts and unloading. `set` creates the goal (an objective is required then) or changes the
 * fields given; a new objective starts a new goal (counters reset). The usage counters grow as
 * the thread's turns run (`thread-state.ts`). Changes are announced to the thread's subscribers
 * with `thread/goal/updated` and `thread/goal/cleared`, after the response.
 */
import { RpcError } from '@deputy/rpc/core';
import type { StoredGoal } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { noRollout, parseThreadId } from './common.js';
import type { Handlers } from './types.js';

/** The wire goal of a stored one. */
export function wireGoal(goal: StoredGoal): AppServer.ThreadGoal {
  return { ...goal, status: goal.status as AppServer.ThreadGoalStatus };
}

/** The id of a thread that exists (loaded, or stored and not archived); -32600 otherwise. */
export function existingThread(app: AppContext, threadId: string): string {
  const id = parseThreadId(threadId);
  const loaded = app.manager.get(id);
  if (loaded?.meta.ephemeral === true) throw RpcError.invalidRequest(`thread ${id} is ephemeral; its state is not stored`);
  if (loaded) return id;
  const row = app.manager.index.get(id);
  if (row === null || row.archived) throw noRollout(id);
  return id;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function nextGoal(current: StoredGoal | null, threadId: string, params: AppServer.ThreadGoalSetParams): StoredGoal {
  const objective = params.objective?.trim();
  if (params.objective != null && objective === '') throw RpcError.invalidRequest('objective must not be empty');
  const now = nowSeconds();
  if (current === null || (objective !== undefined && objective !== current.objective)) {
    if (objective === undefined) throw RpcError.invalidRequest(`thread ${threadId} has no goal; an objective is required to set one`);
    return {
      threadId,
      objective,
      status: params.status ?? 'active',
      tokenBudget: params.tokenBudget ?? null,
      tokensUsed: 0,
      timeUsedSeconds: 0,
      createdAt: now,
      updatedAt: now,
    };
  }
  return {
    ...current,
    status: params.status ?? current.status,
    tokenBudget: params.tokenBudget !== undefined ? params.tokenBudget : current.tokenBudget,
    updatedAt: now,
  };
}

/** The handlers of this area. */
export function goalHandlers(app: AppContext): Handlers {
  return {
    'thread/goal/get': (params) => {
      const threadId = existingThread(app, params.threadId);
      const goal = app.manager.state.goal(threadId);
      return { goal: goal === null ? null : wireGoal(goal) };
    },
    'thread/goal/set': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const goal = wireGoal(nextGoal(app.manager.state.goal(threadId), threadId, params));
      app.manager.state.putGoal(goal);
      afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [notification('thread/goal/updated', { threadId, turnId: null, goal })]));
      return { goal };
    },
    'thread/goal/clear': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const cleared = app.manager.state.clearGoal(threadId);
      if (cleared) afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [notification('thread/goal/cleared', { threadId })]));
      return { cleared };
    },
  };
}
