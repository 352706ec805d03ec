/**
 * Shared helpers of the exec tests: temp directories, bounded condition waits, process-group
 * liveness, and a start request with test defaults (unsandboxed bash, inherited PATH).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ExecStartRequest } from '../../src/exec/exec-session.js';

/** Creates a temp dir (realpath, so paths compare equal to what the sandbox resolves). */
export async function makeTempDir(prefix = 'deputy-exec-'): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

/** The shared bounded wait (test support's). */
export { waitFor } from '@deputy/test-support';

/** True while process group `pgid` (or process `pid` when `isGroup` is false) exists. */
export function exists(id: number, isGroup: boolean): boolean {
  try {
    process.kill(isGroup ? -id : id, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Kills a process group, ignoring a group that is already gone (test cleanup). */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A plain environment for test commands. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), LANG: 'C.UTF-8', ...extra };
}

/** A start request running `script` with `bash -c`, unsandboxed unless overridden. */
export function bashRequest(script: string, cwd: string, overrides: Partial<ExecStartRequest> = {}): ExecStartRequest {
  return {
    argv: ['/bin/bash', '-c', script],
    cwd,
    env: testEnv(),
    tty: false,
    sandbox: { type: 'danger-full-access' },
    signal: new AbortController().signal,
    yieldTimeMs: 10_000,
    ...overrides,
  };
}
