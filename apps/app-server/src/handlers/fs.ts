/**
 * Handlers of `fs/readFile`, `fs/writeFile`, `fs/createDirectory`, `fs/getMetadata`,
 * `fs/readDirectory`, `fs/remove`, `fs/copy`, `fs/watch` and `fs/unwatch` (docs/app-server.md
 * "Methods served"): direct filesystem access for the client, on absolute paths only (the schema
 * refuses a relative one). OS failures are -32603 with the OS text as the reference words it
 * (`No such file or directory (os error 2)`); misuse is -32600. Watches belong to the connection
 * that asked: `fs/changed` goes to it alone, and its watches end on `fs/unwatch` or when it closes.
 * No sandbox applies: like the reference, these methods act with the server's own permissions.
 */
import { watch as watchPath, existsSync, type FSWatcher } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, readlink, realpath, rm, rmdir, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { AppServer } from '@deputy/protocol';
import { RpcError, type Connection } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import type { AppLogger } from '../logger.js';
import { errorCode, osErrorText } from '../os-errors.js';
import type { Handlers } from './types.js';

/** How long changes are gathered into one `fs/changed` (the reference's debounce). */
export const FS_CHANGED_DEBOUNCE_MS = 200;

/** Runs a filesystem call; a system error becomes -32603 with the OS text. */
async function withOsErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof RpcError) throw e;
    if (typeof (e as { errno?: unknown } | null)?.errno === 'number') throw RpcError.internal(osErrorText(e));
    throw e;
  }
}

const BASE64_SYMBOL = /^[A-Za-z0-9+/]$/;

/**
 * Decodes standard, padded base64 strictly (Node's decoder skips what it does not understand);
 * -32600 `fs/writeFile requires valid base64 dataBase64: …` otherwise, in the words of the
 * reference's decoder.
 */
function decodeBase64(data: string): Buffer {
  const body = data.replace(/={1,2}$/, '');
  for (let i = 0; i < body.length; i++) {
    if (!BASE64_SYMBOL.test(body.charAt(i))) {
      throw RpcError.invalidRequest(`fs/writeFile requires valid base64 dataBase64: Invalid symbol ${body.charCodeAt(i)}, offset ${i}.`);
    }
  }
  if (data.length % 4 !== 0) {
    const detail = body.length % 4 === 1 ? `Invalid input length: ${body.length}` : 'Invalid padding';
    throw RpcError.invalidRequest(`fs/writeFile requires valid base64 dataBase64: ${detail}`);
  }
  return Buffer.from(data, 'base64');
}

/** Nanoseconds since the epoch as whole milliseconds; 0 when the OS does not know (no birth time). */
function toMs(ns: bigint): number {
  return ns > 0n ? Number(ns / 1_000_000n) : 0;
}

async function readDirectoryEntries(path: string): Promise<AppServer.FsReadDirectoryResult['entries']> {
  const dirents = await readdir(path, { withFileTypes: true });
  return Promise.all(
    dirents.map(async (d) => {
      if (!d.isSymbolicLink()) return { fileName: d.name, isDirectory: d.isDirectory(), isFile: d.isFile() };
      // A link is reported as what it resolves to; a dangling one is neither.
      const target = await stat(join(path, d.name)).catch(() => null);
      return { fileName: d.name, isDirectory: target?.isDirectory() ?? false, isFile: target?.isFile() ?? false };
    }),
  );
}

async function removePath(params: AppServer.FsRemoveParams): Promise<void> {
  let info;
  try {
    info = await lstat(params.path);
  } catch (e) {
    if (errorCode(e) === 'ENOENT' && params.force !== false) return;
    throw e;
  }
  if (!info.isDirectory()) await unlink(params.path);
  else if (params.recursive !== false) await rm(params.path, { recursive: true });
  else await rmdir(params.path);
}

/**
 * Where a copy would land, with the symlinks of its existing part resolved (the rest may not
 * exist yet), to refuse copying a directory into itself.
 */
async function resolveDestination(path: string): Promise<string> {
  const missing: string[] = [];
  let existing = resolve(path);
  while (!existsSync(existing) && dirname(existing) !== existing) {
    missing.unshift(basename(existing));
    existing = dirname(existing);
  }
  return join(await realpath(existing), ...missing);
}

/** Copies a tree: directories merge, files overwrite, links are copied as links, other kinds are skipped. */
async function copyTree(source: string, destination: string): Promise<void> {
  await mkdir(destination, { recursive: true });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(destination, entry.name);
    if (entry.isDirectory()) await copyTree(from, to);
    else if (entry.isFile()) await copyFile(from, to);
    else if (entry.isSymbolicLink()) await symlink(await readlink(from), to);
  }
}

async function copyPath(params: AppServer.FsCopyParams): Promise<void> {
  const { sourcePath, destinationPath } = params;
  const info = await lstat(sourcePath);
  if (info.isDirectory()) {
    if (params.recursive !== true) throw RpcError.invalidRequest('fs/copy requires recursive: true when sourcePath is a directory');
    const source = await realpath(sourcePath);
    const destination = await resolveDestination(destinationPath);
    if (destination === source || destination.startsWith(source.endsWith(sep) ? source : `${source}${sep}`)) {
      throw RpcError.invalidRequest('fs/copy cannot copy a directory to itself or one of its descendants');
    }
    await copyTree(sourcePath, destinationPath);
  } else if (info.isSymbolicLink()) {
    await symlink(await readlink(sourcePath), destinationPath);
  } else if (info.isFile()) {
    await copyFile(sourcePath, destinationPath);
  } else {
    throw RpcError.invalidRequest('fs/copy only supports regular files, directories, and symlinks');
  }
}

/** What a watch observes: `fs.watch` runs on a directory, filtered to one entry for a file. */
interface WatchTarget {
  /** The canonical path: the answer to `fs/watch` and the base of every changed path. */
  readonly path: string;
  /** The directory handed to `fs.watch`. */
  readonly directory: string;
  /** The one entry of `directory` reported (a file, or a path that does not exist yet); null for all. */
  readonly entry: string | null;
}

/**
 * Resolves what to watch. A file is watched through its directory, so an editor's
 * write-to-temp-then-rename or a delete and re-create keep being seen; a missing path is watched
 * the same way and reported once it appears. A missing parent is an OS error.
 */
async function resolveWatchTarget(path: string): Promise<WatchTarget> {
  const absolute = resolve(path);
  try {
    const canonical = await realpath(absolute);
    if ((await stat(canonical)).isDirectory()) return { path: canonical, directory: canonical, entry: null };
    return { path: canonical, directory: dirname(canonical), entry: basename(canonical) };
  } catch (e) {
    if (errorCode(e) !== 'ENOENT') throw e;
    const parent = await realpath(dirname(absolute));
    return { path: join(parent, basename(absolute)), directory: parent, entry: basename(absolute) };
  }
}

/** One live watch. */
interface Watch {
  readonly watcher: FSWatcher;
  readonly pending: Set<string>;
  timer: NodeJS.Timeout | null;
  isClosed: boolean;
}

/** The watches of every connection, by connection and client-chosen `watchId`. */
class WatchRegistry {
  readonly #byConnection = new WeakMap<Connection, Map<string, Watch>>();

  constructor(private readonly logger: AppLogger) {}

  /** True when the connection has a live watch of this id. */
  has(connection: Connection, watchId: string): boolean {
    return this.#byConnection.get(connection)?.has(watchId) ?? false;
  }

  /** Starts a watch; its changes go to `state` as `fs/changed`. */
  add(state: ConnectionState, watchId: string, target: WatchTarget): void {
    const watcher = watchPath(target.directory, { persistent: true, recursive: false, encoding: 'utf8' });
    const watch: Watch = { watcher, pending: new Set(), timer: null, isClosed: false };
    const flush = (): void => {
      watch.timer = null;
      const changedPaths = [...watch.pending].sort();
      watch.pending.clear();
      if (!watch.isClosed && changedPaths.length > 0) state.notify('fs/changed', { watchId, changedPaths });
    };
    const queue = (changed: string): void => {
      watch.pending.add(changed);
      watch.timer ??= setTimeout(flush, FS_CHANGED_DEBOUNCE_MS);
    };
    watcher.on('change', (_event, filename) => {
      const changed = changedPath(target, filename === null ? null : filename.toString());
      if (changed !== null) queue(changed);
    });
    watcher.on('error', (error) => {
      // The OS ended the watch (e.g. the directory went away): say so once, then stop watching.
      this.logger.warn('fs watch ended', { watchId, path: target.path, error: osErrorText(error) });
      queue(target.path);
      watcher.close();
    });
    this.#watchesOf(state.connection).set(watchId, watch);
  }

  /** Ends a watch; nothing of it is sent afterwards. Unknown ids are ignored. */
  remove(connection: Connection, watchId: string): void {
    const watches = this.#byConnection.get(connection);
    const watch = watches?.get(watchId);
    if (!watch) return;
    watches?.delete(watchId);
    watch.isClosed = true;
    if (watch.timer) clearTimeout(watch.timer);
    watch.watcher.close();
  }

  #watchesOf(connection: Connection): Map<string, Watch> {
    let watches = this.#byConnection.get(connection);
    if (!watches) {
      const created = new Map<string, Watch>();
      this.#byConnection.set(connection, (watches = created));
      void connection.closed.then(() => {
        for (const watchId of [...created.keys()]) this.remove(connection, watchId);
      });
    }
    return watches;
  }
}

/** The changed path an `fs.watch` event stands for, or null when the watch does not cover it. */
function changedPath(target: WatchTarget, filename: string | null): string | null {
  if (target.entry !== null) return filename === target.entry ? target.path : null;
  if (filename === null || filename === '') return target.path;
  // Events about the watched directory itself carry its own name (inotify): it was removed or moved.
  if (filename === basename(target.path) && !existsSync(target.path)) return target.path;
  return join(target.path, filename);
}

/** The handlers of this area. */
export function fsHandlers(app: AppContext): Handlers {
  const watches = new WatchRegistry(app.logger);
  return {
    'fs/readFile': (params) => withOsErrors(async () => ({ dataBase64: (await readFile(params.path)).toString('base64') })),
    'fs/writeFile': (params) =>
      withOsErrors(async () => {
        await writeFile(params.path, decodeBase64(params.dataBase64));
        return {};
      }),
    'fs/createDirectory': (params) =>
      withOsErrors(async () => {
        await mkdir(params.path, { recursive: params.recursive ?? true });
        return {};
      }),
    'fs/getMetadata': (params) =>
      withOsErrors(async () => {
        const [target, link] = await Promise.all([stat(params.path, { bigint: true }), lstat(params.path)]);
        return {
          isDirectory: target.isDirectory(),
          isFile: target.isFile(),
          isSymlink: link.isSymbolicLink(),
          createdAtMs: toMs(target.birthtimeNs),
          modifiedAtMs: toMs(target.mtimeNs),
        };
      }),
    'fs/readDirectory': (params) => withOsErrors(async () => ({ entries: await readDirectoryEntries(params.path) })),
    'fs/remove': (params) =>
      withOsErrors(async () => {
        await removePath(params);
        return {};
      }),
    'fs/copy': (params) =>
      withOsErrors(async () => {
        await copyPath(params);
        return {};
      }),
    'fs/watch': (params, ctx) =>
      withOsErrors(async () => {
        const duplicate = (): RpcError => RpcError.invalidRequest(`watchId already exists: ${params.watchId}`);
        if (watches.has(ctx.connection, params.watchId)) throw duplicate();
        const target = await resolveWatchTarget(params.path);
        // Checked again after the await: a second fs/watch with the same id may have won the race.
        if (watches.has(ctx.connection, params.watchId)) throw duplicate();
        if (ctx.connection.isClosed) throw RpcError.invalidRequest('connection is closed');
        watches.add(app.stateOf(ctx.connection), params.watchId, target);
        return { path: target.path };
      }),
    'fs/unwatch': (params, ctx) => {
      watches.remove(ctx.connection, params.watchId);
      return {};
    },
  };
}
