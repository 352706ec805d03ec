/**
 * What a sandbox policy grants, in the policy's own terms: the one list of protected names and
 * the writable places of workspace-write, as the front doors report them (the app-server's
 * `permissionProfile`, the MCP server's `permission_profile`). `sandbox.ts` enforces the same
 * rules with realpaths and bwrap; this module does no filesystem lookups and runs nothing.
 */
import type { SandboxPolicy } from '@deputy/protocol';

/** Names kept read-only at the top of every writable root (bound read-only again under bwrap). */
export const PROTECTED_DIR_NAMES: readonly string[] = ['.git', '.deputy', '.codex'];

/** One writable place of a workspace-write policy. */
export type WritableGrant =
  /** The turn's working directory. */
  | { kind: 'workspace' }
  /** `/tmp`. */
  | { kind: 'slashTmp' }
  /** The directory in `$TMPDIR`. */
  | { kind: 'tmpdirEnv' }
  /** A configured extra root (`writableRoots`), as configured. */
  | { kind: 'path'; path: string };

/** The grants of a policy that restricts something; the whole filesystem stays readable. */
export interface SandboxGrants {
  /** Where commands may write: the workspace, `/tmp`, `$TMPDIR` (unless excluded), the extra roots. */
  writableRoots: WritableGrant[];
  /** Entries at the top of every writable root that stay read-only ({@link PROTECTED_DIR_NAMES}). */
  readOnlySubpaths: readonly string[];
  /** Whether commands may use the network. */
  networkAccess: boolean;
}

/**
 * The grants of `policy`, or null for danger-full-access (nothing restricted). read-only grants
 * reading only; workspace-write adds its writable roots, each with the protected names read-only.
 */
export function sandboxGrants(policy: SandboxPolicy): SandboxGrants | null {
  if (policy.type === 'danger-full-access') return null;
  if (policy.type === 'read-only') return { writableRoots: [], readOnlySubpaths: [], networkAccess: policy.networkAccess };
  const writableRoots: WritableGrant[] = [{ kind: 'workspace' }];
  if (!policy.excludeSlashTmp) writableRoots.push({ kind: 'slashTmp' });
  if (!policy.excludeTmpdirEnvVar) writableRoots.push({ kind: 'tmpdirEnv' });
  for (const root of policy.writableRoots) writableRoots.push({ kind: 'path', path: root });
  return { writableRoots, readOnlySubpaths: PROTECTED_DIR_NAMES, networkAccess: policy.networkAccess };
}

/**
 * A policy in Codex's own serialisation (`sandbox_policy` of the MCP server's events, `sandboxPolicy`
 * of an MCP call's `codex/sandbox-state-meta`): kebab-case `type`, snake_case fields.
 */
export function codexSandboxPolicy(policy: SandboxPolicy): Record<string, unknown> {
  if (policy.type === 'workspace-write') {
    return { type: 'workspace-write', writable_roots: policy.writableRoots, network_access: policy.networkAccess, exclude_tmpdir_env_var: policy.excludeTmpdirEnvVar, exclude_slash_tmp: policy.excludeSlashTmp };
  }
  return policy.type === 'read-only' ? { type: 'read-only', network_access: policy.networkAccess } : { type: 'danger-full-access' };
}

/** Codex's special-path kind of a writable place (null for a plain path). */
const SPECIAL_KIND: Record<WritableGrant['kind'], string | null> = { workspace: 'project_roots', slashTmp: 'slash_tmp', tmpdirEnv: 'tmpdir', path: null };

/**
 * Codex's permission profile in its own serialisation (the MCP server's `permission_profile`, an
 * MCP call's `codex/sandbox-state-meta`): the grants renamed (the whole filesystem readable, the
 * writable places, the protected names read-only under the project roots, then the extra roots).
 */
export function codexPermissionProfile(policy: SandboxPolicy): Record<string, unknown> {
  const grants = sandboxGrants(policy);
  if (grants === null) return { type: 'disabled' };
  const special = (kind: string, access: 'read' | 'write', subpath?: string): Record<string, unknown> => ({ path: { type: 'special', value: { kind, ...(subpath ? { subpath } : {}) } }, access });
  const entries: Record<string, unknown>[] = [special('root', 'read')];
  for (const grant of grants.writableRoots) {
    const kind = SPECIAL_KIND[grant.kind];
    if (kind !== null) entries.push(special(kind, 'write'));
  }
  for (const name of grants.readOnlySubpaths) entries.push(special('project_roots', 'read', name));
  for (const grant of grants.writableRoots) if (grant.kind === 'path') entries.push({ path: { type: 'path', path: grant.path }, access: 'write' });
  return { type: 'managed', file_system: { type: 'restricted', entries }, network: grants.networkAccess ? 'enabled' : 'restricted' };
}
