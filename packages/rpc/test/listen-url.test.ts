/** `--listen` parsing and the loopback check. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ListenUrlError, defaultUnixSocketPath, formatWsUrl, isLoopbackHost, parseListenUrl } from '../src/listen-url.js';

describe('parseListenUrl', () => {
  it('parses stdio, off, and ws addresses with IPv4 or bracketed IPv6', () => {
    expect(parseListenUrl('stdio://')).toEqual({ kind: 'stdio' });
    expect(parseListenUrl('off')).toEqual({ kind: 'off' });
    expect(parseListenUrl('ws://127.0.0.1:8765')).toEqual({ kind: 'ws', host: '127.0.0.1', port: 8765 });
    expect(parseListenUrl('ws://0.0.0.0:0')).toEqual({ kind: 'ws', host: '0.0.0.0', port: 0 });
    expect(parseListenUrl('ws://[::1]:9000')).toEqual({ kind: 'ws', host: '::1', port: 9000 });
  });

  it('resolves unix paths against the working directory and bare unix:// to the default under the home', () => {
    expect(parseListenUrl('unix:///run/app.sock')).toEqual({ kind: 'unix', path: '/run/app.sock', isDefault: false });
    expect(parseListenUrl('unix://rel/app.sock', { cwd: '/work' })).toEqual({ kind: 'unix', path: '/work/rel/app.sock', isDefault: false });
    expect(parseListenUrl('unix://', { home: '/home/u/.deputy' })).toEqual({
      kind: 'unix',
      path: '/home/u/.deputy/app-server-control/app-server-control.sock',
      isDefault: true,
    });
    expect(defaultUnixSocketPath('/h')).toBe(path.join('/h', 'app-server-control', 'app-server-control.sock'));
    expect(() => parseListenUrl('unix://')).toThrow(ListenUrlError);
  });

  it('rejects host names, missing or out-of-range ports and unknown schemes with the accepted forms', () => {
    for (const bad of ['ws://localhost:80', 'ws://127.0.0.1', 'ws://127.0.0.1:70000', 'ws://::1:80', 'ws://[nope]:1']) {
      expect(() => parseListenUrl(bad)).toThrow(`invalid websocket --listen URL \`${bad}\`; expected \`ws://IP:PORT\``);
    }
    expect(() => parseListenUrl('http://127.0.0.1:1')).toThrow(
      'unsupported --listen URL `http://127.0.0.1:1`; expected `stdio://`, `unix://`, `unix://PATH`, `ws://IP:PORT`, or `off`',
    );
    expect(() => parseListenUrl('stdio')).toThrow(ListenUrlError);
  });
});

describe('isLoopbackHost', () => {
  it('accepts 127.0.0.0/8, ::1, mapped loopback and localhost, and nothing else', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', 'example.com', '128.0.0.1']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('formats ws URLs with brackets around IPv6 hosts', () => {
    expect(formatWsUrl('::1', 80)).toBe('ws://[::1]:80');
    expect(formatWsUrl('127.0.0.1', 80)).toBe('ws://127.0.0.1:80');
  });
});
