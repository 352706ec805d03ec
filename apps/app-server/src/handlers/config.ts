/**
 * Handlers of `config/read` (the configuration this server runs with, with origins and layers;
 * project layers are not read, so `cwd` changes nothing) and `configRequirements/read` (no
 * administrator requirements are supported: `null`). Config writes are not served yet.
 */
import type { AppContext } from '../app-context.js';
import { projectConfigRead } from '../project/config.js';
import type { Handlers } from './types.js';

/** The handlers of this area. */
export function configHandlers(app: AppContext): Handlers {
  return {
    'config/read': (params) => projectConfigRead(app.config, params.includeLayers === true),
    'configRequirements/read': () => ({ requirements: null }),
  };
}
