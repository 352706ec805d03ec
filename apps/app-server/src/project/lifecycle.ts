/**
 * Builders of the thread- and connection-level notifications that handlers send around their
 * responses (docs/app-server.md "Handshake" and "Notifications"): `thread/started`,
 * `thread/status/changed`, `thread/archived`, `thread/unarchived`, `thread/name/updated`, the
 * token-usage replay after resume and fork, and `remoteControl/status/changed` and `configWarning`.
 * Pure; the router decides who receives them.
 */
import type { ThreadTokenUsage } from '@deputy/protocol';
import type { AppServer } from '@deputy/protocol';
import { notification, type Outbound } from './outbound.js';

/** `thread/started` (broadcast). */
export function threadStarted(thread: AppServer.Thread): Outbound {
  return notification('thread/started', { thread });
}

/** `thread/status/changed` (broadcast). */
export function threadStatusChanged(threadId: string, status: AppServer.ThreadStatus): Outbound {
  return notification('thread/status/changed', { threadId, status });
}

/** `thread/archived` (broadcast). */
export function threadArchived(threadId: string): Outbound {
  return notification('thread/archived', { threadId });
}

/** `thread/unarchived` (broadcast). */
export function threadUnarchived(threadId: string): Outbound {
  return notification('thread/unarchived', { threadId });
}

/** `thread/name/updated` (broadcast). */
export function threadNameUpdated(threadId: string, threadName: string | null): Outbound {
  return notification('thread/name/updated', { threadId, threadName });
}

/** The last usage of a thread, replayed to a client that resumed or forked it. */
export function tokenUsageReplay(threadId: string, turnId: string, usage: ThreadTokenUsage): Outbound {
  return notification('thread/tokenUsage/updated', { threadId, turnId, tokenUsage: usage });
}

/** `configWarning`: a problem with the configuration, shown to the user as a ⚠ line. */
export function configWarning(summary: string): Outbound {
  return notification('configWarning', { summary, details: null });
}

/** What remote-control messages say about this server (`installation.ts`). */
export interface ServerIdentity {
  serverName: string;
  installationId: string;
}

/** The remote-control status: not offered, so always `disabled`, with the server's identity. */
export function remoteControlStatus(identity: ServerIdentity): AppServer.RemoteControlStatusChangedNotification {
  return { status: 'disabled', serverName: identity.serverName, installationId: identity.installationId, environmentId: null };
}

/** `remoteControl/status/changed` (see `remoteControlStatus`). */
export function remoteControlDisabled(identity: ServerIdentity): Outbound {
  return notification('remoteControl/status/changed', remoteControlStatus(identity));
}
