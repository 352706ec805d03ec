/**
 * A terminal started under a wide sandbox must not outlive a narrowing. The model starts `bash`
 * with exec_command while the thread is danger-full-access, the user narrows the sandbox (the
 * engine call behind thread/settings/update, or a turn's override), and the model sends the
 * shell a command that writes a marker outside every root. Asserted on the host: the marker never
 * appears, the terminal's process group (a `sleep <marker>` inside it) is gone, and the model read
 * the refusal. A terminal that runs without the sandbox by the user's approval (an escalation, a
 * rerun after a denial) keeps running, but each input asks (on-request) or is refused (never).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { functionCall, type Step } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Thread } from '../../src/thread/thread.js';
import { execCall, FULL_ACCESS, READ_ONLY, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from '../safety/harness.js';
import { killSleepProcesses, sleepMarker, sleepProcesses } from './host.js';

let h: SafetyHarness;
const sleepers: string[] = [];
beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start();
});
afterAll(async () => {
  await h?.close();
  for (const marker of sleepers) killSleepProcesses(marker);
});

/** A write_stdin call as the model writes it. */
function stdinCall(sessionId: number, chars: string): Step {
  return { output: [functionCall('write_stdin', { session_id: sessionId, chars, yield_time_ms: 1000 })] };
}

/** Starts `bash` (with a `sleep <marker>` in its process group) as a background terminal; returns its session id. */
async function startShell(thread: Thread, extra: Record<string, unknown> = {}, answers: ('approved' | 'denied')[] = [], prefix = ''): Promise<{ id: number; sleeper: string }> {
  const sleeper = sleepMarker(120);
  sleepers.push(sleeper);
  const result = await h.runTurn(thread, [execCall(`${prefix}sleep ${sleeper} & exec bash`, { yield_time_ms: 500, ...extra })], answers);
  const id = /Process running with session ID (\d+)/.exec(result.toldModel[0] ?? '')?.[1];
  if (id === undefined) throw new Error(`the shell did not keep running: ${result.toldModel[0]}`);
  expect(sleepProcesses(sleeper)).toHaveLength(1);
  return { id: Number(id), sleeper };
}

/** Waits (bounded) until the terminal's process group is gone from the host. */
async function expectGone(sleeper: string): Promise<void> {
  for (let i = 0; i < 50 && sleepProcesses(sleeper).length > 0; i += 1) await delay(100);
  expect(sleepProcesses(sleeper)).toEqual([]);
}

describe('a terminal started under a wider sandbox, after the sandbox is narrowed', () => {
  it.each(['never', 'on-request'] as const)('is ended by the thread settings update and takes no more input (%s)', async (approvalPolicy) => {
    const thread = await h.startThread({ approvalPolicy, sandbox: FULL_ACCESS });
    const { id, sleeper } = await startShell(thread);
    const marker = join(h.outside, `narrowed-${h.nextId()}`);

    thread.settings = { ...thread.settings, sandboxPolicy: READ_ONLY };
    const result = await h.runTurn(thread, [stdinCall(id, `echo pwned > ${marker}\n`)], [], 'approved');

    await delay(300);
    expect(existsSync(marker)).toBe(false);
    expect(result.asked).toEqual([]);
    expect(result.toldModel[0]).toMatch(/^write_stdin rejected: this terminal was started under a sandbox \(danger-full-access\) that the current one \(read-only\) does not cover/);
    await expectGone(sleeper);
  });

  it('is ended when a turn overrides the sandbox, before the turn can write to it', async () => {
    const thread = await h.startThread({ approvalPolicy: 'on-request', sandbox: FULL_ACCESS });
    const { id, sleeper } = await startShell(thread);
    const marker = join(h.outside, `override-${h.nextId()}`);

    const result = await h.runTurn(thread, [stdinCall(id, `echo pwned > ${marker}\n`)], [], 'approved', { sandboxPolicy: WORKSPACE_WRITE });

    await delay(300);
    expect(existsSync(marker)).toBe(false);
    expect(result.asked).toEqual([]);
    expect(result.toldModel[0]).toMatch(/^write_stdin rejected: this terminal was started under a sandbox \(danger-full-access\) that the current one \(workspace-write\) does not cover/);
    await expectGone(sleeper);
  });

  it('keeps a terminal the new sandbox still covers (widening, or the same sandbox)', async () => {
    const thread = await h.startThread({ approvalPolicy: 'never', sandbox: READ_ONLY });
    const { id, sleeper } = await startShell(thread);
    thread.settings = { ...thread.settings, sandboxPolicy: FULL_ACCESS };
    const result = await h.runTurn(thread, [stdinCall(id, 'echo still-here\n')]);
    expect(result.toldModel[0]).toMatch(/Output:\nstill-here/);
    expect(sleepProcesses(sleeper)).toHaveLength(1);
  });
});

describe('a terminal the user let run without the sandbox', () => {
  it('asks before each input under on-request, and a declined input never runs', async () => {
    const thread = await h.startThread({ approvalPolicy: 'on-request', sandbox: WORKSPACE_WRITE });
    const { id } = await startShell(thread, { sandbox_permissions: 'require_escalated', justification: 'interactive shell' }, ['approved']);
    const declined = join(h.outside, `declined-${h.nextId()}`);
    const approved = join(h.outside, `approved-${h.nextId()}`);

    const first = await h.runTurn(thread, [stdinCall(id, `echo pwned > ${declined}\n`)], ['denied']);
    expect(first.asked).toHaveLength(1);
    expect(first.asked[0]?.request).toMatchObject({ kind: 'exec', command: ['write_stdin', '--session-id', String(id), `echo pwned > ${declined}\n`], isSandboxRetry: false });
    expect(String(first.asked[0]?.request.reason)).toMatch(/runs under danger-full-access, which the current sandbox \(workspace-write\) does not cover/);
    expect(first.toldModel[0]).toBe('write_stdin rejected: rejected by user');

    // "For this session" covers this one input only: the next one asks again.
    const second = await h.runTurn(thread, [stdinCall(id, `echo ok > ${approved}\n`), stdinCall(id, `echo pwned >> ${declined}\n`)], ['approved_for_session', 'denied']);
    expect(second.asked).toHaveLength(2);
    await delay(300);
    expect(existsSync(approved)).toBe(true);
    expect(existsSync(declined)).toBe(false);
  });

  it('refuses every input under never, with the reference wording', async () => {
    const thread = await h.startThread({ approvalPolicy: 'on-failure', sandbox: WORKSPACE_WRITE });
    const blocked = join(h.outside, `blocked-${h.nextId()}`);
    // Blocked by the sandbox, then rerun without it after the user approved the rerun.
    const { id } = await startShell(thread, {}, ['approved'], `touch ${blocked} || exit 1; `);
    expect(existsSync(blocked)).toBe(true);
    const marker = join(h.outside, `never-${h.nextId()}`);

    thread.settings = { ...thread.settings, approvalPolicy: 'never' };
    const result = await h.runTurn(thread, [stdinCall(id, `echo pwned > ${marker}\n`)], [], 'approved');

    await delay(300);
    expect(existsSync(marker)).toBe(false);
    expect(result.asked).toEqual([]);
    expect(result.toldModel[0]).toBe('write_stdin rejected: approval required by policy, but AskForApproval is set to Never');
  });
});
