/**
 * Which protocol generation a connection speaks, decided once at `initialize`
 * (docs/app-server.md, "0.171 additions"): a client is current (0.169 and later) when its
 * capabilities carry a key 0.130 does not define, or when it is the Codex TUI at version 0.169.0
 * or later; every other client is treated as 0.130. Notifications that 0.130 does not define are
 * sent to current clients only, so a strict 0.130 parser never sees an unknown method.
 */
import type { AppServer } from '@deputy/protocol';

/** Capability keys that only current clients send. */
const CURRENT_CAPABILITY_KEYS = ['requestAttestation', 'requiredHumanApproval', 'explicitGatewayOauth', 'mcpServerOpenaiFormElicitation', 'extensions'] as const;

/** Notification methods 0.130 does not define: sent to current clients only. */
export const NOTIFICATIONS_SINCE_0171: ReadonlySet<string> = new Set([
  'thread/deleted',
  'thread/reverted',
  'thread/queue/changed',
  'thread/search/partial',
  'thread/readState/changed',
  'thread/section/changed',
]);

function atLeast(version: string, minimum: readonly number[]): boolean {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number);
  if (parts === undefined) return false;
  for (let i = 0; i < 3; i++) {
    if ((parts[i] as number) !== minimum[i]) return (parts[i] as number) > (minimum[i] as number);
  }
  return true;
}

/** True when `initialize` params come from a current (0.169+) client. */
export function isCurrentClient(params: AppServer.InitializeParams): boolean {
  const capabilities = params.capabilities ?? {};
  if (CURRENT_CAPABILITY_KEYS.some((key) => capabilities[key] !== undefined && capabilities[key] !== null)) return true;
  return params.clientInfo.name === 'codex-tui' && atLeast(params.clientInfo.version, [0, 169, 0]);
}
