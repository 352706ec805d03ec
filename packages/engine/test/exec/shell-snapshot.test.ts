/**
 * The thread's shell snapshot, with real shells under a temp HOME whose profile exports, changes
 * and unsets variables and defines a function: a command run through the snapshot sees the same
 * `env` as the same command in a login shell (modulo what the shell maintains itself and the
 * secrets the policy drops), the file never holds a secret the profile exported, a profile that
 * fails leaves the thread on the login shell, and the files go away on close or when stale.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildChildEnv, DEFAULT_SHELL_ENVIRONMENT_POLICY, withExecEnvDefaults } from '../../src/exec/env.js';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import { cleanStaleShellSnapshots, SHELL_SNAPSHOT_DIR, ShellSnapshots } from '../../src/exec/shell-snapshot.js';
import { shellArgv } from '../../src/exec/shell.js';
import { bashRequest, makeTempDir } from './helpers.js';

const PROFILE = `
export FROM_PROFILE='a value with spaces and '"'"'quotes'"'"
export PATH="$HOME/bin:$PATH"
export CHANGED_BY_PROFILE=after
export MY_PROFILE_TOKEN=profile-secret
unset DROPPED_BY_PROFILE
greet() { echo "hello from the profile"; }
`;
/** What the shell maintains itself, and what the environment policy drops from a profile's exports. */
const DIFFERS = new Set(['SHLVL', '_', 'PWD', 'OLDPWD', 'MY_PROFILE_TOKEN']);

let home: string;
let userHome: string;
let cwd: string;
let manager: ExecSessionManager;
let snapshots: ShellSnapshots;
let failures: string[];

function commandEnv(): Record<string, string> {
  const parent = { ...process.env, HOME: userHome, SHELL: '/bin/bash', CHANGED_BY_PROFILE: 'before', DROPPED_BY_PROFILE: 'here', PARENT_API_KEY: 'parent-secret' };
  return withExecEnvDefaults(buildChildEnv(parent, DEFAULT_SHELL_ENVIRONMENT_POLICY));
}

/** Runs `argv` (unsandboxed) and returns stdout; fails the test on a non-zero exit. */
async function run(argv: string[], env: Record<string, string>): Promise<string> {
  const result = await manager.start({ ...bashRequest('', cwd), argv, env });
  expect(result.exitCode, result.output).toBe(0);
  return result.output;
}

function parseEnv(text: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0 && !DIFFERS.has(entry.slice(0, eq))) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

beforeEach(async () => {
  home = await makeTempDir('deputy-snap-home-');
  userHome = await makeTempDir('deputy-snap-user-');
  cwd = await makeTempDir('deputy-snap-cwd-');
  await fs.writeFile(path.join(userHome, '.bash_profile'), PROFILE);
  manager = new ExecSessionManager();
  failures = [];
  snapshots = new ShellSnapshots({ home, threadId: 'thread-1', envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY, onFailure: (m) => failures.push(m) });
});

afterEach(async () => {
  manager.killAll();
  await snapshots.close();
  for (const dir of [home, userHome, cwd]) await fs.rm(dir, { recursive: true, force: true });
});

describe('shell snapshot', () => {
  it('gives a command the same environment as the login shell, and the profile functions', async () => {
    const env = commandEnv();
    const script = 'env -0';
    const login = shellArgv(script, { shell: '/bin/bash' });
    const wrapped = await snapshots.wrap(login, { cwd, env, sandbox: { type: 'danger-full-access' } });
    expect(wrapped).not.toBeNull();
    expect(wrapped?.argv.slice(0, 2)).toEqual(['/bin/bash', '-c']);
    const viaLogin = parseEnv(await run(login, env));
    const viaSnapshot = parseEnv(await run(wrapped?.argv ?? [], env));
    expect(viaLogin.get('FROM_PROFILE')).toBe(`a value with spaces and 'quotes'`);
    expect(viaLogin.get('CHANGED_BY_PROFILE')).toBe('after');
    expect(viaLogin.has('DROPPED_BY_PROFILE')).toBe(false);
    expect(Object.fromEntries(viaSnapshot)).toEqual(Object.fromEntries(viaLogin));
    const greet = await snapshots.wrap(shellArgv('greet', { shell: '/bin/bash' }), { cwd, env, sandbox: { type: 'danger-full-access' } });
    expect(await run(greet?.argv ?? [], env)).toBe('hello from the profile\n');
    expect(failures).toEqual([]);
  });

  it('keeps one file per thread under <home>/shell_snapshots, without the secrets the policy drops, and removes it on close', async () => {
    const env = commandEnv();
    const wrapped = await snapshots.wrap(shellArgv('true', { shell: '/bin/bash' }), { cwd, env, sandbox: { type: 'danger-full-access' } });
    const file = wrapped?.readablePaths[0] ?? '';
    expect(path.dirname(file)).toBe(path.join(home, SHELL_SNAPSHOT_DIR));
    expect(path.basename(file)).toMatch(/^thread-1\.[0-9a-f]+\.sh$/);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain('FROM_PROFILE');
    expect(text).not.toMatch(/profile-secret|parent-secret|MY_PROFILE_TOKEN|PARENT_API_KEY/);
    // The same shell, cwd and environment reuse it; another cwd takes a new one.
    const again = await snapshots.wrap(shellArgv('true', { shell: '/bin/bash' }), { cwd, env, sandbox: { type: 'danger-full-access' } });
    expect(again?.readablePaths).toEqual([file]);
    const other = await snapshots.wrap(shellArgv('true', { shell: '/bin/bash' }), { cwd: userHome, env, sandbox: { type: 'danger-full-access' } });
    expect(other?.readablePaths[0]).not.toBe(file);
    expect((await fs.readdir(path.join(home, SHELL_SNAPSHOT_DIR))).sort()).toHaveLength(2);
    await snapshots.close();
    expect(await fs.readdir(path.join(home, SHELL_SNAPSHOT_DIR))).toEqual([]);
    // A closed thread's commands use the login shell.
    expect(await snapshots.wrap(shellArgv('true', { shell: '/bin/bash' }), { cwd, env, sandbox: { type: 'danger-full-access' } })).toBeNull();
  });

  it('takes one login shell for threads that start together with the same shell, cwd and environment', async () => {
    const env = commandEnv();
    const runs = path.join(userHome, 'profile-runs');
    await fs.appendFile(path.join(userHome, '.bash_profile'), `echo run >> ${runs}\n`);
    const others = Array.from({ length: 3 }, (_, i) => new ShellSnapshots({ home, threadId: `thread-${i + 2}`, envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY }));
    try {
      const request = { cwd, env, sandbox: { type: 'danger-full-access' } } as const;
      const wrapped = await Promise.all([snapshots, ...others].map((s) => s.wrap(shellArgv('true', { shell: '/bin/bash' }), request)));
      const files = wrapped.map((w) => w?.readablePaths[0] ?? '');
      expect(new Set(files).size).toBe(4);
      expect(files.map((f) => path.basename(f).split('.')[0])).toEqual(['thread-1', 'thread-2', 'thread-3', 'thread-4']);
      const texts = await Promise.all(files.map((f) => fs.readFile(f, 'utf8')));
      expect(texts[0]).toContain('FROM_PROFILE');
      expect(new Set(texts).size).toBe(1);
      expect((await fs.readFile(runs, 'utf8')).trim().split('\n')).toEqual(['run']);
      expect(await run(wrapped[3]?.argv ?? [], env)).toBe('');
      // No check file is left behind.
      expect((await fs.readdir(path.join(home, SHELL_SNAPSHOT_DIR))).sort()).toEqual(files.map((f) => path.basename(f)).sort());
      // The later threads' files are hard links to the first one's: one inode, private to the user.
      const stats = await Promise.all(files.map((f) => fs.stat(f)));
      expect(new Set(stats.map((st) => st.ino)).size).toBe(1);
      expect(stats.map((st) => [st.nlink, st.mode & 0o777])).toEqual(Array.from({ length: 4 }, () => [4, 0o600]));
    } finally {
      await Promise.all(others.map((s) => s.close()));
    }
  });

  it('gives a thread its own file when the first thread of a shared capture has closed, and closing one thread leaves the others theirs', async () => {
    const env = commandEnv();
    const request = { cwd, env, sandbox: { type: 'danger-full-access' } } as const;
    const first = await snapshots.wrap(shellArgv('true', { shell: '/bin/bash' }), request);
    const second = new ShellSnapshots({ home, threadId: 'thread-2', envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY });
    const third = new ShellSnapshots({ home, threadId: 'thread-3', envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY });
    try {
      const secondFile = (await second.wrap(shellArgv('true', { shell: '/bin/bash' }), request))?.readablePaths[0] ?? '';
      expect((await fs.stat(secondFile)).ino).toBe((await fs.stat(first?.readablePaths[0] ?? '')).ino);
      await snapshots.close();
      // The first file is gone: the next thread writes its own, with the same text.
      const wrapped = await third.wrap(shellArgv('echo "$FROM_PROFILE"', { shell: '/bin/bash' }), request);
      const thirdFile = wrapped?.readablePaths[0] ?? '';
      expect((await fs.stat(thirdFile)).nlink).toBe(1);
      expect(await fs.readFile(thirdFile, 'utf8')).toBe(await fs.readFile(secondFile, 'utf8'));
      expect(await run(wrapped?.argv ?? [], env)).toBe("a value with spaces and 'quotes'\n");
      expect((await fs.readdir(path.join(home, SHELL_SNAPSHOT_DIR))).sort()).toEqual([path.basename(secondFile), path.basename(thirdFile)].sort());
    } finally {
      await Promise.all([second.close(), third.close()]);
    }
  });

  it('without waiting for captures, runs the first command in the login shell and takes the snapshot for the next', async () => {
    const env = commandEnv();
    const runs = path.join(userHome, 'profile-runs');
    await fs.appendFile(path.join(userHome, '.bash_profile'), `echo run >> ${runs}\n`);
    const lazy = new ShellSnapshots({ home, threadId: 'thread-lazy', envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY, waitForCapture: false });
    try {
      const request = { cwd, env, sandbox: { type: 'danger-full-access' } } as const;
      const login = shellArgv('true', { shell: '/bin/bash' });
      // Nothing was prewarmed: the first command goes as it is, and starts the capture.
      expect(await lazy.wrap(login, request)).toBeNull();
      let wrapped = null;
      for (let i = 0; i < 400 && wrapped === null; i++) {
        await new Promise((r) => setTimeout(r, 25));
        wrapped = await lazy.wrap(login, request);
      }
      expect(path.basename(wrapped?.readablePaths[0] ?? '')).toMatch(/^thread-lazy\./);
      expect(await run(wrapped?.argv ?? [], env)).toBe('');
      // One login shell took the snapshot; the wrapped command did not run the profile again.
      expect((await fs.readFile(runs, 'utf8')).trim().split('\n')).toEqual(['run']);
    } finally {
      await lazy.close();
    }
  });

  it('leaves the thread on the login shell when the profile fails, and says why', async () => {
    await fs.writeFile(path.join(userHome, '.bash_profile'), 'exit 3\n');
    const wrapped = await snapshots.wrap(shellArgv('true', { shell: '/bin/bash' }), { cwd, env: commandEnv(), sandbox: { type: 'danger-full-access' } });
    expect(wrapped).toBeNull();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/exited with 3/);
    expect(await fs.readdir(path.join(home, SHELL_SNAPSHOT_DIR)).catch(() => [])).toEqual([]);
  });

  it('leaves non-login commands alone', async () => {
    expect(await snapshots.wrap(shellArgv('true', { shell: '/bin/bash', login: false }), { cwd, env: commandEnv(), sandbox: { type: 'danger-full-access' } })).toBeNull();
  });

  it('removes stale snapshot files at start-up and keeps fresh ones', async () => {
    const dir = path.join(home, SHELL_SNAPSHOT_DIR);
    await fs.mkdir(dir, { recursive: true });
    const old = new Date(Date.now() - 4 * 24 * 3600 * 1000);
    for (const name of ['dead.1.sh', 'dead.tmp-1', 'live.2.sh', 'live.tmp-2']) await fs.writeFile(path.join(dir, name), '');
    await fs.utimes(path.join(dir, 'dead.1.sh'), old, old);
    await fs.utimes(path.join(dir, 'dead.tmp-1'), new Date(Date.now() - 2 * 3600 * 1000), new Date(Date.now() - 2 * 3600 * 1000));
    expect(await cleanStaleShellSnapshots(home)).toBe(2);
    expect((await fs.readdir(dir)).sort()).toEqual(['live.2.sh', 'live.tmp-2']);
  });
});
