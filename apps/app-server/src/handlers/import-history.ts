/**
 * Handlers of the import history (docs/app-server.md "Methods for current clients"):
 * `externalAgentConfig/import/recordHistory` stores a client's record of an import from another
 * agent's configuration (the item-type groups flattened into one list of successes and one of
 * failures, absent fields as null, completed now) in the engine's thread-state store, and
 * `externalAgentConfig/import/readHistories` lists the records, newest first. Deputy runs no
 * imports itself, so `connectors` is always empty and `externalAgentConfig/import/progress` is
 * never sent.
 */
import type { AppServer } from '@deputy/protocol';
import type { AppContext } from '../app-context.js';
import type { Handlers } from './types.js';

type Params = AppServer.ExternalAgentConfigImportHistoryRecordParams;
type Group = Params['itemTypeResults'][number];

/** A success with every field present. */
function success(s: Group['successes'][number]) {
  return { itemType: s.itemType, cwd: s.cwd ?? null, source: s.source ?? null, target: s.target ?? null, title: s.title ?? null };
}

/** A failure with every field present. */
function failure(f: Group['failures'][number]) {
  return {
    itemType: f.itemType,
    failureStage: f.failureStage,
    message: f.message,
    cwd: f.cwd ?? null,
    source: f.source ?? null,
    errorType: f.errorType ?? null,
    subErrorType: f.subErrorType ?? null,
  };
}

/** The handlers of this area. */
export function importHistoryHandlers(app: AppContext): Handlers {
  // The store opens with the first request that needs it.
  const histories = () => app.manager.state.importHistories;
  return {
    'externalAgentConfig/import/recordHistory': (params) => {
      const stored = histories().record({
        providerId: params.providerId,
        completedAtMs: Date.now(),
        successes: params.itemTypeResults.flatMap((group) => group.successes.map(success)),
        failures: params.itemTypeResults.flatMap((group) => group.failures.map(failure)),
      });
      return { importId: stored.importId };
    },
    'externalAgentConfig/import/readHistories': () => ({
      data: histories().list() as AppServer.ExternalAgentConfigImportHistory[],
      connectors: [],
    }),
  };
}
