/**
 * Finding bubblewrap and checking, once per executable, that it can actually create the
 * namespaces the sandbox uses (some containers forbid user, PID or network namespaces, or mounting
 * /proc). The probe runs the same flags as a real read-only sandbox around `true`. Results are
 * cached; a failure explains what went wrong so the user can fix it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Where to look for bwrap. */
export interface BwrapLocation {
  /** An explicit bwrap executable; skips the PATH search. */
  bwrapPath?: string;
  /** The PATH searched for `bwrap`; default `process.env.PATH`. */
  pathEnv?: string;
}

/** Outcome of {@link checkSandboxAvailable}; `bwrapPath` is the executable that passed. */
export type SandboxAvailability = { ok: true; bwrapPath: string } | { ok: false; message: string };

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

/** Runs bwrap around `true` with the sandbox's namespace and mount flags. */
function probe(bwrapPath: string): Promise<SandboxAvailability> {
  const args = ['--new-session', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev'];
  args.push('--unshare-pid', '--unshare-net', '--proc', '/proc', '--', 'true');
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(bwrapPath, args, {
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
      resolve({ ok: false, message: `could not run ${bwrapPath}: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve({ ok: true, bwrapPath });
        return;
      }
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
      const detail = stderr.trim() === '' ? '' : `: ${stderr.trim()}`;
      resolve({ ok: false, message: `${bwrapPath} cannot create the sandbox namespaces (probe ${how}${detail})` });
    });
  });
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
