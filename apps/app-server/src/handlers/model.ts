/**
 * Handlers of `model/list` (the provider's catalogue, paged by a decimal offset cursor) and
 * `modelProvider/capabilities/read` (the engine offers no namespaced tools, image generation or
 * web search, so all three are false). The catalogue follows the current config: a write that
 * changes the model, the provider or its table starts a new one (the old one's cached list is
 * dropped).
 */
import type { ResolvedConfig } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import { ModelCatalog } from '../model-catalog.js';
import type { Handlers } from './types.js';

function offsetOf(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined) return 0;
  if (!/^\d+$/.test(cursor)) throw RpcError.invalidRequest(`invalid cursor: ${cursor}`);
  return Number(cursor);
}

/** What a catalogue is built from: the model, the provider and its connection. */
function catalogKey(config: ResolvedConfig): string {
  return JSON.stringify([config.model, config.modelProviderId, config.provider]);
}

/** The handlers of this area. */
export function modelHandlers(app: AppContext): Handlers {
  let catalog = { key: catalogKey(app.runtime.config), models: app.models };
  const current = (): ModelCatalog => {
    const config = app.runtime.config;
    const key = catalogKey(config);
    if (key !== catalog.key) catalog = { key, models: new ModelCatalog(config, app.logger) };
    return catalog.models;
  };
  return {
    'model/list': async (params, ctx) => {
      const all = await current().list(ctx.signal);
      const start = offsetOf(params.cursor);
      const limit = params.limit ?? all.length;
      const data = all.slice(start, start + limit);
      const next = start + data.length;
      return { data, nextCursor: data.length > 0 && next < all.length ? String(next) : null };
    },
    'modelProvider/capabilities/read': () => ({ namespaceTools: false, imageGeneration: false, webSearch: false }),
  };
}
