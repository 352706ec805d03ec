/**
 * The `--listen` URL of the Streamable HTTP transport: `http://HOST:PORT/PATH` (port 0 picks a
 * free port), or a bare port, which means `http://127.0.0.1:PORT/mcp` (loopback by default).
 * Parsing only, no sockets; which hosts count as loopback is rpc's one rule (`isLoopbackHost`).
 */
import { isLoopbackHost } from '@deputy/rpc/core';

export { isLoopbackHost } from '@deputy/rpc/core';

/** Where to listen. */
export interface ListenUrl {
  /** Host to bind, without IPv6 brackets. */
  host: string;
  port: number;
  /** The one path MCP is served on, e.g. `/mcp`. */
  path: string;
  /** True when the host is a loopback address or `localhost` (rpc's `isLoopbackHost`). */
  isLoopback: boolean;
}

/** Parses `--listen`; throws an Error with a message fit for the terminal. */
export function parseListenUrl(raw: string): ListenUrl {
  if (/^\d{1,5}$/.test(raw)) return { host: '127.0.0.1', port: Number(raw), path: '/mcp', isLoopback: true };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--listen ${raw}: expected a URL such as http://127.0.0.1:8787/mcp`);
  }
  if (url.protocol !== 'http:') throw new Error(`--listen ${raw}: only http:// is supported (put a TLS proxy in front for https)`);
  if (url.port === '') throw new Error(`--listen ${raw}: give a port, e.g. http://127.0.0.1:8787/mcp (0 picks a free one)`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const path = url.pathname === '' ? '/' : url.pathname;
  return { host, port: Number(url.port), path, isLoopback: isLoopbackHost(host) };
}
