/**
 * Escape rows for the processes a client runs through the app-server (docs/app-server.md
 * "Methods served", docs/extensions.md "Client-run processes"), checked on the host by the files
 * that do or do not appear. `command/exec` runs under the request's `sandboxPolicy` (readOnly,
 * workspaceWrite, dangerFullAccess) and `process/spawn` under the server's configured sandbox
 * (read-only, workspace-write, danger-full-access). Each command tries to create one file in the
 * server's workspace and one in the server's home, outside it (/tmp and $TMPDIR, where the test
 * home lies, are confined); full access is the control that proves both writes work. Part of the
 * escape suite: it runs as root (`pnpm test`) and again as an unprivileged uid
 * (scripts/test-escape-unprivileged.sh).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkSandboxAvailable } from '@deputy/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { problemsAgainstDefinition } from '../../../../packages/protocol/test/support/reference-schema.js';
import { CONFINED_TMP_TOML } from '../support/config-toml.js';
import { harnessPerTest, type Harness } from '../support/harness.js';

const harness = harnessPerTest();

beforeAll(async () => {
  const availability = await checkSandboxAvailable();
  if (!availability.ok) throw new Error(`the escape suite needs a working bubblewrap: ${availability.message}`);
});

/** The two files a command tries to create: in the workspace and in the home (outside it). */
function targets(h: Harness): { workspace: string; home: string; script: string[] } {
  const workspace = join(h.temp.cwd, 'written.txt');
  const home = join(h.temp.home, 'written.txt');
  // Both writes are tried; the exit status is the last one's.
  return { workspace, home, script: ['sh', '-c', `echo data > ${workspace}; echo data > ${home}`] };
}

describe('command/exec runs under the request\'s sandboxPolicy', () => {
  const POLICIES = [
    { name: 'readOnly', policy: { type: 'readOnly' }, workspace: false, home: false },
    {
      name: 'workspaceWrite',
      policy: { type: 'workspaceWrite', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true },
      workspace: true,
      home: false,
    },
    { name: 'dangerFullAccess', policy: { type: 'dangerFullAccess' }, workspace: true, home: true },
  ] as const;

  it.each(POLICIES)('$name: writes the workspace: $workspace, the server home: $home', async ({ policy, workspace, home }) => {
    const h = await harness();
    const client = await h.connect();
    const files = targets(h);
    const result = await client.call<{ exitCode: number; stderr: string }>('command/exec', { command: files.script, sandboxPolicy: policy });
    if (home) expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    else {
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toMatch(/Read-only file system/);
    }
    expect(existsSync(files.workspace)).toBe(workspace);
    expect(existsSync(files.home)).toBe(home);
  });
});

describe('process/spawn runs under the server\'s sandbox', () => {
  const MODES = [
    { sandbox: 'read-only', workspace: false, home: false },
    { sandbox: 'workspace-write', workspace: true, home: false },
    { sandbox: 'danger-full-access', workspace: true, home: true },
  ] as const;

  it.each(MODES)('$sandbox: writes the workspace: $workspace, the server home: $home', async ({ sandbox, workspace, home }) => {
    const h = await harness({ sandbox, extraToml: CONFINED_TMP_TOML });
    const client = await h.connect({ capabilities: { experimentalApi: true } });
    const files = targets(h);
    await client.call('process/spawn', { command: files.script, processHandle: 'writer', cwd: h.temp.cwd });
    const end = await client.waitForNotification('process/exited', (p) => p.processHandle === 'writer');
    expect(problemsAgainstDefinition('ProcessExitedNotification', end.params, '0.171')).toEqual([]);
    if (home) expect(end.params).toMatchObject({ exitCode: 0, stderr: '' });
    else {
      expect(end.params.exitCode).not.toBe(0);
      expect(end.params.stderr).toMatch(/Read-only file system/);
    }
    expect(existsSync(files.workspace)).toBe(workspace);
    expect(existsSync(files.home)).toBe(home);
  });
});
