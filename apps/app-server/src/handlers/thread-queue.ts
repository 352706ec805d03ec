/**
 * Handlers of the per-thread queue of pending submissions, `thread/queue/*` (experimental;
 * docs/app-server.md, "0.171 additions"). Submissions are stored in the engine's thread-state
 * store, in order; every change is announced with `thread/queue/changed` to the thread's
 * subscribers. `thread/queue/start` starts one now (the first by default) on an idle loaded
 * thread; otherwise the queue drains by itself, one submission per finished turn
 * (`thread-state.ts`).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RpcError } from '@deputy/rpc/core';
import type { StoredSubmission } from '@deputy/engine';
import { AppServer } from '@deputy/protocol';
import type { HandlerContext } from '@deputy/rpc/core';
import { afterResponse, afterResponseOn, type AppContext } from '../app-context.js';
import { notification } from '../project/outbound.js';
import { newTurn } from '../project/threads.js';
import { pageById, requireLoaded } from './common.js';
import { existingThread } from './goals.js';
import { refuseWhileRunning } from './turn.js';
import { engineInput } from './turn-input.js';
import type { Handlers } from './types.js';

const DEFAULT_PAGE = 25;
const StoredInputSchema = z.array(AppServer.UserInputSchema);

/** The wire form of a stored submission. */
export function wireSubmission(stored: StoredSubmission): AppServer.QueuedSubmission {
  return {
    id: stored.id,
    clientUserMessageId: stored.clientUserMessageId,
    input: StoredInputSchema.parse(stored.input),
    responsesapiClientMetadata: stored.metadata,
  };
}

/** `thread/queue/changed` for `threadId`, after this request's response. */
function announce(app: AppContext, ctx: HandlerContext, threadId: string): void {
  afterResponseOn(app, ctx, threadId, () => app.router.publish(threadId, [notification('thread/queue/changed', { threadId })]));
}

/** Takes a submission off the queue and starts it as a turn of the loaded, idle thread. Returns the turn id. */
export async function startSubmission(app: AppContext, threadId: string, submission: StoredSubmission): Promise<string> {
  const thread = requireLoaded(app, threadId);
  refuseWhileRunning(thread);
  const input = await engineInput(wireSubmission(submission).input, thread.settings.cwd);
  refuseWhileRunning(thread);
  app.manager.state.dequeue(threadId, submission.id);
  return thread.startTurn(input, { clientUserMessageId: submission.clientUserMessageId }).turnId;
}

function findQueued(app: AppContext, threadId: string, id: string): StoredSubmission {
  const found = app.manager.state.queue(threadId).find((s) => s.id === id);
  if (found === undefined) throw RpcError.invalidRequest(`queued submission ${id} not found in thread ${threadId}`);
  return found;
}

/** The handlers of this area. */
export function threadQueueHandlers(app: AppContext): Handlers {
  return {
    'thread/queue/add': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      if (params.input.length === 0) throw RpcError.invalidRequest('input must not be empty');
      const stored: StoredSubmission = {
        id: randomUUID(),
        threadId,
        clientUserMessageId: params.clientUserMessageId,
        input: params.input,
        metadata: params.responsesapiClientMetadata ?? null,
      };
      app.manager.state.enqueue(stored);
      announce(app, ctx, threadId);
      return { queuedSubmission: wireSubmission(stored) };
    },
    'thread/queue/list': (params) => {
      const threadId = existingThread(app, params.threadId);
      const page = pageById(app.manager.state.queue(threadId), params.cursor, params.limit ?? DEFAULT_PAGE);
      return { data: page.data.map(wireSubmission), nextCursor: page.nextCursor };
    },
    'thread/queue/update': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      if (params.input.length === 0) throw RpcError.invalidRequest('input must not be empty');
      const current = findQueued(app, threadId, params.queuedSubmissionId);
      const given = params.responsesapiClientMetadata;
      const metadata = given != null && Object.keys(given).length > 0 ? given : current.metadata;
      app.manager.state.updateSubmission(threadId, current.id, params.input, metadata);
      announce(app, ctx, threadId);
      return { queuedSubmission: wireSubmission({ ...current, input: params.input, metadata }) };
    },
    'thread/queue/delete': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const deleted = app.manager.state.dequeue(threadId, params.queuedSubmissionId);
      if (deleted) announce(app, ctx, threadId);
      return { deleted };
    },
    'thread/queue/reorder': (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const ids = app.manager.state.queue(threadId).map((s) => s.id);
      const given = params.queuedSubmissionIds;
      const same = given.length === ids.length && new Set(given).size === given.length && given.every((id) => ids.includes(id));
      if (!same) throw RpcError.invalidRequest('queuedSubmissionIds must name every queued submission of the thread exactly once');
      app.manager.state.reorder(threadId, given);
      announce(app, ctx, threadId);
      return {};
    },
    'thread/queue/start': async (params, ctx) => {
      const threadId = existingThread(app, params.threadId);
      const queue = app.manager.state.queue(threadId);
      const submission = params.queuedSubmissionId == null ? queue[0] : findQueued(app, threadId, params.queuedSubmissionId);
      if (submission === undefined) throw RpcError.invalidRequest(`the queue of thread ${threadId} is empty`);
      const release = app.router.hold(threadId);
      afterResponse(ctx, release);
      const turnId = await startSubmission(app, threadId, submission);
      announce(app, ctx, threadId);
      return { turn: newTurn(turnId) };
    },
  };
}
