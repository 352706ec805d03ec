/**
 * The `unix://PATH` listener: an HTTP server on a Unix stream socket that takes an Upgrade to
 * WebSocket, as the reference does (docs/app-server.md "The Unix socket"). The socket is the
 * control plane's trust boundary: whoever can connect can do what the user can, so it is never
 * reachable by another user, not even for an instant.
 *
 * - Directory: a missing one is created 0700 (every level created). The default socket's
 *   directory (`isDedicatedDir`) is the server's own: it must be a real directory (not a
 *   symlink) owned by this user, and is tightened to 0700 if it is wider; anything else is
 *   refused. A custom path's existing directory is left alone, but one that other users can
 *   write, or that another non-root user owns, gives a warning (`warnings`): they could replace
 *   or squat the socket's name, though never connect to it.
 * - Socket: bound under umask 0177 (the bind is synchronous, and the previous umask is restored
 *   right after it), so the file is 0600 from its creation; it is chmod-ed 0600 again after the
 *   bind. The umask is process-wide: a file another thread created during the bind would also be
 *   0600 at most; the app opens its listeners before it serves anything, so nothing else creates
 *   files then. Worker threads cannot change the umask; there the private directory and the chmod
 *   remain.
 * - A stale socket file (the connect is refused) of this user is replaced; a live one, one that
 *   cannot be probed, another user's, or a path that is not a socket is refused with a clear error.
 * - Optional auth (`auth`) is checked at the upgrade, as on the TCP listener (401 on failure).
 *
 * The socket file is removed on close. There are no health endpoints here.
 */
import { chmod, lstat, mkdir, stat, unlink } from 'node:fs/promises';
import type http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { WsAuthenticator } from '../auth.js';
import type { Listener, Transport, TransportOptions } from './transport.js';
import { createUpgradeServer } from './upgrade-server.js';

/** Mode of the directory created for the socket. */
export const SOCKET_DIR_MODE = 0o700;
/** Mode of the socket file. */
export const SOCKET_FILE_MODE = 0o600;
/** The umask in force while the socket is bound: the file gets read and write for its owner only. */
export const SOCKET_BIND_UMASK = 0o177;

/** Options of {@link listenUnixSocket}. */
export interface UnixSocketListenerOptions extends TransportOptions {
  /** Absolute path of the socket file. */
  path: string;
  /**
   * The socket's directory belongs to the server (the default socket under the home): it must be
   * a real directory owned by this user, and is made 0700. Otherwise an existing directory is
   * only checked, with warnings.
   */
  isDedicatedDir?: boolean;
  /** Checked at the upgrade (401 on failure); without it file permissions are the only check. */
  auth?: WsAuthenticator;
  /** Largest accepted frame in bytes; defaults to 100 MiB. */
  maxPayload?: number;
}

/** A bound Unix socket listener. */
export interface UnixSocketListener extends Listener {
  /** The socket path. */
  readonly path: string;
  /** Concerns about the socket's directory, for the operator (empty when it is private). */
  readonly warnings: readonly string[];
}

/** Thrown when the socket path is taken by a live server or by something that is not ours to replace. */
export class SocketInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SocketInUseError';
  }
}

/** Thrown when the default socket's directory is not a private directory of this user. */
export class SocketDirectoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SocketDirectoryError';
  }
}

/** This process's effective uid; undefined where there is none (Windows). */
const effectiveUid = (): number | undefined => process.geteuid?.();

const modeText = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/** `live` when something accepts, `stale` when the connect is refused, else the error's code. */
function probeSocket(socketPath: string): Promise<string> {
  return new Promise((resolve) => {
    const probe = net.connect({ path: socketPath });
    probe.once('connect', () => {
      probe.destroy();
      resolve('live');
    });
    probe.once('error', (e: NodeJS.ErrnoException) => {
      resolve(e.code === 'ECONNREFUSED' || e.code === 'ENOENT' ? 'stale' : (e.code ?? 'unknown error'));
    });
  });
}

/** Creates the missing directories 0700; returns true when `dir` itself was created. */
async function makeSocketDir(dir: string): Promise<boolean> {
  // mkdir reports the first directory it created; the mode it is given is masked by the umask,
  // so each created level is chmod-ed (never an existing shared directory such as /tmp).
  const first = await mkdir(dir, { recursive: true, mode: SOCKET_DIR_MODE });
  if (first === undefined) return false;
  const relative = path.relative(first, dir);
  let current = first;
  await chmod(current, SOCKET_DIR_MODE);
  for (const part of relative === '' ? [] : relative.split(path.sep)) {
    current = path.join(current, part);
    await chmod(current, SOCKET_DIR_MODE);
  }
  return true;
}

/** The default socket's directory: a real directory of ours, made 0700. */
async function checkDedicatedDir(dir: string): Promise<void> {
  const info = await lstat(dir);
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new SocketDirectoryError(`app-server control socket directory is not a directory (a symlink or another file): ${dir}`);
  }
  const uid = effectiveUid();
  if (uid !== undefined && info.uid !== uid) {
    throw new SocketDirectoryError(`app-server control socket directory ${dir} is owned by uid ${info.uid}, not by this user (uid ${uid})`);
  }
  if ((info.mode & 0o077) !== 0) await chmod(dir, SOCKET_DIR_MODE);
}

/** A custom path's existing directory: warnings when other users could replace the socket. */
async function checkCustomDir(dir: string): Promise<string[]> {
  const info = await stat(dir);
  const uid = effectiveUid();
  const warnings: string[] = [];
  if ((info.mode & 0o022) !== 0) {
    const sticky = (info.mode & 0o1000) !== 0 ? ' (sticky)' : '';
    warnings.push(
      `the socket's directory ${dir} is writable by other users (mode ${modeText(info.mode)}${sticky}): the socket is 0600, so they cannot connect, but they may take or replace its name; prefer a private directory or the default \`unix://\``,
    );
  }
  if (uid !== undefined && info.uid !== uid && info.uid !== 0) {
    warnings.push(`the socket's directory ${dir} is owned by uid ${info.uid}, who can replace the socket; prefer a directory of your own`);
  }
  return warnings;
}

/** Removes a stale socket of ours at the path; refuses anything else. */
async function clearSocketPath(socketPath: string): Promise<void> {
  let info;
  try {
    info = await lstat(socketPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (!info.isSocket()) {
    throw new SocketInUseError(`app-server control socket path exists and is not a socket: ${socketPath}`);
  }
  const uid = effectiveUid();
  if (uid !== undefined && info.uid !== uid) {
    throw new SocketInUseError(`app-server control socket ${socketPath} belongs to uid ${info.uid}; refusing to replace another user's socket`);
  }
  const state = await probeSocket(socketPath);
  if (state === 'live') throw new SocketInUseError(`app-server control socket is already in use at ${socketPath}`);
  if (state !== 'stale') throw new SocketInUseError(`cannot tell whether the app-server control socket ${socketPath} is in use (${state})`);
  await unlink(socketPath).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}

/** Sets the umask; returns the function that restores it (a no-op where it cannot be set). */
function setUmask(mask: number): () => void {
  let previous: number;
  try {
    previous = process.umask(mask);
  } catch {
    // Worker threads cannot change the umask (ERR_WORKER_UNSUPPORTED_OPERATION).
    return () => undefined;
  }
  return () => void process.umask(previous);
}

/** Binds under {@link SOCKET_BIND_UMASK}; resolves once the server listens. */
function bindPrivately(server: http.Server, socketPath: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // listen() on a path creates and binds the socket synchronously (libuv uv_pipe_bind), so the
    // umask covers the creation and is restored before anything else runs on this thread.
    const restore = setUmask(SOCKET_BIND_UMASK);
    try {
      server.listen({ path: socketPath, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      restore();
    }
  });
}

/** Binds the listener; resolves once it accepts connections. */
export async function listenUnixSocket(options: UnixSocketListenerOptions): Promise<UnixSocketListener> {
  const socketPath = path.resolve(options.path);
  const dir = path.dirname(socketPath);
  const isCreated = await makeSocketDir(dir);
  let warnings: string[] = [];
  if (options.isDedicatedDir === true) await checkDedicatedDir(dir);
  else if (!isCreated) warnings = await checkCustomDir(dir);
  await clearSocketPath(socketPath);
  const upgrade = await createUpgradeServer({
    label: 'unix',
    healthEndpoints: false,
    auth: options.auth,
    maxPayload: options.maxPayload,
    versionField: options.versionField,
    logger: options.logger,
  });
  try {
    await bindPrivately(upgrade.server, socketPath);
    // Belt and braces: the umask already gave 0600 where it could be set.
    await chmod(socketPath, SOCKET_FILE_MODE);
  } catch (e) {
    await upgrade.close();
    throw e;
  }
  let isClosed = false;
  return {
    path: socketPath,
    warnings,
    connections: (): AsyncIterable<Transport> => upgrade.transports,
    async close() {
      if (isClosed) return;
      isClosed = true;
      await upgrade.close();
      // net.Server removes its socket file on close; this covers the case where it did not.
      await unlink(socketPath).catch(() => undefined);
    },
  };
}
