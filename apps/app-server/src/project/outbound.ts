/**
 * What the projections hand to the router: a typed wire notification, or the marker of a
 * resolved approval whose per-connection `serverRequest/resolved` the router fills in. Only
 * types and one builder, so the handshake's greeting (`lifecycle.ts`) can use them without
 * loading the event projection.
 */
import type { AppServer } from '@deputy/protocol';

/** One notification, typed by its method. */
export type WireNotification = {
  [M in AppServer.ServerNotificationMethod]: { kind: 'notification'; method: M; params: AppServer.NotificationParamsOf<M> };
}[AppServer.ServerNotificationMethod];

/**
 * What an event turns into: notifications, or `serverRequest/resolved` for an approval (its
 * `requestId` differs per connection, so the router fills it in).
 */
export type Outbound = WireNotification | { kind: 'requestResolved'; approvalId: string };

/** Builds a typed notification. */
export function notification<M extends AppServer.ServerNotificationMethod>(method: M, params: AppServer.NotificationParamsOf<M>): Outbound {
  return { kind: 'notification', method, params } as Outbound;
}
