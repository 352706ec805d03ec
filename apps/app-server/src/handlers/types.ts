/**
 * The handler table type: handlers for some of the methods of the app-server's `clientRequests`
 * table, with params and results typed from it. Each handler file returns one of these for its
 * area and the server merges them; the method list itself lives only in `@deputy/protocol`.
 */
import type { AppServer } from '@deputy/protocol';
import type { MethodHandlers } from '@deputy/rpc/core';

/** Handlers for (part of) the client request table. */
export type Handlers = MethodHandlers<typeof AppServer.clientRequests>;
