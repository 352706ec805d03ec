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
