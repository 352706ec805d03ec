/**
 * The handshake rows of the method tables: the `initialize` request and the `initialized`
 * notification. `methods.ts` builds the full tables from these same rows; this module exists so a
 * server can answer the handshake before it loads the rest of the contract (it is the
 * `@deputy/protocol/handshake` entry point, which loads only these schemas and zod).
 */
import type { z } from 'zod';
import { InitializeParamsSchema, InitializeResultSchema } from './initialize.js';
import { NoParamsSchema } from './primitives.js';

/** Which notifications a 0.130 connection must not get (a list of names; no schemas load). */
export { CURRENT_ONLY_SERVER_NOTIFICATIONS } from './unsupported-current.js';

/** The `initialize` row of `clientRequests` (params required, not experimental). */
export const handshakeRequests = {
  initialize: { params: InitializeParamsSchema, result: InitializeResultSchema, paramsRequired: true, experimental: undefined },
} as const;

/** The client notifications of the handshake: `initialized` (no params; optional, harmless twice). */
export const handshakeNotifications = {
  initialized: NoParamsSchema,
} as const satisfies Readonly<Record<string, z.ZodType>>;
