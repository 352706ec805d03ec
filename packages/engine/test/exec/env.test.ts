/**
 * buildChildEnv under Codex's `shell_environment_policy`, the TOML table's schema, and the
 * shell argv helpers.
 */
import { describe, expect, it } from 'vitest';
import {
  buildChildEnv,
  compileEnvPattern,
  DEFAULT_SHELL_ENVIRONMENT_POLICY,
  ShellEnvironmentPolicySchema,
  withExecEnvDefaults,
} from '../../src/exec/env.js';
import { displayCommand, shellArgv, shellQuote } from '../../src/exec/shell.js';

const parent = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C',
  TERM: 'xterm',
  MY_API_KEY: 'k',
  github_token: 't',
  DB_SECRET_VALUE: 's',
  KEYBOARD: 'us',
  FOO: 'bar',
  UNDEFINED_ONE: undefined,
};

const policy = (input: Record<string, unknown>) => ShellEnvironmentPolicySchema.parse(input);

describe('ShellEnvironmentPolicySchema', () => {
  it('fills the defaults for an empty table', () => {
    expect(DEFAULT_SHELL_ENVIRONMENT_POLICY).toEqual({
      inherit: 'all',
      ignore_default_excludes: false,
      exclude: [],
      set: {},
      include_only: [],
    });
  });

  it('accepts the Codex keys and rejects an unknown inherit value', () => {
    const parsed = policy({ inherit: 'core', ignore_default_excludes: true, exclude: ['A*'], set: { X: '1' }, include_only: ['P*'], experimental_use_profile: false });
    expect(parsed.inherit).toBe('core');
    expect(() => policy({ inherit: 'some' })).toThrow();
  });
});

describe('buildChildEnv', () => {
  it('inherits everything but names that look like secrets by default', () => {
    const env = buildChildEnv(parent);
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'en_US.UTF-8', LC_ALL: 'C', TERM: 'xterm', FOO: 'bar' });
  });

  it('keeps secrets when ignore_default_excludes is set', () => {
    const env = buildChildEnv(parent, policy({ ignore_default_excludes: true }));
    expect(env).toMatchObject({ MY_API_KEY: 'k', github_token: 't', DB_SECRET_VALUE: 's', KEYBOARD: 'us' });
    expect(env).not.toHaveProperty('UNDEFINED_ONE');
  });

  it('inherits only the core variables with inherit = core', () => {
    const env = buildChildEnv(parent, policy({ inherit: 'core' }));
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'en_US.UTF-8', LC_ALL: 'C', TERM: 'xterm' });
  });

  it('starts empty with inherit = none and still applies set', () => {
    expect(buildChildEnv(parent, policy({ inherit: 'none', set: { ONLY: 'yes' } }))).toEqual({ ONLY: 'yes' });
  });

  it('drops exclude matches case-insensitively', () => {
    const env = buildChildEnv(parent, policy({ exclude: ['foo', 'lc_*', 'T?RM'] }));
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'en_US.UTF-8' });
  });

  it('applies set after the excludes, so set values survive them', () => {
    const env = buildChildEnv(parent, policy({ exclude: ['*'], set: { NEW_TOKEN: 'mine' } }));
    expect(env).toEqual({ NEW_TOKEN: 'mine' });
  });

  it('keeps only include_only matches, set values included', () => {
    const env = buildChildEnv(parent, policy({ include_only: ['*PATH', 'X_*'], set: { X_ONE: '1', Y_TWO: '2' } }));
    expect(env).toEqual({ PATH: '/usr/bin', X_ONE: '1' });
  });

  it('lays the exec defaults over the environment', () => {
    const env = withExecEnvDefaults({ TERM: 'xterm', PATH: '/bin' });
    expect(env).toMatchObject({ TERM: 'dumb', NO_COLOR: '1', PAGER: 'cat', PATH: '/bin' });
  });
});

describe('compileEnvPattern', () => {
  it('supports *, ? and character classes and treats other characters literally', () => {
    expect(compileEnvPattern('A?C').test('abc')).toBe(true);
    expect(compileEnvPattern('[ab]X').test('bx')).toBe(true);
    expect(compileEnvPattern('[!ab]X').test('ax')).toBe(false);
    expect(compileEnvPattern('A.B').test('AxB')).toBe(false);
    expect(compileEnvPattern('A+B(').test('A+B(')).toBe(true);
  });
});

describe('shellArgv and displayCommand', () => {
  it('runs the command through a login shell by default', () => {
    expect(shellArgv('echo hi', { shell: '/bin/zsh' })).toEqual(['/bin/zsh', '-lc', 'echo hi']);
    expect(shellArgv('echo hi', { shell: '/bin/sh', login: false })).toEqual(['/bin/sh', '-c', 'echo hi']);
  });

  it('defaults to $SHELL, or /bin/bash when $SHELL is unset or relative', () => {
    expect(shellArgv('ls', { env: { SHELL: '/usr/bin/fish' } })[0]).toBe('/usr/bin/fish');
    expect(shellArgv('ls', { env: {} })[0]).toBe('/bin/bash');
    expect(shellArgv('ls', { env: { SHELL: 'zsh' } })[0]).toBe('/bin/bash');
  });

  it('quotes only the words that need it', () => {
    expect(displayCommand(['/bin/bash', '-lc', 'echo hi'])).toBe("/bin/bash -lc 'echo hi'");
    expect(displayCommand(['ls', '-la', 'a/b.txt'])).toBe('ls -la a/b.txt');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('')).toBe("''");
  });
});
