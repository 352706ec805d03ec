/**
 * The order of sandboxes: whether everything a command may do under one sandbox it may also do
 * under another. A running terminal keeps the sandbox it was started with (bwrap cannot narrow a
 * live process), so when the thread's sandbox changes, the exec sessions ask this module whether
 * the new one still covers each terminal: one that is not covered is ended (exec-session.ts), and
 * input to one the current turn's sandbox does not cover needs a fresh approval (write-stdin.ts).
 *
 * "Covers" compares what can be written and whether the network can be used, nothing else:
 * - danger-full-access covers every sandbox, and is covered only by itself;
 * - a sandbox with network covers one without, never the reverse (the `networkAccess` flag);
 * - read-only covers read-only; workspace-write covers read-only;
 * - workspace-write covers workspace-write when every writable root of the inner one (cwd, extra
 *   roots, `$TMPDIR`, `/tmp`, each resolved as the sandbox resolves it) lies inside a writable root
 *   of the outer one and is not inside a path the outer one keeps read-only (`.git`, `.deputy`,
 *   `.codex`), and every such path inside it is read-only in the inner one too.
 * So danger-full-access > workspace-write with network > workspace-write > read-only, and
 * workspace-write sandboxes compare by set inclusion of their roots. The roots depend on the
 * turn's cwd: moving the cwd moves the first root.
 */
import type { SandboxPolicy } from '@deputy/protocol';
import { isWithin, resolveWritableRoots } from './sandbox.js';

/** A sandbox policy and the directory its writable roots are resolved against (the turn's cwd). */
export interface SandboxScope {
  policy: SandboxPolicy;
  cwd: string;
}

/** True when everything allowed under `inner` is allowed under `outer` (see the module comment). */
export function sandboxCovers(outer: SandboxScope, inner: SandboxScope): boolean {
  const o = outer.policy;
  const i = inner.policy;
  if (o.type === 'danger-full-access') return true;
  if (i.type === 'danger-full-access') return false;
  if (i.networkAccess && !o.networkAccess) return false;
  if (i.type === 'read-only') return true;
  if (o.type === 'read-only') return false;
  const outerRoots = resolveWritableRoots(o, outer.cwd);
  return resolveWritableRoots(i, inner.cwd).every((root) =>
    outerRoots.some(
      (candidate) =>
        isWithin(root.root, candidate.root) &&
        candidate.readOnlySubpaths.every((kept) => !isWithin(root.root, kept) && (!isWithin(kept, root.root) || root.readOnlySubpaths.includes(kept))),
    ),
  );
}

/** A short name of a policy for messages: its mode, and `with network` when it has network. */
export function describeSandbox(policy: SandboxPolicy): string {
  if (policy.type === 'danger-full-access') return policy.type;
  return policy.networkAccess ? `${policy.type} with network` : policy.type;
}
