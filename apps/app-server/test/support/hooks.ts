/**
 * Hook helpers for tests over a `WireClient` (docs/extensions.md "Hooks"): list and trust hooks
 * the way the TUI does, and read the hook runs the server reported, each notification checked
 * against the 0.171 reference schema (the wire validator checks 0.130).
 */
import { expect } from 'vitest';
import { problemsAgainstDefinition } from '../../../../packages/protocol/test/support/reference-schema.js';
import type { WireClient } from './wire-client.js';

/** A `hooks/list` entry's fields tests look at. */
export interface ListedHook {
  key: string;
  currentHash: string;
  trustStatus: string;
  eventName: string;
}

/** A hook run as `hook/started` / `hook/completed` report it. */
export interface HookRun {
  status: string;
  eventName: string;
  entries: Array<{ kind: string; text: string }>;
}

/** The hooks `hooks/list` reports for `cwd`; the response is checked against 0.171. */
export async function listHooks(client: WireClient, cwd: string): Promise<ListedHook[]> {
  const result = await client.call<{ data: Array<{ hooks: ListedHook[] }> }>('hooks/list', { cwds: [cwd] });
  expect(problemsAgainstDefinition('HooksListResponse', result, '0.171')).toEqual([]);
  return result.data[0]?.hooks ?? [];
}

/** Trusts every listed hook the way the TUI does: `config/value/write` of `hooks.state."<key>".trusted_hash`. */
export async function trustAll(client: WireClient, cwd: string): Promise<void> {
  for (const hook of await listHooks(client, cwd)) {
    await client.call('config/value/write', { keyPath: `hooks.state."${hook.key}".trusted_hash`, value: hook.currentHash, mergeStrategy: 'replace' });
  }
}

/** The hook notifications received so far, each checked against the 0.171 schema. */
export function hookRuns(client: WireClient, method: 'hook/started' | 'hook/completed'): HookRun[] {
  return client
    .notifications()
    .filter((n) => n.method === method)
    .map((n) => {
      expect(problemsAgainstDefinition(method === 'hook/started' ? 'HookStartedNotification' : 'HookCompletedNotification', n.params, '0.171')).toEqual([]);
      return n.params.run as HookRun;
    });
}
