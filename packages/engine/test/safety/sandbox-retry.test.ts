/**
 * The on-failure retry through real turns: a command the sandbox blocks is offered for a rerun
 * without the sandbox, and only then; approving reruns it to success under the same item; a
 * command approved for the session is rerun without a second question; ordinary failures are
 * reported to the model without any question.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedItems, execCall, requireBwrap, SafetyHarness, unfinishedItems, WORKSPACE_WRITE } from './harness.js';

let h: SafetyHarness;
beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start();
});
afterAll(async () => {
  await h?.close();
});

describe('approval policy on-failure', () => {
  it('asks to rerun a blocked command without the sandbox, and the approved rerun succeeds under the same item', async () => {
    const thread = await h.startThread({ approvalPolicy: 'on-failure', sandbox: WORKSPACE_WRITE });
    const target = join(h.outside, `retry-${h.nextId()}.txt`);
    const cmd = `echo retried > ${target} && echo wrote-it`;
    const result = await h.runTurn(thread, [execCall(cmd)], ['approved']);

    expect(result.asked).toHaveLength(1);
    expect(result.asked[0]?.request).toMatchObject({ kind: 'exec', isSandboxRetry: true, reason: 'command failed; retry without sandbox?', cwd: thread.settings.cwd });
    expect((result.asked[0]?.request.command as string[])[2]).toBe(cmd);
    // The question comes after the sandboxed attempt started and failed.
    const types = result.events.map((e) => e.type);
    expect(types.indexOf('item.started')).toBeLessThan(types.indexOf('approval.requested'));
    const deltas = result.events.flatMap((e) => (e.type === 'item.delta' && e.kind === 'commandOutput' ? [e.delta] : [])).join('');
    expect(deltas).toMatch(/Read-only file system/);

    const items = completedItems(result.events, 'commandExecution');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'completed', exitCode: 0 });
    expect(items[0]?.aggregatedOutput).toContain('wrote-it');
    expect(items[0]?.aggregatedOutput).not.toMatch(/Read-only/);
    expect(unfinishedItems(result.events)).toEqual([]);
    expect(await readFile(target, 'utf8')).toBe('retried\n');
    expect(result.toldModel[0]).toMatch(/Process exited with code 0[\s\S]*Output:\nwrote-it/);
  });

  it('reruns a command approved for the session without asking again', async () => {
    const thread = await h.startThread({ approvalPolicy: 'on-failure', sandbox: WORKSPACE_WRITE });
    const log = join(h.outside, `session-${h.nextId()}.log`);
    const result = await h.runTurn(thread, [execCall(`printf x >> ${log}`), execCall(`printf x >> ${log}`)], ['approved_for_session'], 'denied');
    expect(result.asked).toHaveLength(1);
    expect(await readFile(log, 'utf8')).toBe('xx');
    expect(result.toldModel.every((t) => /Process exited with code 0/.test(t))).toBe(true);
  });

  it('reports ordinary failures to the model without offering a rerun', async () => {
    const thread = await h.startThread({ approvalPolicy: 'on-failure', sandbox: WORKSPACE_WRITE });
    const result = await h.runTurn(thread, [execCall('exit 3'), execCall('ls /no/such/dir')], [], 'approved');
    expect(result.asked).toEqual([]);
    expect(result.toldModel[0]).toMatch(/Process exited with code 3/);
    expect(result.toldModel[1]).toMatch(/Process exited with code 2[\s\S]*No such file or directory/);
  });
});
