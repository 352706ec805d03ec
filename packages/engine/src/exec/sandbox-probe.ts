/**
 * Finding bubblewrap and checking, once per executable, that it can actually create the
 * namespaces the sandbox uses (some containers forbid user, PID or network namespaces, or mounting
 * /proc). The probe runs the same flags as a real read-only sandbox around `true`. Results are
 * cached; a failure explains what went wrong so the user can fix it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { networkOffFilterFile, SECCOMP_FD, withSeccompFd } from './seccomp.js';

/** How a working bwrap isolates commands here (the flags `buildSandboxedArgv` uses). */
export interface SandboxIsolation {
  /** `--unshare-user`: a user namespace (needed as root; bwrap uses one anyway when not root). */
  userNamespace: boolean;
  /** `--disable-userns` (bwrap 0.8+): no nested user namespace inside the sandbox. */
  disableNestedUserns: boolean;
  /** The seccomp program file of a network-off sandbox, or null when there is none for this architecture. */
  seccompFile: string | null;
}

/** Where to look for bwrap. */
export interface BwrapLocation {
  /** An explicit bwrap executable; skips the PATH search. */
  bwrapPath?: string;
  /** The PATH searched for `bwrap`; default `process.env.PATH`. */
  pathEnv?: string;
}

/**
 * Outcome of {@link checkSandboxAvailable}; `bwrapPath` is the executable that passed, and
 * `isolation` the flags it accepted (pass it to `buildSandboxedArgv`).
 */
export type SandboxAvailability = { ok: true; bwrapPath: string; isolation: SandboxIsolation } | { ok: false; message: string };

const PROBE_TIMEOUT_MS = 10_000;
const probeCache = new Map<string, Promise<SandboxAvailability>>();

/** True when `file` is an executable regular file. */
function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of the bwrap to use, or null when there is none. */
export function findBwrap(location: BwrapLocation = {}): string | null {
  if (location.bwrapPath !== undefined) {
    return isExecutableFile(location.bwrapPath) ? path.resolve(location.bwrapPath) : null;
  }
  const searchPath = location.pathEnv ?? process.env.PATH ?? '';
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'bwrap');
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** The flags of a read-only, network-off sandbox around `true`, for `isolation`. */
function probeArgv(bwrapPath: string, isolation: SandboxIsolation): string[] {
  const args = [bwrapPath, '--new-session', '--die-with-parent'];
  if (isolation.userNamespace) args.push('--unshare-user');
  if (isolation.disableNestedUserns) args.push('--disable-userns');
  args.push('--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--ro-bind', '/', '/', '--dev', '/dev');
  args.push('--unshare-net');
  if (isolation.seccompFile !== null) args.push('--seccomp', String(SECCOMP_FD));
  args.push('--proc', '/proc', '--', 'true');
  return isolation.seccompFile === null ? args : withSeccompFd(args, isolation.seccompFile);
}

/** Runs one probe; resolves to null on success, else a description of the failure. */
function runProbe(argv: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(argv[0] as string, argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(`could not run ${argv[0]}: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(null);
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve(`probe ${how}${stderr.trim() === '' ? '' : `: ${stderr.trim()}`}`);
    });
  });
}

/**
 * Finds the strongest isolation this bwrap can set up: a user namespace with nested ones
 * disabled; without `--disable-userns` on a bwrap older than 0.8; and, for root only (where a
 * container forbids user namespaces), without a user namespace but still with every capability
 * dropped and `no_new_privs`. The seccomp filter is never dropped: a bwrap that cannot load it
 * fails the probe.
 */
async function probe(bwrapPath: string): Promise<SandboxAvailability> {
  let seccompFile: string | null;
  try {
    seccompFile = networkOffFilterFile()?.file ?? null;
  } catch (error) {
    return { ok: false, message: `could not write the sandbox's seccomp filter: ${(error as Error).message}` };
  }
  const attempts: SandboxIsolation[] = [
    { userNamespace: true, disableNestedUserns: true, seccompFile },
    { userNamespace: true, disableNestedUserns: false, seccompFile },
  ];
  if (process.getuid?.() === 0) attempts.push({ userNamespace: false, disableNestedUserns: false, seccompFile });
  let firstFailure = '';
  for (const isolation of attempts) {
    const failure = await runProbe(probeArgv(bwrapPath, isolation));
    if (failure === null) return { ok: true, bwrapPath, isolation };
    if (firstFailure === '') firstFailure = failure;
  }
  return { ok: false, message: `${bwrapPath} cannot create the sandbox namespaces (${firstFailure})` };
}

/**
 * Checks that bubblewrap is installed and can create the sandbox here. The probe is cached per
 * bwrap executable for the life of the process; a missing bwrap is not cached, so installing it
 * takes effect without a restart.
 */
export function checkSandboxAvailable(location: BwrapLocation = {}): Promise<SandboxAvailability> {
  const bwrapPath = findBwrap(location);
  if (bwrapPath === null) {
    const where = location.bwrapPath !== undefined ? `at ${location.bwrapPath}` : 'on PATH';
    return Promise.resolve({ ok: false, message: `bubblewrap (bwrap) was not found ${where}` });
  }
  let cached = probeCache.get(bwrapPath);
  if (cached === undefined) {
    cached = probe(bwrapPath);
    probeCache.set(bwrapPath, cached);
  }
  return cached;
}
