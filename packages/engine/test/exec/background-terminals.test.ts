/**
 * Cleaning background terminals: `ExecSessionManager.cleanBackground` kills the process groups of
 * the sessions `exec_command` left running (and forgets them) but not a command still inside its
 * `start`; `cleanBackgroundTerminals(thread)` reaches a thread's sessions through its deps.
 */
import fs from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, text } from '@deputy/test-support';
import { UnknownSessionError } from '../../src/exec/errors.js';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import { cleanBackgroundTerminals } from '../../src/tools/shell/services.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { bashRequest, exists, killGroup, makeTempDir, waitFor } from './helpers.js';

let cwd: string;
let manager: ExecSessionManager | undefined;
let engine: TestEngine | undefined;
const spawnedGroups: number[] = [];

// Killed grandchildren stay zombies (group members) until init reaps them; allow a few seconds.
const GONE_TIMEOUT_MS = 10_000;

beforeAll(async () => {
  cwd = await makeTempDir();
});

afterAll(async () => {
  await fs.rm(cwd, { recursive: true, force: true });
});

afterEach(async () => {
  try {
    await manager?.killAll();
    await engine?.close();
  } finally {
    manager = undefined;
    engine = undefined;
    for (const pgid of spawnedGroups.splice(0)) killGroup(pgid);
  }
});

describe('ExecSessionManager.cleanBackground', () => {
  it('kills every held session, pipe or terminal, and forgets their ids', async () => {
    manager = new ExecSessionManager();
    const piped = await manager.start(bashRequest('sleep 100 & wait', cwd, { yieldTimeMs: 250 }));
    const tty = await manager.start(bashRequest('read x', cwd, { tty: true, yieldTimeMs: 250 }));
    const ids = [piped.sessionId, tty.sessionId] as number[];
    const pgids = ids.map((id) => manager?.sessionInfo(id)?.pgid as number);
    spawnedGroups.push(...pgids);

    expect(await manager.cleanBackground()).toBe(2);
    expect(manager.sessionIds).toEqual([]);
    for (const pgid of pgids) await waitFor(() => !exists(pgid, true), GONE_TIMEOUT_MS, `process group ${pgid} to be gone`);
    await expect(manager.write(ids[0] as number, '', 250)).rejects.toBeInstanceOf(UnknownSessionError);
  });

  it('counts only running sessions and answers 0 when there is nothing to clean', async () => {
    manager = new ExecSessionManager();
    expect(await manager.cleanBackground()).toBe(0);
    const done = await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    const id = done.sessionId as number;
    const pgid = manager.sessionInfo(id)?.pgid as number;
    spawnedGroups.push(pgid);
    killGroup(pgid);
    await waitFor(() => manager?.sessionInfo(id)?.hasExited === true, GONE_TIMEOUT_MS, 'the session to exit');
    expect(await manager.cleanBackground()).toBe(0);
    expect(manager.sessionIds).toEqual([]);
  });

  it('leaves a command alone while its start is still waiting, and new sessions work afterwards', async () => {
    manager = new ExecSessionManager();
    const running = manager.start(bashRequest('sleep 0.6; echo finished', cwd, { yieldTimeMs: 20_000 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await manager.cleanBackground()).toBe(0);
    const snapshot = await running;
    expect(snapshot).toMatchObject({ sessionId: null, exitCode: 0 });
    expect(snapshot.output).toContain('finished');
    const next = await manager.start(bashRequest('read x', cwd, { yieldTimeMs: 250 }));
    expect(next.sessionId).not.toBeNull();
    spawnedGroups.push(manager.sessionInfo(next.sessionId as number)?.pgid as number);
  });
});

describe('cleanBackgroundTerminals', () => {
  it("kills the commands a thread's turn left running", async () => {
    engine = await startTestEngine();
    const marker = `${engine.temp.cwd}/pgid`;
    const cmd = `echo $$ > ${marker}; exec sleep 100`;
    engine.server.enqueue({ output: [functionCall('exec_command', { cmd, tty: true, yield_time_ms: 500 })] }, { output: [text('left running')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'start a server' }]).done;
    expect(turn.status).toBe('completed');
    const pgid = Number((await fs.readFile(marker, 'utf8')).trim());
    spawnedGroups.push(pgid);
    expect(exists(pgid, true)).toBe(true);

    expect(await cleanBackgroundTerminals(thread)).toBe(1);
    await waitFor(() => !exists(pgid, true), GONE_TIMEOUT_MS, 'the background command to be gone');
    expect(await cleanBackgroundTerminals(thread)).toBe(0);
  });

  it('answers 0 for a thread without exec sessions', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect(await cleanBackgroundTerminals({ deps: { ...thread.deps, execSessions: undefined } })).toBe(0);
  });
});
