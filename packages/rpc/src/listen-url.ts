/**
 * Parses `--listen` values: `stdio://`, `ws://IP:PORT`, `unix://`, `unix://PATH` and `off`
 * (docs/app-server.md "Running it"; reference: codex-rs/app-server/src/transport/mod.rs
 * `from_listen_url`). A WebSocket address must be a literal IP, as the reference requires; a
 * relative Unix path is resolved against the working directory; bare `unix://` means the default
 * socket under the home. This module only parses: refusing a non-loopback WebSocket bind without
 * auth is the caller's job, with `isLoopbackHost`.
 */
import { isIP } from 'node:net';
import path from 'node:path';

/** Where the server listens. */
export type ListenTarget =
  | { kind: 'stdio' }
  | { kind: 'ws'; host: string; port: number }
  | { kind: 'unix'; path: string; isDefault: boolean }
  | { kind: 'off' };

/** Thrown for a `--listen` value that is not one of the accepted forms. */
export class ListenUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenUrlError';
  }
}

/** The default listen URL. */
export const DEFAULT_LISTEN_URL = 'stdio://';

/** Options of {@link parseListenUrl}. */
export interface ParseListenUrlOptions {
  /** The server's home (`$CODEX_HOME`-like); needed for bare `unix://`. */
  home?: string;
  /** Base for relative Unix socket paths; defaults to `process.cwd()`. */
  cwd?: string;
}

/** The reference's default control socket: `<home>/app-server-control/app-server-control.sock`. */
export function defaultUnixSocketPath(home: string): string {
  return path.join(home, 'app-server-control', 'app-server-control.sock');
}

function parseWsAddress(url: string, rest: string): { host: string; port: number } {
  const invalid = (): ListenUrlError =>
    new ListenUrlError(`invalid websocket --listen URL \`${url}\`; expected \`ws://IP:PORT\``);
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(rest);
  if (!match) throw invalid();
  const v6 = match[1];
  const v4 = match[2];
  const port = Number(match[3]);
  if (port > 65535) throw invalid();
  if (v6 !== undefined) {
    if (isIP(v6) !== 6) throw invalid();
    return { host: v6, port };
  }
  if (v4 === undefined || isIP(v4) !== 4) throw invalid();
  return { host: v4, port };
}

/** Parses a `--listen` value; throws {@link ListenUrlError} with a message naming the accepted forms. */
export function parseListenUrl(url: string, options: ParseListenUrlOptions = {}): ListenTarget {
  if (url === DEFAULT_LISTEN_URL) return { kind: 'stdio' };
  if (url === 'off') return { kind: 'off' };
  if (url.startsWith('unix://')) {
    const raw = url.slice('unix://'.length);
    if (raw === '') {
      if (options.home === undefined) {
        throw new ListenUrlError(`invalid unix socket --listen URL \`${url}\`; no home directory to put the default socket in`);
      }
      return { kind: 'unix', path: defaultUnixSocketPath(options.home), isDefault: true };
    }
    return { kind: 'unix', path: path.resolve(options.cwd ?? process.cwd(), raw), isDefault: false };
  }
  if (url.startsWith('ws://')) return { kind: 'ws', ...parseWsAddress(url, url.slice('ws://'.length)) };
  throw new ListenUrlError(
    `unsupported --listen URL \`${url}\`; expected \`stdio://\`, \`unix://\`, \`unix://PATH\`, \`ws://IP:PORT\`, or \`off\``,
  );
}

/**
 * True for loopback addresses: 127.0.0.0/8, `::1`, IPv4-mapped loopback, and the name
 * `localhost`. Use it to refuse a non-loopback WebSocket bind that has no auth configured.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h.toLowerCase() === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    const lower = h.toLowerCase();
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped?.[1] !== undefined && mapped[1].startsWith('127.');
  }
  return false;
}

/** The URL form of a WebSocket target, with brackets around IPv6 hosts. */
export function formatWsUrl(host: string, port: number): string {
  return `ws://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
