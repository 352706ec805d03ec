/**
 * Client generations (docs/app-server.md "Client generations"): one server answers 0.130 clients
 * and current clients (the 0.169+ protocol, reference 0.171) at once. Which one a connection is,
 * is decided once, at `initialize`, from what the client says about itself, and kept on the
 * connection; what differs by generation is mapped here when rendering, never in what is stored.
 */
import type { AppServer } from '@deputy/protocol';

/** `0.130`: only values the 0.130 schema accepts; `current`: the 0.171 protocol. */
export type ClientGeneration = '0.130' | 'current';

/** Capability keys 0.130 does not define; any of them marks a current client. */
const CURRENT_CAPABILITIES = [
  'requestAttestation',
  'requiredHumanApproval',
  'explicitGatewayOauth',
  'mcpServerOpenaiFormElicitation',
  'extensions',
] as const;

/** The first TUI release that speaks the current protocol. */
const FIRST_CURRENT_TUI: readonly number[] = [0, 169, 0];

/** `major.minor.patch` of a version string (a pre-release suffix is ignored), or null. */
function semverOf(version: string): number[] | null {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? match.slice(1, 4).map(Number) : null;
}

function isAtLeast(version: readonly number[], floor: readonly number[]): boolean {
  for (let i = 0; i < floor.length; i++) {
    const a = version[i] ?? 0;
    const b = floor[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * The generation of a client from its `initialize` params: current when its capabilities carry a
 * key 0.130 does not define (present with any value, even `false`), or when it is the Codex TUI
 * (`clientInfo.name` `codex-tui`) at version 0.169.0 or later; 0.130 otherwise. Another client's
 * `clientInfo.version` is its own product version, not a protocol version, so it is not compared.
 */
export function generationOf(params: AppServer.InitializeParams): ClientGeneration {
  const capabilities = params.capabilities ?? {};
  if (CURRENT_CAPABILITIES.some((key) => capabilities[key] !== undefined)) return 'current';
  if (params.clientInfo.name === 'codex-tui') {
    const version = semverOf(params.clientInfo.version);
    if (version !== null && isAtLeast(version, FIRST_CURRENT_TUI)) return 'current';
  }
  return '0.130';
}

/**
 * The approval policy as every client is told it: `on-failure`, still accepted in config and from
 * 0.130 clients, is reported as `on-request` (0.169 removed it, and current clients refuse to
 * start on a `config/read` that carries it; `on-request` is valid for both generations). Turns
 * of current clients, which echo the reported policy, then run as `on-request`.
 */
export function reportedApprovalPolicy<P extends AppServer.AskForApproval>(policy: P): P | 'on-request' {
  return policy === 'on-failure' ? 'on-request' : policy;
}

/** The values of `Thread.threadSource` a 0.130 client parses. */
const THREAD_SOURCES_0130: ReadonlySet<string> = new Set(['user', 'subagent', 'memory_consolidation']);

/** A stored `threadSource` as a connection of `generation` may see it (null when 0.130 cannot parse it). */
export function threadSourceFor(generation: ClientGeneration, source: string | null): string | null {
  if (source === null || generation === 'current') return source;
  return THREAD_SOURCES_0130.has(source) ? source : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Notification params as a connection of `generation` gets them: for a 0.130 client, a `thread`
 * whose `threadSource` it cannot parse carries `null` instead (the stored value is unchanged).
 * Everything else goes out as it is.
 */
export function paramsFor(generation: ClientGeneration, params: unknown): unknown {
  if (generation === 'current' || !isRecord(params) || !isRecord(params.thread)) return params;
  const source = params.thread.threadSource;
  if (typeof source !== 'string' || THREAD_SOURCES_0130.has(source)) return params;
  return { ...params, thread: { ...params.thread, threadSource: null } };
}
