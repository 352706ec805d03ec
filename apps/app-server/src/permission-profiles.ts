/**
 * Permission profiles (docs/app-server.md "Permission profiles"): the three built-in presets a
 * current client lists with `permissionProfile/list` and selects by id (`permissions` on
 * thread/start, resume, fork, turn/start and thread/settings/update; `default_permissions` in a
 * thread's `config`). Each is one of the engine's sandbox modes; the profile in force is derived
 * from the thread's sandbox policy, so it persists with the thread's settings.
 */
import type { AppServer, SandboxMode, SandboxPolicy } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';

/** A built-in profile: its id, the sandbox mode it selects, and what clients show. */
interface Profile {
  readonly id: string;
  readonly mode: SandboxMode;
  readonly description: string;
}

/** The built-in profiles, in the order clients list them. */
export const PERMISSION_PROFILES: readonly Profile[] = [
  { id: ':read-only', mode: 'read-only', description: 'Read files anywhere; no writes and no network (sandboxed)' },
  { id: ':workspace', mode: 'workspace-write', description: 'Read files anywhere; write in the workspace and temp dirs (sandboxed)' },
  { id: ':danger-full-access', mode: 'danger-full-access', description: 'No sandbox: commands run with the server’s own permissions' },
];

/** The `permissionProfile/list` entries: every built-in profile, all allowed (no requirements are enforced). */
export function listProfiles(): AppServer.ResultOf<'permissionProfile/list'> {
  return { data: PERMISSION_PROFILES.map(({ id, description }) => ({ id, description, allowed: true })), nextCursor: null };
}

/** The sandbox mode a profile id selects; -32600 naming the known ids otherwise. */
export function modeOfProfile(id: string): SandboxMode {
  const profile = PERMISSION_PROFILES.find((p) => p.id === id);
  if (profile === undefined) {
    const known = PERMISSION_PROFILES.map((p) => p.id).join(', ');
    throw RpcError.invalidRequest(`Invalid request: unknown permission profile \`${id}\`; this server offers ${known}`);
  }
  return profile.mode;
}

/**
 * The sandbox mode of a `permissions` selection: a profile id (current clients) or the 0.130
 * object `{type: "profile", id, modifications?}`, whose modifications Deputy cannot apply.
 */
export function modeOfSelection(selection: AppServer.PermissionProfileSelection): SandboxMode {
  if (typeof selection === 'string') return modeOfProfile(selection);
  if ((selection.modifications ?? []).length > 0) {
    throw RpcError.invalidRequest('Invalid request: permission profile modifications are not supported by this server');
  }
  return modeOfProfile(selection.id);
}

/** The profile in force for a sandbox policy (`activePermissionProfile`). */
export function activeProfileOf(policy: SandboxPolicy): AppServer.ActivePermissionProfile {
  const profile = PERMISSION_PROFILES.find((p) => p.mode === policy.type) as Profile;
  return { id: profile.id, extends: null };
}
