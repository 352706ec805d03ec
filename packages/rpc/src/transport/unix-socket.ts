/**
 * The `unix://PATH` listener: an HTTP server on a Unix stream socket that takes an Upgrade to
 * WebSocket, as the reference does (spec §1). A missing parent directory is created with mode
 * 0700 and the socket is chmod 0600. A stale socket file (nothing accepts on it) is replaced; a
 * live one (a connect succeeds) or a path that is not a socket is refused with a clear error. The
 * socket file is removed on close. There are no health endpoints here.
 */
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Listener, Transport, TransportOptions } from './transport.js';
import { createUpgradeServer } from './upgrade-server.js';

/** Mode of the directory created for the socket. */
export const SOCKET_DIR_MODE = 0o700;
/** Mode of the socket file. */
export const SOCKET_FILE_MODE = 0o600;

/** Options of {@link listenUnixSocket}. */
export interface UnixSocketListenerOptions extends TransportOptions {
  /** Absolute path of the socket file. */
  path: string;
  /** Largest accepted frame in bytes; defaults to 100 MiB. */
  maxPayload?: number;
}

/** A bound Unix socket listener. */
export interface UnixSocketListener extends Listener {
  /** The socket path. */
  readonly path: string;
}

/** Thrown when the socket path is taken by a live server or by something that is not a socket. */
export class SocketInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SocketInUseError';
  }
}

/** Resolves true when something accepts connections on the path. */
function probeSocket(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect({ path: socketPath });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

async function prepareSocketPath(socketPath: string): Promise<void> {
  const dir = path.dirname(socketPath);
  // mkdir reports the first directory it created; only directories we created get their mode
  // forced (never chmod an existing shared directory such as /tmp).
  const created = await mkdir(dir, { recursive: true, mode: SOCKET_DIR_MODE });
  if (created !== undefined) await chmod(dir, SOCKET_DIR_MODE);
  let stat;
  try {
    stat = await lstat(socketPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (!stat.isSocket()) {
    throw new SocketInUseError(`app-server control socket path exists and is not a socket: ${socketPath}`);
  }
  if (await probeSocket(socketPath)) {
    throw new SocketInUseError(`app-server control socket is already in use at ${socketPath}`);
  }
  await unlink(socketPath);
}

/** Binds the listener; resolves once it accepts connections. */
export async function listenUnixSocket(options: UnixSocketListenerOptions): Promise<UnixSocketListener> {
  const socketPath = path.resolve(options.path);
  await prepareSocketPath(socketPath);
  const upgrade = await createUpgradeServer({
    label: 'unix',
    healthEndpoints: false,
    maxPayload: options.maxPayload,
    versionField: options.versionField,
    logger: options.logger,
  });
  const { server } = upgrade;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: socketPath, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    await chmod(socketPath, SOCKET_FILE_MODE);
  } catch (e) {
    await upgrade.close();
    throw e;
  }
  let isClosed = false;
  return {
    path: socketPath,
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
