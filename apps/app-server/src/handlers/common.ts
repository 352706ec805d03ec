/**
 * Helpers shared by the handlers: thread id parsing with the reference's error text, looking up
 * a loaded thread, the reference's not-found messages, and dropping undefined fields before an
 * engine call (the engine spreads option objects, so an explicit `undefined` would erase a
 * default). No handler logic lives here.
 */
import { RpcError } from '@deputy/rpc/core';
import { ThreadNotFoundError, type Thread } from '@deputy/engine';
import type { AppContext } from '../app-context.js';

const HEX = /^[0-9a-fA-F]$/;
const GROUP_LENGTHS = [8, 4, 4, 4, 12];

/** Why `text` is not a UUID, in the wording of the reference's parser; null when it is one. */
export function uuidProblem(text: string): string | null {
  const prefix = text.toLowerCase().startsWith('urn:uuid:') ? 'urn:uuid:'.length : 0;
  const body = text.slice(prefix);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (!HEX.test(c) && c !== '-') {
      return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${c}\` at ${prefix + i + 1}`;
    }
  }
  if (!body.includes('-')) return body.length === 32 ? null : `invalid length: expected length 32 for simple format, found ${body.length}`;
  const groups = body.split('-');
  if (groups.length !== 5) return `invalid group count: expected 5, found ${groups.length}`;
  for (let g = 0; g < 5; g++) {
    const found = (groups[g] as string).length;
    if (found !== GROUP_LENGTHS[g]) return `invalid group length in group ${g}: expected ${GROUP_LENGTHS[g]}, found ${found}`;
  }
  return null;
}

/** Checks a thread id; -32600 `invalid thread id: …` when it is not a UUID. */
export function parseThreadId(threadId: string): string {
  const problem = uuidProblem(threadId);
  if (problem !== null) throw RpcError.invalidRequest(`invalid thread id: ${problem}`);
  return threadId;
}

/** The loaded thread, or -32600 `thread not found: <id>` (turns need a loaded thread). */
export function requireLoaded(app: AppContext, threadId: string): Thread {
  const thread = app.manager.get(parseThreadId(threadId));
  if (!thread) throw RpcError.notFound('thread', threadId);
  return thread;
}

/** -32600 `no rollout found for thread id <id>` (resume, fork, archive of a missing thread). */
export function noRollout(threadId: string): RpcError {
  return RpcError.invalidRequest(`no rollout found for thread id ${threadId}`);
}

/** Runs an engine call that may not find the thread, mapping that to `error`. */
export async function orNotFound<T>(call: Promise<T>, error: () => RpcError): Promise<T> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof ThreadNotFoundError) throw error();
    throw e;
  }
}

/** A copy without the keys whose value is undefined. */
export function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Refuses an ephemeral fork: only `thread/start` makes ephemeral threads. */
export function rejectEphemeral(ephemeral: boolean | null | undefined): void {
  if (ephemeral === true) throw RpcError.invalidRequest('ephemeral forks are not supported by this server; start an ephemeral thread with thread/start');
}

/**
 * One page of `items` after the item whose id is `cursor` (from the start without one): at most
 * `limit` (at least 1), and the id of the page's last item as the next cursor when more follow.
 * An unknown cursor is -32600 `invalid cursor: <cursor>`.
 */
export function pageById<T extends { id: string }>(items: readonly T[], cursor: string | null | undefined, limit: number): { data: T[]; nextCursor: string | null } {
  let start = 0;
  if (cursor != null) {
    const at = items.findIndex((item) => item.id === cursor);
    if (at < 0) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
    start = at + 1;
  }
  const data = items.slice(start, start + Math.max(1, limit));
  return { data, nextCursor: start + data.length < items.length ? (data.at(-1)?.id ?? null) : null };
}
