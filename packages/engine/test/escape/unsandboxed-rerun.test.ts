/**
 * Running without the sandbox always has its own question. The model runs a command that writes
 * a marker outside the workspace; the sandbox blocks it (`Read-only file system`). The scripted
 * approval port says yes to the first question and records every question. Asserted on the host:
 * under `untrusted` a second question, saying the rerun is without the sandbox, was asked, and
 * when it is declined the marker never appears, also after a "for this session" approval of the
 * sandboxed run. Under `on-request` and `never` nothing is rerun and nobody is asked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCall, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from '../safety/harness.js';

let h: SafetyHarness;
beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start();
});
afterAll(async () => {
  await h?.close();
});

const RETRY = { kind: 'exec', isSandboxRetry: true, reason: 'command failed; retry without sandbox?' };

describe('a command approved under untrusted that the sandbox blocks', () => {
  it.each(['approved', 'approved_for_session'] as const)('is rerun without the sandbox only after a second question (first answer %s)', async (first) => {
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE });
    const marker = join(h.outside, `rerun-${h.nextId()}`);
    const cmd = `echo pwned > ${marker}`;

    const result = await h.runTurn(thread, [execCall(cmd)], [first], 'denied');

    expect(result.asked).toHaveLength(2);
    expect(result.asked[0]?.request).toMatchObject({ kind: 'exec', isSandboxRetry: false, reason: 'the command is not known to be read-only' });
    expect(result.asked[1]?.request).toMatchObject(RETRY);
    expect(String(result.asked[1]?.request.reason)).toMatch(/without sandbox/);
    expect(existsSync(marker)).toBe(false);
    expect(result.toldModel[0]).toBe('rejected by user');
  });

  it('is asked about again in a later call after "for this session" of the sandboxed run, and a declined rerun never writes', async () => {
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE });
    const marker = join(h.outside, `session-${h.nextId()}`);
    const cmd = `echo pwned > ${marker}`;
    await h.runTurn(thread, [execCall(cmd)], ['approved_for_session', 'denied']);

    // The session approval runs it (sandboxed) without a first question; the rerun still asks.
    const later = await h.runTurn(thread, [execCall(cmd)], [], 'denied');
    expect(later.asked.map((a) => a.request)).toEqual([expect.objectContaining(RETRY)]);
    expect(existsSync(marker)).toBe(false);
  });

  it('is rerun once the user approves the rerun itself', async () => {
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE });
    const marker = join(h.outside, `approved-${h.nextId()}`);
    const result = await h.runTurn(thread, [execCall(`echo ok > ${marker}`)], ['approved', 'approved']);
    expect(result.asked).toHaveLength(2);
    expect(existsSync(marker)).toBe(true);
  });
});

describe('a blocked command under the policies that never rerun', () => {
  it.each(['on-request', 'never'] as const)('is not rerun and nobody is asked (%s)', async (approvalPolicy) => {
    const thread = await h.startThread({ approvalPolicy, sandbox: WORKSPACE_WRITE });
    const marker = join(h.outside, `report-${h.nextId()}`);
    const result = await h.runTurn(thread, [execCall(`echo pwned > ${marker}`)], [], 'approved');
    expect(result.asked).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(result.toldModel[0]).toMatch(/Read-only file system/);
  });
});
