/**
 * ExecSessionManager with real child processes (unsandboxed): output, exit codes, stderr,
 * yielding and polling, stdin with and without a terminal, truncation, and the session table.
 */
import fs from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UnknownSessionError } from '../../src/exec/errors.js';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import type { ExecSnapshot } from '../../src/exec/exec-session.js';
import { formatExecOutput } from '../../src/exec/format.js';
import { bashRequest, exists, killGroup, makeTempDir, waitFor } from './helpers.js';

let cwd: string;
let manager: ExecSessionManager;

beforeAll(async () => {
  cwd = await makeTempDir();
});

afterAll(async () => {
  await fs.rm(cwd, { recursive: true, force: true });
});

afterEach(async () => {
  if (manager === undefined) return;
  const pgids = manager.sessionIds.map((id) => manager.sessionInfo(id)?.pgid);
  try {
    await manager.killAll();
  } finally {
    for (const pgid of pgids) if (pgid !== undefined) killGroup(pgid);
  }
});

/** Reads a session to its end, concatenating every snapshot's output. */
async function readToEnd(first: ExecSnapshot): Promise<{ output: string; last: ExecSnapshot }> {
  let output = first.output;
  let last = first;
  while (last.sessionId !== null) {
    last = await manager.write(last.sessionId, '', 10_000);
    output += last.output;
  }
  return { output, last };
}

describe('ExecSessionManager.start', () => {
  it('runs a command to completion and returns its output and exit code', async () => {
    manager = new ExecSessionManager();
    const snapshot = await manager.start(bashRequest('echo hello-from-shell', cwd));
    expect(snapshot).toMatchObject({ sessionId: null, exitCode: 0, signal: null, output: 'hello-from-shell\n' });
    expect(snapshot.originalTokenCount).toBe(5);
    expect(snapshot).toMatchObject({ aborted: false, timedOut: false, sandboxDenied: false });
    expect(formatExecOutput(snapshot, '6d958e')).toMatch(
      /^Chunk ID: 6d958e\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nhello-from-shell\n$/,
    );
  });

  it('reports non-zero exit codes', async () => {
    manager = new ExecSessionManager();
    const snapshot = await manager.start(bashRequest('echo failing; exit 3', cwd));
    expect(snapshot.exitCode).toBe(3);
    expect(snapshot.output).toBe('failing\n');
  });

  it('reports a process killed by a signal with the signal name and shows 128+n to the model', async () => {
    manager = new ExecSessionManager();
    const snapshot = await manager.start(bashRequest('kill -TERM $$', cwd));
    expect(snapshot).toMatchObject({ exitCode: null, signal: 'SIGTERM', aborted: false });
    expect(formatExecOutput(snapshot)).toContain('Process exited with code 143');
  });

  it('collects stderr with stdout and labels each chunk with its stream', async () => {
    manager = new ExecSessionManager();
    const chunks: { chunk: string; stream: string }[] = [];
    const snapshot = await manager.start(
      bashRequest('echo to-out; echo to-err >&2', cwd, { onOutput: (chunk, stream) => chunks.push({ chunk, stream }) }),
    );
    expect(snapshot.output).toContain('to-out\n');
    expect(snapshot.output).toContain('to-err\n');
    expect(chunks.filter((c) => c.stream === 'stderr').map((c) => c.chunk).join('')).toBe('to-err\n');
    expect(chunks.filter((c) => c.stream === 'stdout').map((c) => c.chunk).join('')).toBe('to-out\n');
  });

  it('runs in the requested working directory with the given environment only', async () => {
    manager = new ExecSessionManager();
    const snapshot = await manager.start(
      bashRequest('pwd; echo "v=$ONLY_VAR"; echo "user=${USER-unset}"', cwd, {
        env: { PATH: '/usr/bin:/bin', HOME: cwd, ONLY_VAR: 'yes' },
      }),
    );
    expect(snapshot.output).toBe(`${cwd}\nv=yes\nuser=unset\n`);
  });

  it('fails with ExecSpawnError when the executable does not exist', async () => {
    manager = new ExecSessionManager();
    const request = { ...bashRequest('', cwd), argv: ['/nonexistent/definitely-not-here'] };
    await expect(manager.start(request)).rejects.toMatchObject({ name: 'ExecSpawnError', code: 'spawn_failed' });
    await expect(manager.start({ ...request, tty: true })).rejects.toMatchObject({ code: 'spawn_failed' });
  });

  it('fails with ExecSpawnError when the working directory does not exist', async () => {
    manager = new ExecSessionManager();
    await expect(manager.start(bashRequest('true', `${cwd}/missing`))).rejects.toMatchObject({ code: 'spawn_failed' });
  });

  it('keeps head and tail of a large output and counts the original tokens', async () => {
    manager = new ExecSessionManager();
    const snapshot = await manager.start({ ...bashRequest('seq 1 100000', cwd), maxOutputTokens: 100 });
    let expectedBytes = 0;
    for (let i = 1; i <= 100_000; i += 1) expectedBytes += String(i).length + 1;
    expect(snapshot.exitCode).toBe(0);
    expect(snapshot.originalTokenCount).toBe(Math.ceil(expectedBytes / 4));
    expect(snapshot.output.startsWith('Total output lines: 100000\n\n1\n2\n3\n')).toBe(true);
    expect(snapshot.output).toMatch(/\n…\d+ tokens truncated…\n/);
    expect(snapshot.output.endsWith('99999\n100000\n')).toBe(true);
    expect(Buffer.byteLength(snapshot.output)).toBeLessThan(400 + 100);
  });

  it('bounds what it keeps of output beyond 1 MiB while counting all of it', async () => {
    manager = new ExecSessionManager();
    const script = "printf 'first-line\\n'; head -c 3000000 /dev/zero | tr '\\0' x; printf '\\nlast-line\\n'";
    const snapshot = await manager.start({ ...bashRequest(script, cwd), maxOutputTokens: 50 });
    expect(snapshot.exitCode).toBe(0);
    expect(snapshot.originalTokenCount).toBe(Math.ceil((11 + 3_000_000 + 11) / 4));
    expect(snapshot.output).toContain('first-line');
    expect(snapshot.output.endsWith('last-line\n')).toBe(true);
    expect(Buffer.byteLength(snapshot.output)).toBeLessThan(400);
  });
});

describe('ExecSessionManager.write', () => {
  it('returns a session id after the yield time and finishes the command on a later poll', async () => {
    manager = new ExecSessionManager();
    const first = await manager.start(bashRequest('echo before; sleep 1; echo after', cwd, { yieldTimeMs: 250 }));
    expect(first.sessionId).not.toBeNull();
    expect(first.exitCode).toBeNull();
    expect(formatExecOutput(first)).toContain(`Process running with session ID ${first.sessionId}`);
    const { output, last } = await readToEnd(first);
    expect(output).toBe('before\nafter\n');
    expect(last).toMatchObject({ sessionId: null, exitCode: 0 });
    await expect(manager.write(first.sessionId as number, '', 250)).rejects.toBeInstanceOf(UnknownSessionError);
  });

  it('returns only the output produced since the previous snapshot', async () => {
    manager = new ExecSessionManager({ minEmptyYieldTimeMs: 250 });
    const first = await manager.start(bashRequest('echo one; read x; echo two; read y; echo three', cwd, { yieldTimeMs: 250 }));
    expect(first.sessionId).not.toBeNull();
    const id = first.sessionId as number;
    const second = await manager.write(id, 'a\n', 250);
    const third = await manager.write(id, 'b\n', 5_000);
    const all = first.output + second.output + third.output;
    expect(all).toBe('one\ntwo\nthree\n');
    expect(third.sessionId).toBeNull();
  });

  it('feeds stdin to a command running on pipes', async () => {
    manager = new ExecSessionManager();
    const first = await manager.start(bashRequest('read x; echo got:$x', cwd, { yieldTimeMs: 250 }));
    expect(first.sessionId).not.toBeNull();
    const second = await manager.write(first.sessionId as number, 'alice\n', 5_000);
    expect(second).toMatchObject({ sessionId: null, exitCode: 0, output: 'got:alice\n' });
  });

  it('closes stdin of a command on pipes when the input contains Ctrl-D', async () => {
    manager = new ExecSessionManager();
    const first = await manager.start(bashRequest('wc -l', cwd, { yieldTimeMs: 250 }));
    expect(first.sessionId).not.toBeNull();
    const second = await manager.write(first.sessionId as number, 'a\nb\n\u0004', 5_000);
    expect(second).toMatchObject({ sessionId: null, exitCode: 0 });
    expect(second.output.trim()).toBe('2');
  });

  it('feeds input to a command running on a terminal', async () => {
    manager = new ExecSessionManager();
    const first = await manager.start(bashRequest('read x; echo got:$x', cwd, { tty: true, yieldTimeMs: 250 }));
    expect(first.sessionId).not.toBeNull();
    const { output, last } = await readToEnd(await manager.write(first.sessionId as number, 'bob\n', 5_000));
    expect(first.output + output).toMatch(/got:bob\r?\n/);
    expect(last.exitCode).toBe(0);
  });

  it('an empty poll of a still-running command waits and keeps the session', async () => {
    manager = new ExecSessionManager({ minEmptyYieldTimeMs: 300 });
    const first = await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    const id = first.sessionId as number;
    const polled = await manager.write(id, '', 0);
    expect(polled.sessionId).toBe(id);
    expect(polled.wallTimeMs).toBeGreaterThanOrEqual(290);
  });

  it('throws UnknownSessionError for an id it never issued', async () => {
    manager = new ExecSessionManager();
    await expect(manager.write(4242, 'x', 250)).rejects.toThrow(/Unknown process session ID 4242/);
  });
});

describe('terminals', () => {
  it('runs the command on a terminal when tty is true and on pipes otherwise', async () => {
    manager = new ExecSessionManager();
    const script = 'if [ -t 0 ] && [ -t 1 ]; then echo on-a-tty; else echo on-pipes; fi';
    const onTty = await manager.start(bashRequest(script, cwd, { tty: true }));
    const onPipes = await manager.start(bashRequest(script, cwd, { tty: false }));
    expect(onTty.output.trim()).toBe('on-a-tty');
    expect(onTty.exitCode).toBe(0);
    expect(onPipes.output.trim()).toBe('on-pipes');
  });

  it('keeps the final output of commands that exit right after writing it', async () => {
    manager = new ExecSessionManager();
    // Many at once: the lost-tail race on terminals shows up under load.
    const runs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        manager.start(bashRequest(`head -c 20000 /dev/zero | tr '\\0' a; echo; echo "final-${i}"`, cwd, { tty: true })),
      ),
    );
    runs.forEach((snapshot, i) => {
      expect(snapshot.exitCode).toBe(0);
      expect(snapshot.output).toMatch(new RegExp(`final-${i}\\r?\\n$`));
    });
  });

  it('merges stderr into the terminal stream', async () => {
    manager = new ExecSessionManager();
    const streams = new Set<string>();
    const snapshot = await manager.start(
      bashRequest('echo pty-err >&2; exit 4', cwd, { tty: true, onOutput: (_c, stream) => streams.add(stream) }),
    );
    expect(snapshot.output).toMatch(/pty-err\r?\n/);
    expect(snapshot.exitCode).toBe(4);
    expect([...streams]).toEqual(['stdout']);
  });
});

describe('the session table', () => {
  it('prunes an exited session before a running one when the cap is reached', async () => {
    manager = new ExecSessionManager({ maxSessions: 3 });
    const oldest = await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    const exiting = await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    const newest = await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    const ids = [oldest, exiting, newest].map((s) => s.sessionId as number);
    const exitingPgid = manager.sessionInfo(ids[1] as number)?.pgid as number;
    killGroup(exitingPgid);
    await waitFor(() => manager.sessionInfo(ids[1] as number)?.hasExited === true, 5_000, 'the killed session to exit');

    await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    expect(manager.sessionIds).not.toContain(ids[1]);
    expect(manager.sessionIds).toContain(ids[0]);

    const oldestPgid = manager.sessionInfo(ids[0] as number)?.pgid as number;
    await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    expect(manager.sessionIds).not.toContain(ids[0]);
    await waitFor(() => !exists(oldestPgid, true), 10_000, 'the pruned process group to be gone');
    expect(manager.sessionIds).toHaveLength(3);
  });

  it('killAll kills every running session and forgets them', async () => {
    manager = new ExecSessionManager();
    const a = await manager.start(bashRequest('sleep 100 & wait', cwd, { yieldTimeMs: 250 }));
    const b = await manager.start(bashRequest('read x', cwd, { tty: true, yieldTimeMs: 250 }));
    const pgids = [a, b].map((s) => manager.sessionInfo(s.sessionId as number)?.pgid as number);
    await manager.killAll();
    expect(manager.sessionIds).toEqual([]);
    for (const pgid of pgids) await waitFor(() => !exists(pgid, true), 10_000, `process group ${pgid} to be gone`);
    await expect(manager.write(a.sessionId as number, '', 250)).rejects.toBeInstanceOf(UnknownSessionError);
  });
});
