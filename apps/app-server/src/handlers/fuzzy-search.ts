/**
 * Handlers of `fuzzyFileSearch` and the experimental `fuzzyFileSearch/sessionStart`,
 * `sessionUpdate` and `sessionStop` (reference: codex-rs/app-server fuzzy_file_search.rs). The
 * one-shot search answers the best 50 matches; a newer request with the same
 * `cancellationToken` cancels an older one, which answers no files. Sessions stream
 * `fuzzyFileSearch/sessionUpdated` and `sessionCompleted` to the connection that started them,
 * after the response of the request that caused them. Tokens and session ids are scoped to the
 * connection (the reference shares them server-wide), and a connection's sessions end when it
 * closes. The walk and the scoring live in `../fuzzy/`.
 */
import { RpcError, type Connection } from '@deputy/rpc/core';
import { afterResponse, type AppContext } from '../app-context.js';
import { searchOnce } from '../fuzzy/search.js';
import { SearchSession } from '../fuzzy/session.js';
import type { Handlers } from './types.js';

/** Per-connection maps, created on first use and dropped when the connection closes. */
class PerConnection<V> {
  readonly #maps = new WeakMap<Connection, Map<string, V>>();

  constructor(private readonly onClose: (value: V) => void = () => undefined) {}

  /** The connection's map, created (with its cleanup on close) when missing. */
  of(connection: Connection): Map<string, V> {
    let map = this.#maps.get(connection);
    if (!map) {
      const created = new Map<string, V>();
      this.#maps.set(connection, (map = created));
      void connection.closed.then(() => {
        for (const value of created.values()) this.onClose(value);
        created.clear();
      });
    }
    return map;
  }
}

/** The handlers of this area. */
export function fuzzySearchHandlers(app: AppContext): Handlers {
  const searches = new PerConnection<AbortController>((controller) => controller.abort());
  const sessions = new PerConnection<SearchSession>((session) => session.stop());
  const sessionOf = (connection: Connection, sessionId: string): SearchSession => {
    const session = sessions.of(connection).get(sessionId);
    if (!session) throw RpcError.invalidRequest(`fuzzy file search session not found: ${sessionId}`);
    return session;
  };
  return {
    fuzzyFileSearch: async (params, ctx) => {
      const token = params.cancellationToken ?? null;
      const controller = new AbortController();
      const byToken = searches.of(ctx.connection);
      if (token !== null) {
        byToken.get(token)?.abort();
        byToken.set(token, controller);
      }
      try {
        const files = await searchOnce(params.query, params.roots, app.cwd, AbortSignal.any([ctx.signal, controller.signal]));
        return { files };
      } finally {
        if (token !== null && byToken.get(token) === controller) byToken.delete(token);
      }
    },
    'fuzzyFileSearch/sessionStart': (params, ctx) => {
      if (params.sessionId === '') throw RpcError.invalidRequest('sessionId must not be empty');
      if (params.roots.length === 0) {
        throw RpcError.internal('failed to start fuzzy file search session: at least one search directory is required');
      }
      const state = app.stateOf(ctx.connection);
      const session = new SearchSession(params.sessionId, {
        updated: (notification) => state.notify('fuzzyFileSearch/sessionUpdated', notification),
        completed: (notification) => state.notify('fuzzyFileSearch/sessionCompleted', notification),
        failed: (error) => app.logger.warn('fuzzy file search session failed', { sessionId: params.sessionId, error: String(error) }),
      });
      // Registered before the response so a pipelined sessionUpdate finds it; starting the same
      // id again replaces the older session, as the reference does.
      const byId = sessions.of(ctx.connection);
      byId.get(params.sessionId)?.stop();
      byId.set(params.sessionId, session);
      afterResponse(ctx, () => session.start(params.roots, app.cwd));
      return {};
    },
    'fuzzyFileSearch/sessionUpdate': (params, ctx) => {
      const session = sessionOf(ctx.connection, params.sessionId);
      afterResponse(ctx, () => session.update(params.query));
      return {};
    },
    'fuzzyFileSearch/sessionStop': (params, ctx) => {
      const byId = sessions.of(ctx.connection);
      byId.get(params.sessionId)?.stop();
      byId.delete(params.sessionId);
      return {};
    },
  };
}
