/**
 * Handlers of `model/list` (the provider's catalogue, paged by a decimal offset cursor) and
 * `modelProvider/capabilities/read` (the engine offers no namespaced tools, image generation or
 * web search, so all three are false).
 */
import { RpcError } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import type { Handlers } from './types.js';

function offsetOf(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined) return 0;
  if (!/^\d+$/.test(cursor)) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
  return Number(cursor);
}

/** The handlers of this area. */
export function modelHandlers(app: AppContext): Handlers {
  return {
    'model/list': async (params, ctx) => {
      const all = await app.models.list(ctx.signal);
      const start = offsetOf(params.cursor);
      const limit = params.limit ?? all.length;
      const data = all.slice(start, start + limit);
      const next = start + data.length;
      return { data, nextCursor: data.length > 0 && next < all.length ? String(next) : null };
    },
    'modelProvider/capabilities/read': () => ({ namespaceTools: false, imageGeneration: false, webSearch: false }),
  };
}
