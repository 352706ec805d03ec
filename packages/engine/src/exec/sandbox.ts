/**
 * The Linux sandbox policy as bubblewrap arguments, and the same writable-roots rules for
 * in-process writers. `read-only`: the whole filesystem is bound read-only, with a private /dev
 * and /proc and new PID and network namespaces. `workspace-write`: the same, plus writable binds of
 * the cwd, `writableRoots`, `$TMPDIR` and `/tmp`, with `.git`, `.deputy` and `.codex` at the top of
 * each writable root bound read-only again. `danger-full-access`: no wrapping. Roots are resolved
 * through symlinks (realpath) and roots that do not exist are skipped (reference:
 * codex-rs/linux-sandbox/src/bwrap.rs). This module decides arguments only; it never runs bwrap.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxPolicy } from '@deputy/protocol';
import type { SandboxIsolation } from './sandbox-probe.js';
import { PROTECTED_DIR_NAMES } from './sandbox-grants.js';
import { networkOffFilterFile, SECCOMP_FD, withSeccompFd } from './seccomp.js';

// The probe and the denial heuristic live in their own modules; they are re-exported here so the
// sandbox's whole surface can be imported from one place.
export { checkSandboxAvailable, findBwrap } from './sandbox-probe.js';
export type { BwrapLocation, SandboxAvailability, SandboxIsolation } from './sandbox-probe.js';
export { hasSandboxDenialKeyword, looksLikeSandboxDenial, SANDBOX_DENIAL_KEYWORDS } from './denial.js';
export type { DenialCheckInput } from './denial.js';
// The protected names and the grants the front doors report are defined in their own leaf module.
export { PROTECTED_DIR_NAMES, sandboxGrants } from './sandbox-grants.js';
export type { SandboxGrants, WritableGrant } from './sandbox-grants.js';

/** Where the policy is applied: the command's cwd and its environment (for `$TMPDIR`). */
export interface SandboxContext {
  /** Absolute working directory of the command (bwrap's `--chdir`). */
  cwd: string;
  /**
   * The turn's working directory: the writable root of workspace-write. Default `cwd`. A
   * command's own working directory (`exec_command`'s `workdir`, a `cd dir &&` prefix) never
   * widens the writable roots.
   */
  workspace?: string;
  /** The child's environment; its `TMPDIR` is a writable root unless excluded. */
  env: Readonly<Record<string, string | undefined>>;
  /** The bwrap executable to put in argv[0]; default `bwrap`. */
  bwrapPath?: string;
  /**
   * Paths hidden from the command (Deputy's home with its credentials and sessions, control
   * sockets, token files): a directory becomes an empty read-only tmpfs, anything else is
   * covered by `/dev/null`. A path inside a writable root stays visible: the user chose that root.
   */
  hiddenPaths?: readonly string[];
  /**
   * Files the command must read although they lie inside a hidden path (the thread's shell
   * snapshot under Deputy's home): each is bound read-only on top of the mask, and nothing else
   * of the hidden path becomes visible.
   */
  readablePaths?: readonly string[];
  /** How this bwrap runs (from the probe); default: every isolation flag. */
  isolation?: SandboxIsolation;
}

/** Every isolation flag on, and this process's network-off filter. */
export function defaultIsolation(): SandboxIsolation {
  return { userNamespace: true, disableNestedUserns: true, seccompFile: networkOffFilterFile()?.file ?? null };
}

/** A writable root (realpath) and the read-only paths re-bound inside it. */
export interface WritableRoot {
  root: string;
  readOnlySubpaths: string[];
}

/** True when the policy runs commands under bwrap. */
export function isSandboxed(policy: SandboxPolicy): boolean {
  return policy.type !== 'danger-full-access';
}

/** `realpath`, or null when the path does not exist or cannot be resolved. */
function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

/** True when `child` is `parent` or lies below it (both absolute and normalized). */
export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The writable roots of a workspace-write policy: cwd, `writableRoots`, `$TMPDIR` (unless
 * `excludeTmpdirEnvVar`) and `/tmp` (unless `excludeSlashTmp`), each resolved with realpath,
 * missing ones skipped, duplicates removed. Each root lists the existing protected entries
 * (`.git`, `.deputy`, `.codex`) directly inside it. Other policies have no writable roots.
 */
export function resolveWritableRoots(
  policy: SandboxPolicy,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): WritableRoot[] {
  if (policy.type !== 'workspace-write') return [];
  const candidates = [cwd, ...policy.writableRoots];
  const tmpdir = env.TMPDIR;
  if (!policy.excludeTmpdirEnvVar && tmpdir !== undefined && tmpdir !== '') candidates.push(tmpdir);
  if (!policy.excludeSlashTmp) candidates.push('/tmp');

  const seen = new Set<string>();
  const roots: WritableRoot[] = [];
  for (const candidate of candidates) {
    const root = realpathOrNull(path.resolve(cwd, candidate));
    if (root === null || seen.has(root)) continue;
    seen.add(root);
    const readOnlySubpaths: string[] = [];
    for (const name of PROTECTED_DIR_NAMES) {
      const entry = path.join(root, name);
      // A protected entry that is a symlink is protected at its target, if the target is writable.
      const resolved = realpathOrNull(entry);
      if (resolved !== null) readOnlySubpaths.push(resolved);
    }
    roots.push({ root, readOnlySubpaths });
  }
  return roots;
}

/**
 * The bwrap command line that runs `argv` under `policy`, or `argv` itself for
 * danger-full-access. Layout: `--new-session --die-with-parent`, a user namespace with every
 * capability dropped (so even root cannot remount, mount or enter the host's namespaces; bwrap
 * also sets `no_new_privs`), no nested user namespaces, new PID, IPC and UTS namespaces,
 * `--ro-bind / /`, `--dev /dev`, one `--bind R R` per writable root, the hidden paths masked, the
 * protected entries of every writable root bound read-only again, `--unshare-net` unless the
 * policy allows network (then also the seccomp filter against filesystem Unix sockets, given on
 * fd 3 through a `/bin/sh` wrapper), `--proc /proc`, `--chdir <cwd>`, `--`, then `argv`.
 */
export function buildSandboxedArgv(argv: readonly string[], policy: SandboxPolicy, context: SandboxContext): string[] {
  if (policy.type === 'danger-full-access') return [...argv];
  const isolation = context.isolation ?? defaultIsolation();
  const args: string[] = [context.bwrapPath ?? 'bwrap', '--new-session', '--die-with-parent'];
  if (isolation.userNamespace) {
    args.push('--unshare-user');
    if (isolation.disableNestedUserns) args.push('--disable-userns');
  }
  args.push('--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--unshare-uts');
  args.push('--ro-bind', '/', '/', '--dev', '/dev');

  const roots = resolveWritableRoots(policy, context.workspace ?? context.cwd, context.env);
  for (const { root } of roots) args.push('--bind', root, root);
  // Masks come after the writable binds, so a hidden path inside a bound parent is still hidden;
  // a writable root inside a hidden directory is bound again on top of the mask.
  const chosenRoots = policy.type === 'workspace-write' ? policy.writableRoots.map((r) => path.resolve(context.workspace ?? context.cwd, r)) : [];
  const hidden = hiddenMounts(context.hiddenPaths ?? [], chosenRoots, roots, isolation);
  args.push(...hidden.args);
  for (const root of hidden.rootsToRebind) args.push('--bind', root, root);
  for (const file of readableInsideMasks(context.readablePaths ?? [], hidden.masked)) args.push('--ro-bind', file, file);
  // Made read-only last: bwrap creates the mount points of the re-bound roots inside the tmpfs.
  for (const dir of hidden.maskedDirs) args.push('--remount-ro', dir);
  // Read-only re-binds come after every writable bind so they win over all of them (and none
  // inside a hidden path: binding it again would show what the mask hides).
  const protectedPaths = new Set<string>();
  for (const { readOnlySubpaths } of roots) {
    for (const subpath of readOnlySubpaths) {
      const isHidden = hidden.masked.some((m) => isWithin(subpath, m));
      if (!isHidden && roots.some(({ root }) => isWithin(subpath, root))) protectedPaths.add(subpath);
    }
  }
  for (const subpath of [...protectedPaths].sort()) args.push('--ro-bind', subpath, subpath);

  const filter = policy.networkAccess ? null : isolation.seccompFile;
  if (!policy.networkAccess) args.push('--unshare-net');
  if (filter !== null) args.push('--seccomp', String(SECCOMP_FD));
  args.push('--proc', '/proc');
  args.push('--chdir', realpathOrNull(context.cwd) ?? context.cwd);
  args.push('--', ...argv);
  return filter === null ? args : withSeccompFd(args, filter);
}

/**
 * The bwrap arguments that hide `paths` (each resolved; missing ones skipped): a directory is
 * covered by an empty tmpfs (made read-only by the caller once the roots inside it are bound
 * again), any other file by `/dev/null`. A path inside a
 * writable root the user configured (`writable_roots`) stays visible; the cwd, `/tmp` and
 * `$TMPDIR` do not count as such a choice. A writable root inside a hidden directory is bound
 * again on top of the mask. The seccomp program's own directory is always hidden.
 */
function hiddenMounts(
  paths: readonly string[],
  chosenRoots: readonly string[],
  roots: readonly WritableRoot[],
  isolation: SandboxIsolation,
): { args: string[]; masked: string[]; maskedDirs: string[]; rootsToRebind: string[] } {
  const chosen = chosenRoots.flatMap((r) => realpathOrNull(r) ?? []);
  const candidates = [...paths];
  if (isolation.seccompFile !== null) candidates.push(path.dirname(isolation.seccompFile));
  const args: string[] = [];
  const masked: string[] = [];
  const maskedDirs: string[] = [];
  for (const candidate of new Set(candidates)) {
    const real = realpathOrNull(candidate);
    if (real === null || real === '/' || masked.includes(real)) continue;
    if (chosen.some((root) => isWithin(real, root))) continue;
    let isDir: boolean;
    try {
      isDir = fs.statSync(real).isDirectory();
    } catch {
      continue;
    }
    masked.push(real);
    if (isDir) {
      args.push('--tmpfs', real);
      maskedDirs.push(real);
    } else {
      args.push('--ro-bind', '/dev/null', real);
    }
  }
  const rootsToRebind = roots.map(({ root }) => root).filter((root) => masked.some((m) => isWithin(root, m)));
  return { args, masked, maskedDirs, rootsToRebind };
}

/** The realpaths of `paths` that are regular files inside one of the `masked` paths (the others need no bind). */
function readableInsideMasks(paths: readonly string[], masked: readonly string[]): string[] {
  const files: string[] = [];
  for (const candidate of paths) {
    const real = realpathOrNull(candidate);
    if (real === null || !masked.some((m) => isWithin(real, m) && real !== m)) continue;
    try {
      if (fs.statSync(real).isFile() && !files.includes(real)) files.push(real);
    } catch {
      continue;
    }
  }
  return files;
}

/**
 * Resolves `absPath` the way the kernel would for a write: realpath of its nearest existing
 * ancestor, plus the components that do not exist yet.
 */
export function resolveForWrite(absPath: string): string {
  let existing = path.resolve(absPath);
  const rest: string[] = [];
  for (;;) {
    const real = realpathOrNull(existing);
    if (real !== null) return path.join(real, ...rest);
    const parent = path.dirname(existing);
    if (parent === existing) return path.join(existing, ...rest);
    rest.unshift(path.basename(existing));
    existing = parent;
  }
}

/**
 * Whether an in-process writer (apply_patch) may write `absPath` under `policy`, by the same
 * rules bwrap enforces: always under danger-full-access, never under read-only, and under
 * workspace-write only inside a writable root and outside the `.git`, `.deputy` and `.codex` at
 * the top of any root. Symlinks are followed (nearest existing ancestor, realpath).
 */
export function isWritablePath(
  absPath: string,
  policy: SandboxPolicy,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (policy.type === 'danger-full-access') return true;
  if (policy.type === 'read-only') return false;
  const target = resolveForWrite(path.resolve(cwd, absPath));
  const roots = resolveWritableRoots(policy, cwd, env);
  if (!roots.some(({ root }) => isWithin(target, root))) return false;
  for (const { root, readOnlySubpaths } of roots) {
    if (readOnlySubpaths.some((subpath) => isWithin(target, subpath))) return false;
    // Also refuse creating a protected entry that does not exist yet (e.g. a new `.git`).
    if (isWithin(target, root)) {
      const first = path.relative(root, target).split(path.sep)[0];
      if (first !== undefined && PROTECTED_DIR_NAMES.includes(first)) return false;
    }
  }
  return true;
}
