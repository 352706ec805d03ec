/** Unit tests of the command line and of the small parsers the handlers use. */
import { describe, expect, it } from 'vitest';
import { parseAppServerArgs, UsageError } from '../src/cli-args.js';
import { uuidProblem } from '../src/handlers/common.js';
import { runAppServer } from '../src/run.js';

describe('command line', () => {
  it('defaults to stdio and keeps repeated listeners, overrides and auth flags in order', () => {
    expect(parseAppServerArgs([]).listen).toEqual(['stdio://']);
    const args = parseAppServerArgs(['--listen', 'ws://127.0.0.1:0', '--listen', 'unix://', '-c', 'model="x"', '--config', 'a.b=1', '--ws-auth', 'capability-token', '--ws-token-sha256', 'ab']);
    expect(args.listen).toEqual(['ws://127.0.0.1:0', 'unix://']);
    expect(args.configOverrides).toEqual(['model="x"', 'a.b=1']);
    expect(args.wsAuth).toMatchObject({ wsAuth: 'capability-token', wsTokenSha256: 'ab' });
  });

  it('refuses unknown flags, positional arguments, two stdio listeners and off with others', () => {
    expect(() => parseAppServerArgs(['--nope'])).toThrow(UsageError);
    expect(() => parseAppServerArgs(['serve'])).toThrow(UsageError);
    expect(() => parseAppServerArgs(['--listen', 'stdio://', '--listen', 'stdio://'])).toThrow(/only once/);
    expect(() => parseAppServerArgs(['--listen', 'off', '--listen', 'ws://127.0.0.1:1'])).toThrow(/cannot be combined/);
    expect(() => parseAppServerArgs(['--ws-max-clock-skew-seconds', 'soon'])).toThrow(/non-negative/);
  });

  it('prints help and refuses a non-loopback WebSocket bind without auth, with exit code 2', async () => {
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => (out += t), stderr: (t: string) => (err += t), env: { DEPUTY_HOME: '/nonexistent/deputy-home' } };
    expect(await runAppServer(['--help'], io)).toBe(0);
    expect(out).toContain('--listen <URL>');
    expect(await runAppServer(['--listen', 'ws://0.0.0.0:4500'], io)).toBe(2);
    expect(err).toContain('refusing to listen on ws://0.0.0.0:4500 without authentication');
    expect(await runAppServer(['--listen', 'http://x'], io)).toBe(2);
    expect(err).toContain('unsupported --listen URL');
  });
});

describe('thread ids', () => {
  it('accepts UUIDs and explains what is wrong with anything else', () => {
    expect(uuidProblem('01a22862-e6c3-7650-8624-c8dd37f909be')).toBeNull();
    expect(uuidProblem('01a22862e6c376508624c8dd37f909be')).toBeNull();
    expect(uuidProblem('not-a-uuid')).toMatch(/found `n` at 1$/);
    expect(uuidProblem('0123')).toBe('invalid length: expected length 32 for simple format, found 4');
    expect(uuidProblem('01a22862-e6c3-7650-8624')).toBe('invalid group count: expected 5, found 4');
  });
});
