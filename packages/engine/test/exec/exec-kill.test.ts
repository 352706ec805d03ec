/**
 * Abort and timeout: the whole process group (grandchildren included) is killed, SIGTERM first
 * and SIGKILL after the grace, and the snapshot says why the command ended.
 */
import fs from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import { formatExecOutput } from '../../src/exec/format.js';
import { bashRequest, exists, killGroup, makeTempDir, waitFor } from './helpers.js';

let cwd: string;
let manager: ExecSessionManager;
const spawnedGroups: number[] = [];

beforeAll(async () => {
  cwd = await makeTempDir();
});

afterAll(async () => {
  await fs.rm(cwd, { recursive: true, force: true });
});

afterEach(async () => {
  try {
    await manager?.killAll();
  } finally {
    for (const pgid of spawnedGroups.splice(0)) killGroup(pgid);
  }
});

/** Parses `pg:<n> child:<n>` printed by the test scripts. */
function parsePids(output: string): { pg: number; child: number } | null {
  const match = /pg:(\d+) child:(\d+)/.exec(output);
  return match === null ? null : { pg: Number(match[1]), child: Number(match[2]) };
}

// Process-group checks allow a few seconds: killed grandchildren are reparented to init and stay
// zombies (still group members) until init reaps them, which some container inits do slowly.
const GONE_TIMEOUT_MS = 10_000;

describe('aborting a command', () => {
  it('kills the whole process group, grandchildren included', async () => {
    manager = new ExecSessionManager();
    const controller = new AbortController();
    let seen = '';
    const snapshot = await manager.start(
      bashRequest('sleep 100 & echo "pg:$$ child:$!"; wait', cwd, {
        signal: controller.signal,
        onOutput: (chunk) => {
          seen += chunk;
          const pids = parsePids(seen);
          if (pids !== null) {
            spawnedGroups.push(pids.pg);
            controller.abort();
          }
        },
      }),
    );
    const pids = parsePids(seen);
    expect(pids).not.toBeNull();
    expect(snapshot).toMatchObject({ sessionId: null, aborted: true, timedOut: false, exitCode: null, signal: 'SIGTERM' });
    expect(formatExecOutput(snapshot)).toMatch(/\[command aborted\]$/);
    const { pg, child } = pids as { pg: number; child: number };
    await waitFor(() => !exists(child, false), GONE_TIMEOUT_MS, 'the grandchild to be gone');
    await waitFor(() => !exists(pg, true), GONE_TIMEOUT_MS, 'the process group to be gone');
    expect(() => process.kill(-pg, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    manager = new ExecSessionManager();
    const controller = new AbortController();
    let seen = '';
    const snapshot = await manager.start(
      bashRequest('trap "" TERM; sleep 100 & echo "pg:$$ child:$!"; wait', cwd, {
        signal: controller.signal,
        onOutput: (chunk) => {
          seen += chunk;
          if (parsePids(seen) !== null) controller.abort();
        },
      }),
    );
    const { pg, child } = parsePids(seen) as { pg: number; child: number };
    spawnedGroups.push(pg);
    expect(snapshot).toMatchObject({ aborted: true, signal: 'SIGKILL' });
    await waitFor(() => !exists(child, false), GONE_TIMEOUT_MS, 'the grandchild to be gone');
    await waitFor(() => !exists(pg, true), GONE_TIMEOUT_MS, 'the process group to be gone');
  });

  it('kills a command on a terminal', async () => {
    manager = new ExecSessionManager();
    const controller = new AbortController();
    let seen = '';
    const snapshot = await manager.start(
      bashRequest('sleep 100 & echo "pg:$$ child:$!"; wait', cwd, {
        tty: true,
        signal: controller.signal,
        onOutput: (chunk) => {
          seen += chunk;
          if (parsePids(seen) !== null) controller.abort();
        },
      }),
    );
    const { pg, child } = parsePids(seen) as { pg: number; child: number };
    spawnedGroups.push(pg);
    expect(snapshot.aborted).toBe(true);
    await waitFor(() => !exists(child, false), GONE_TIMEOUT_MS, 'the grandchild to be gone');
    await waitFor(() => !exists(pg, true), GONE_TIMEOUT_MS, 'the process group to be gone');
  });

  it('kills a session that is already running in the background when its signal aborts', async () => {
    manager = new ExecSessionManager({ minEmptyYieldTimeMs: 250 });
    const controller = new AbortController();
    const first = await manager.start(bashRequest('read x', cwd, { signal: controller.signal, yieldTimeMs: 250 }));
    const id = first.sessionId as number;
    const pgid = manager.sessionInfo(id)?.pgid as number;
    spawnedGroups.push(pgid);
    controller.abort();
    const next = await manager.write(id, '', 10_000);
    expect(next).toMatchObject({ sessionId: null, aborted: true });
    await waitFor(() => !exists(pgid, true), GONE_TIMEOUT_MS, 'the process group to be gone');
  });

  it('does not start anything when the signal is already aborted', async () => {
    manager = new ExecSessionManager();
    const marker = `${cwd}/should-not-exist`;
    const snapshot = await manager.start(bashRequest(`touch ${marker}`, cwd, { signal: AbortSignal.abort() }));
    expect(snapshot).toMatchObject({ sessionId: null, aborted: true, exitCode: null });
    await expect(fs.access(marker)).rejects.toThrow();
  });
});

describe('killAll', () => {
  it('also kills a command whose start is still waiting', async () => {
    manager = new ExecSessionManager();
    const state = { pg: 0 };
    let onStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      onStarted = resolve;
    });
    const running = manager.start(
      bashRequest('echo "pg:$$ child:0"; sleep 100', cwd, {
        yieldTimeMs: 20_000,
        onOutput: (chunk) => {
          state.pg = parsePids(chunk)?.pg ?? state.pg;
          if (state.pg > 0) onStarted();
        },
      }),
    );
    await started;
    spawnedGroups.push(state.pg);
    await manager.killAll();
    const snapshot = await running;
    expect(snapshot).toMatchObject({ sessionId: null, signal: 'SIGTERM', aborted: false });
    expect(manager.sessionIds).toEqual([]);
    await waitFor(() => !exists(state.pg, true), GONE_TIMEOUT_MS, 'the process group to be gone');
  });
});

describe('timeouts', () => {
  it('kills a command that outlives timeoutMs and says it timed out', async () => {
    manager = new ExecSessionManager();
    const snapshot = await manager.start(
      bashRequest('echo "pg:$$ child:0"; sleep 100; echo never', cwd, { timeoutMs: 300, yieldTimeMs: 20_000 }),
    );
    const { pg } = parsePids(snapshot.output) as { pg: number };
    spawnedGroups.push(pg);
    expect(snapshot).toMatchObject({ sessionId: null, timedOut: true, aborted: false });
    expect(snapshot.output).not.toContain('never');
    expect(snapshot.wallTimeMs).toBeLessThan(10_000);
    expect(formatExecOutput(snapshot)).toMatch(/\[command timed out\]$/);
    await waitFor(() => !exists(pg, true), GONE_TIMEOUT_MS, 'the process group to be gone');
  });

  it('applies the timeout to a command that keeps running after start returned', async () => {
    manager = new ExecSessionManager({ minEmptyYieldTimeMs: 250 });
    const first = await manager.start(bashRequest('sleep 100', cwd, { timeoutMs: 600, yieldTimeMs: 250 }));
    expect(first.sessionId).not.toBeNull();
    spawnedGroups.push(manager.sessionInfo(first.sessionId as number)?.pgid as number);
    const next = await manager.write(first.sessionId as number, '', 10_000);
    expect(next).toMatchObject({ sessionId: null, timedOut: true });
  });
});
