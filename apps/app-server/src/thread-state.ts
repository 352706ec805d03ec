/**
 * What happens to a thread's stored state as its turns run (docs/app-server.md, "0.171
 * additions"): an active goal counts the tokens of each model request and the time of each turn,
 * becomes `budgetLimited` when its token budget is spent, and is announced with
 * `thread/goal/updated` (naming the turn) when the turn ends; when a turn completes, a read
 * thread becomes unread from that turn (`thread/readState/changed`) and the first submission of
 * the thread's queue starts as the next turn. Listens to the manager's
 * events after the router, so its notifications follow the turn's own.
 */
import type { ManagerEvent } from '@deputy/engine';
import type { AppContext } from './app-context.js';
import { startSubmission } from './handlers/thread-queue.js';
import { wireGoal } from './handlers/goals.js';
import { readStateOf, setFirstUnread } from './handlers/read-state.js';
import { notification } from './project/outbound.js';

/** Starts following `app.manager`'s events; returns the function that stops. */
export function followThreadState(app: AppContext): () => void {
  /** Tokens of the running turn per thread, counted from its usage events. */
  const turnTokens = new Map<string, number>();

  function onTurnEnd(threadId: string, turnId: string, durationMs: number, status: string): void {
    const tokens = turnTokens.get(threadId) ?? 0;
    turnTokens.delete(threadId);
    const thread = app.manager.get(threadId);
    if (thread === undefined || thread.meta.ephemeral === true) return;
    const goal = app.manager.state.goal(threadId);
    if (goal !== null && goal.status === 'active') {
      const tokensUsed = goal.tokensUsed + tokens;
      const spent = goal.tokenBudget !== null && tokensUsed >= goal.tokenBudget;
      const next = {
        ...goal,
        tokensUsed,
        timeUsedSeconds: goal.timeUsedSeconds + Math.round(durationMs / 1000),
        status: spent ? 'budgetLimited' : goal.status,
        updatedAt: Math.floor(Date.now() / 1000),
      };
      app.manager.state.putGoal(next);
      app.router.publish(threadId, [notification('thread/goal/updated', { threadId, turnId, goal: wireGoal(next) })]);
    }
    if (status === 'completed') {
      // A completed turn is news: unread from it, unless an earlier part is unread already.
      if (readStateOf(app, threadId).firstUnread === null) {
        const readState = setFirstUnread(app, threadId, { type: 'turn', turnId });
        app.router.publish(threadId, [notification('thread/readState/changed', { threadId, readState })]);
      }
      // An interrupted or failed turn leaves the queue for the user to start.
      setImmediate(() => void drain(threadId));
    }
  }

  async function drain(threadId: string): Promise<void> {
    const thread = app.manager.get(threadId);
    if (thread === undefined || thread.activeTurnId !== null) return;
    const next = app.manager.state.queue(threadId)[0];
    if (next === undefined) return;
    try {
      await startSubmission(app, threadId, next);
      app.router.publish(threadId, [notification('thread/queue/changed', { threadId })]);
    } catch (e) {
      app.logger.warn('could not start a queued submission', { threadId, error: e instanceof Error ? e.message : String(e) });
    }
  }

  return app.manager.events.subscribe((event: ManagerEvent) => {
    if (event.type !== 'thread.event') return;
    const e = event.event;
    if (e.type === 'tokenUsage.updated') turnTokens.set(e.threadId, (turnTokens.get(e.threadId) ?? 0) + e.usage.last.totalTokens);
    else if (e.type === 'turn.completed') {
      const done = e.turn.completedAtMs ?? Date.now();
      onTurnEnd(e.threadId, e.turn.id, Math.max(0, done - e.turn.startedAtMs), e.turn.status);
    }
  });
}
