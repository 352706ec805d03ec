/**
 * Escape rows for hooks (docs/extensions.md "Hooks"): a hook command runs under its thread's
 * sandbox policy, checked on the host. A trusted PreToolUse hook tries to create one file in the
 * thread's workspace and one in the server's home (outside the workspace; /tmp and $TMPDIR are
 * confined, so the home is not writable through them). Under read-only neither appears, under
 * workspace-write only the workspace file, and under danger-full-access, the control that proves
 * the hook really runs and could write, both. Part of the escape suite: it runs as root
 * (`pnpm test`) and again as an unprivileged uid (scripts/test-escape-unprivileged.sh).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkSandboxAvailable } from '@deputy/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONFINED_TMP_TOML } from '../support/config-toml.js';
import { harnessPerTest, isolateUserHome } from '../support/harness.js';
import { hookRuns, trustAll } from '../support/hooks.js';
import { runTurn, startThread } from '../support/turns.js';

const harness = harnessPerTest();
// Commands run in a login shell: an empty HOME keeps the host's shell start-up files out of them.
isolateUserHome();

beforeAll(async () => {
  const availability = await checkSandboxAvailable();
  if (!availability.ok) throw new Error(`the escape suite needs a working bubblewrap: ${availability.message}`);
});

const MODES = [
  { sandbox: 'read-only', workspace: false, home: false, status: 'failed' },
  { sandbox: 'workspace-write', workspace: true, home: false, status: 'failed' },
  { sandbox: 'danger-full-access', workspace: true, home: true, status: 'completed' },
] as const;

describe('a hook runs under its thread\'s sandbox policy', () => {
  it.each(MODES)('with sandbox $sandbox it writes the workspace: $workspace, the server home: $home', async ({ sandbox, workspace, home, status }) => {
    const server = await harness({ extraToml: CONFINED_TMP_TOML });
    const inWorkspace = join(server.temp.cwd, 'written-by-hook');
    const inHome = join(server.temp.home, 'written-by-hook');
    // Both writes are tried; the hook's exit status is the last one's.
    const command = `touch ${inWorkspace}; touch ${inHome}`;
    await writeFile(join(server.temp.home, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } }));
    const client = await server.connect();
    await trustAll(client, server.temp.cwd);
    const thread = await startThread(client, { cwd: server.temp.cwd, sandbox });
    await runTurn(client, thread.id, `run: echo ${sandbox}`);
    expect(hookRuns(client, 'hook/completed').map((r) => [r.eventName, r.status])).toEqual([['preToolUse', status]]);
    expect(existsSync(inWorkspace)).toBe(workspace);
    expect(existsSync(inHome)).toBe(home);
  });
});
