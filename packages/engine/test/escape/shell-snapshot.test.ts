/**
 * Escape row: the shell snapshot opens no window into Deputy's home. The home is hidden from
 * sandboxed commands; the thread's snapshot file inside it is bound read-only so a command can
 * source it, and nothing else: the credentials file, another thread's snapshot and the rest of
 * the home stay unreadable, and the snapshot cannot be changed from inside. Checked on the host
 * (the files' contents afterwards) and by the commands' exit codes under real bubblewrap.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '@deputy/protocol';
import { buildChildEnv, DEFAULT_SHELL_ENVIRONMENT_POLICY, withExecEnvDefaults } from '../../src/exec/env.js';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import { SHELL_SNAPSHOT_DIR, ShellSnapshots } from '../../src/exec/shell-snapshot.js';
import { shellArgv } from '../../src/exec/shell.js';
import { bashRequest, makeTempDir } from '../exec/helpers.js';
import { requireBwrap } from '../safety/harness.js';

const POLICIES: { name: string; policy: SandboxPolicy }[] = [
  { name: 'read-only', policy: { type: 'read-only', networkAccess: false } },
  { name: 'workspace-write', policy: { type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true } },
];

let home: string;
let userHome: string;
let ws: string;
let manager: ExecSessionManager;
const threads: ShellSnapshots[] = [];

beforeAll(async () => {
  await requireBwrap();
  home = await makeTempDir('deputy-snap-esc-home-');
  userHome = await makeTempDir('deputy-snap-esc-user-');
  ws = await makeTempDir('deputy-snap-esc-ws-');
  await fs.writeFile(path.join(home, 'auth.json'), '{"OPENAI_API_KEY":"sk-host-only"}');
  await fs.writeFile(path.join(userHome, '.bash_profile'), 'export FROM_PROFILE=yes\ngreet() { echo profile-function; }\n');
  manager = new ExecSessionManager({ hiddenPaths: [home] });
});

afterAll(async () => {
  manager?.killAll();
  for (const t of threads) await t.close();
  for (const dir of [home, userHome, ws]) if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe.each(POLICIES)('under $name', ({ policy }) => {
  it('reads its own snapshot and nothing else of the hidden home', async () => {
    const env = withExecEnvDefaults(buildChildEnv({ ...process.env, HOME: userHome, SHELL: '/bin/bash' }));
    const mine = new ShellSnapshots({ home, threadId: `mine-${policy.type}`, envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY, onFailure: (m) => expect.fail(m) });
    const other = new ShellSnapshots({ home, threadId: `other-${policy.type}`, envPolicy: DEFAULT_SHELL_ENVIRONMENT_POLICY, onFailure: (m) => expect.fail(m) });
    threads.push(mine, other);
    const request = { cwd: ws, env, sandbox: policy, hiddenPaths: [home] };
    const otherFile = (await other.wrap(shellArgv('true', { shell: '/bin/bash' }), request))?.readablePaths[0] ?? '';
    const run = async (script: string) => {
      const wrapped = await mine.wrap(shellArgv(script, { shell: '/bin/bash' }), request);
      expect(wrapped).not.toBeNull();
      return manager.start({ ...bashRequest('', ws), argv: wrapped?.argv ?? [], readablePaths: wrapped?.readablePaths, env, sandbox: policy, sandboxCwd: ws });
    };
    const file = (await mine.wrap(shellArgv('true', { shell: '/bin/bash' }), request))?.readablePaths[0] ?? '';
    const before = await fs.readFile(file, 'utf8');

    // The snapshot was sourced inside the sandbox: the profile's variable and function are there.
    const sourced = await run('test "$FROM_PROFILE" = yes && greet');
    expect(sourced.exitCode, sourced.output).toBe(0);
    expect(sourced.output.trim()).toBe('profile-function');
    // Nothing else of the home is readable, not even another thread's snapshot.
    for (const target of [path.join(home, 'auth.json'), otherFile]) {
      const read = await run(`cat ${target}`);
      expect(read.exitCode, `read ${target}`).not.toBe(0);
    }
    const listing = await run(`ls -A ${home} ${path.join(home, SHELL_SNAPSHOT_DIR)}`);
    expect(listing.output).not.toMatch(/auth\.json|other-/);
    // The snapshot cannot be changed from inside, nor removed.
    const write = await run(`echo 'export PWNED=1' >> ${file}; rm -f ${file}`);
    expect(await fs.readFile(file, 'utf8')).toBe(before);
    expect(write.output).not.toContain('PWNED');
    // On the host everything is still there.
    expect(await fs.readFile(path.join(home, 'auth.json'), 'utf8')).toContain('sk-host-only');
  });
});
