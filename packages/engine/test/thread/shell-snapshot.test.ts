/**
 * The shell snapshot through a real thread: a command the model runs in the default shell is
 * shown and approved as `bash -lc CMD`, but the process that runs (read from its own
 * /proc/self/cmdline) is a non-login shell sourcing `<home>/shell_snapshots/<thread>.*.sh`, inside
 * the workspace-write sandbox, and sees what the user's profile exports. The file is gone once the
 * thread closes; with `[features] shell_snapshot = false` the command is a login shell again and no
 * snapshot is written.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ThreadItem } from '@deputy/protocol';
import { execCall, requireBwrap, SafetyHarness } from '../safety/harness.js';

let userHome: string;
/** Prints the running shell's argv (NUL-separated → one line) and a variable of the profile. */
const PROBE = `tr '\\0' ' ' < /proc/$$/cmdline; echo; echo "profile=$FROM_PROFILE"`;

beforeAll(async () => {
  await requireBwrap();
  userHome = await mkdtemp(join(tmpdir(), 'deputy-snap-thread-user-'));
  await writeFile(join(userHome, '.bash_profile'), 'export FROM_PROFILE=yes\n');
  vi.stubEnv('HOME', userHome);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(userHome, { recursive: true, force: true });
});

async function snapshotFiles(h: SafetyHarness): Promise<string[]> {
  return readdir(join(h.engine.temp.home, 'shell_snapshots')).catch(() => []);
}

function commandOf(events: { type: string; item?: unknown }[]): Extract<ThreadItem, { type: 'commandExecution' }> {
  const done = events.find((e) => e.type === 'item.completed' && (e.item as ThreadItem).type === 'commandExecution');
  return done?.item as Extract<ThreadItem, { type: 'commandExecution' }>;
}

describe('a thread with the shell snapshot (default)', () => {
  it('runs default-shell commands through the snapshot inside the sandbox, and removes it on close', async () => {
    const h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: 'workspace-write' });
    try {
      const thread = await h.startThread();
      const { events } = await h.runTurn(thread, [execCall(PROBE, { login: undefined })]);
      const item = commandOf(events);
      expect(item.argv.slice(0, 2)).toEqual(['/bin/bash', '-lc']);
      expect(item.exitCode, item.aggregatedOutput ?? '').toBe(0);
      const [cmdline, profile] = (item.aggregatedOutput ?? '').trim().split('\n');
      expect(cmdline).toContain(`/bin/bash -c . ${join(h.engine.temp.home, 'shell_snapshots', thread.id)}.`);
      expect(profile).toBe('profile=yes');
      const files = await snapshotFiles(h);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(new RegExp(`^${thread.id}\\.[0-9a-f]+\\.sh$`));
      await thread.close();
      // The home is still there; the thread's snapshot is not.
      expect(await readdir(join(h.engine.temp.home, 'shell_snapshots'))).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('a thread with [features] shell_snapshot = false', () => {
  it('runs default-shell commands as login shells and writes no snapshot', async () => {
    const h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: 'workspace-write', extraToml: '[features]\nshell_snapshot = false' });
    try {
      const thread = await h.startThread();
      const { events } = await h.runTurn(thread, [execCall(PROBE, { login: undefined })]);
      const item = commandOf(events);
      expect(item.exitCode, item.aggregatedOutput ?? '').toBe(0);
      const [cmdline, profile] = (item.aggregatedOutput ?? '').trim().split('\n');
      expect(cmdline).toMatch(/^\/bin\/bash -lc /);
      expect(profile).toBe('profile=yes');
      expect(await snapshotFiles(h)).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
