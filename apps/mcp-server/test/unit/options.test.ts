/**
 * Command line, `[mcp_server]` settings, the `--listen` URL and the `config` argument's TOML
 * conversion: what is accepted, the defaults, and the messages for mistakes.
 */
import { describe, expect, it } from 'vitest';
import { parseMcpServerArgs, UsageError } from '../../src/cli-args.js';
import { configOverrides, tomlValue } from '../../src/engine-host.js';
import { DEFAULT_SETTINGS, parseSettings, SettingsError } from '../../src/settings.js';
import { isLoopbackHost, parseListenUrl } from '../../src/transport/listen-url.js';

describe('parseMcpServerArgs', () => {
  it('reads every option, repeating -c in order', () => {
    expect(parseMcpServerArgs(['--listen', 'http://127.0.0.1:0/mcp', '--insecure-no-auth', '-c', 'a=1', '--config', 'b="x"', '--profile', 'fast'])).toEqual({
      listen: 'http://127.0.0.1:0/mcp',
      insecureNoAuth: true,
      overrides: ['a=1', 'b="x"'],
      profile: 'fast',
      help: false,
      version: false,
    });
    expect(parseMcpServerArgs([])).toEqual({ insecureNoAuth: false, overrides: [], help: false, version: false });
  });

  it('rejects unknown options, a -c without "=", and --insecure-no-auth without --listen', () => {
    expect(() => parseMcpServerArgs(['--nope'])).toThrow(UsageError);
    expect(() => parseMcpServerArgs(['-c', 'novalue'])).toThrow('-c novalue: expected key=value');
    expect(() => parseMcpServerArgs(['--insecure-no-auth'])).toThrow('--insecure-no-auth only applies with --listen');
  });
});

describe('parseSettings', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      codex_events: true,
      approval_timeout_seconds: 600,
      approval_fallback: 'deny',
      session_tools: false,
      progress_interval_ms: 15_000,
      http_session_idle_seconds: 600,
      http_max_sessions: 256,
    });
    // The server starts with the plain-object defaults; the schema must yield the same ones.
    expect(parseSettings({}, 'config.toml')).toEqual(DEFAULT_SETTINGS);
  });

  it('names the key of a bad or unknown value', () => {
    expect(() => parseSettings({ approval_timeout_seconds: -1 }, 'config.toml')).toThrow(/^config\.toml: mcp_server\.approval_timeout_seconds: /);
    expect(() => parseSettings({ approval_fallback: 'ask' }, 'config.toml')).toThrow(SettingsError);
    expect(() => parseSettings({ sesion_tools: true }, 'config.toml')).toThrow('config.toml: mcp_server.sesion_tools: unknown key');
  });
});

describe('parseListenUrl', () => {
  it('parses host, port and path and knows loopback addresses', () => {
    expect(parseListenUrl('http://127.0.0.1:8787/mcp')).toEqual({ host: '127.0.0.1', port: 8787, path: '/mcp', isLoopback: true });
    expect(parseListenUrl('http://[::1]:0/')).toEqual({ host: '::1', port: 0, path: '/', isLoopback: true });
    expect(parseListenUrl('http://0.0.0.0:9/mcp').isLoopback).toBe(false);
    expect(parseListenUrl('8787')).toEqual({ host: '127.0.0.1', port: 8787, path: '/mcp', isLoopback: true });
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
  });

  it('explains what is wrong with a bad URL', () => {
    expect(() => parseListenUrl('https://127.0.0.1:1/mcp')).toThrow('only http:// is supported');
    expect(() => parseListenUrl('http://127.0.0.1/mcp')).toThrow('give a port');
    expect(() => parseListenUrl('nope')).toThrow('expected a URL');
  });
});

describe('config argument → -c overrides', () => {
  it('renders JSON values as TOML values', () => {
    expect(configOverrides({ model: 'gpt-5.2', 'model_providers.mock.base_url': 'http://x/v1', 'sandbox_workspace_write.writable_roots': ['/a', '/b'], n: 3, on: true, t: { 'a b': 1, c: [true] } })).toEqual([
      'model="gpt-5.2"',
      'model_providers.mock.base_url="http://x/v1"',
      'sandbox_workspace_write.writable_roots=["/a", "/b"]',
      'n=3',
      'on=true',
      't={ "a b" = 1, "c" = [true] }',
    ]);
    expect(tomlValue('quote " and \\ and \n', 'k')).toBe('"quote \\" and \\\\ and \\n"');
  });

  it('refuses null, which TOML cannot express', () => {
    expect(() => tomlValue({ a: null }, 'x')).toThrow('config.x.a: null is not a valid configuration value');
  });
});
