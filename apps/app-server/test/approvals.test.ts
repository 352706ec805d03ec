/**
 * Contract tests of command and patch approvals (docs/app-server.md "Approvals") with one client
 * answering.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { functionCall, text } from '@deputy/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { startThread, startTurn, turnCompleted, turnMethods } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const EXEC = 'item/commandExecution/requestApproval';
const PATCH = 'item/fileChange/requestApproval';

let h: Harness;
let client: WireClient;
let threadId: string;
beforeEach(async () => {
  h = await startHarness({ approvalPolicy: 'untrusted' });
  client = await h.connect();
  threadId = (await startThread(client)).id;
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

function itemOf(method: string, type: string): Record<string, unknown> | undefined {
  return client.notifications(method).map((n) => n.params.item as Record<string, unknown>).find((i) => i.type === type);
}

describe('command approvals', () => {
  it('shows the command item, asks, and runs it once accepted', async () => {
    const target = join(h.temp.cwd, 'accepted.txt');
    const turnId = await startTurn(client, threadId, `run: touch ${target} && echo done`);
    const request = await client.waitForServerRequest(EXEC);
    expect(request.id).toBe(0);
    expect(request.params).toMatchObject({
      threadId,
      turnId,
      command: expect.stringContaining(`touch ${target} && echo done`),
      cwd: h.temp.cwd,
      commandActions: [{ type: 'unknown', command: `touch ${target} && echo done` }],
      availableDecisions: expect.arrayContaining(['accept', 'cancel']),
    });
    const started = itemOf('item/started', 'commandExecution');
    expect(started).toMatchObject({ id: (request.params as { itemId: string }).itemId, status: 'inProgress', source: 'agent', processId: null });
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'active', activeFlags: ['waitingOnApproval'] });
    await client.respond(request.id, { decision: 'accept' });
    await turnCompleted(client, turnId);
    expect(existsSync(target)).toBe(true);
    const seq = turnMethods(client, turnId).filter((m) => m !== 'warning');
    const approvalAt = seq.indexOf('thread/status/changed', seq.indexOf('turn/started'));
    expect(seq.slice(approvalAt, approvalAt + 5)).toEqual(['thread/status/changed', 'item/started', 'serverRequest/resolved', 'thread/status/changed', 'item/commandExecution/outputDelta']);
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId, requestId: 0 }]);
    expect(itemOf('item/completed', 'commandExecution')).toMatchObject({ status: 'completed', exitCode: 0 });
  });

  it('declines: the item ends declined and the turn goes on to complete', async () => {
    const target = join(h.temp.cwd, 'declined.txt');
    const turnId = await startTurn(client, threadId, `run: touch ${target}`);
    const request = await client.waitForServerRequest(EXEC);
    await client.respond(request.id, { decision: 'decline' });
    const completed = await turnCompleted(client, turnId);
    expect(completed.params.turn).toMatchObject({ status: 'completed' });
    expect(existsSync(target)).toBe(false);
    expect(itemOf('item/completed', 'commandExecution')).toMatchObject({ status: 'declined' });
    expect(itemOf('item/completed', 'agentMessage')).toMatchObject({ text: expect.stringContaining('TOOL_RESULT') });
  });

  it('cancels: the item ends declined before the turn ends interrupted', async () => {
    const turnId = await startTurn(client, threadId, `run: touch ${join(h.temp.cwd, 'cancelled.txt')}`);
    const request = await client.waitForServerRequest(EXEC);
    await client.respond(request.id, { decision: 'cancel' });
    const completed = await turnCompleted(client, turnId);
    expect(completed.params.turn).toMatchObject({ status: 'interrupted' });
    expect(itemOf('item/completed', 'commandExecution')).toMatchObject({ status: 'declined' });
    const seq = turnMethods(client, turnId);
    expect(seq.lastIndexOf('item/completed')).toBeLessThan(seq.indexOf('turn/completed'));
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'idle' });
  });

  it('treats an unparsable answer as decline', async () => {
    const turnId = await startTurn(client, threadId, `run: touch ${join(h.temp.cwd, 'x.txt')}`);
    const request = await client.waitForServerRequest(EXEC);
    await client.respond(request.id, { decision: 'maybe later' });
    await turnCompleted(client, turnId);
    expect(itemOf('item/completed', 'commandExecution')).toMatchObject({ status: 'declined' });
  });

  it('auto-approves the same command later in the thread after acceptForSession', async () => {
    const command = `run: touch ${join(h.temp.cwd, 'session.txt')}`;
    const first = await startTurn(client, threadId, command);
    await client.respond((await client.waitForServerRequest(EXEC)).id, { decision: 'acceptForSession' });
    await turnCompleted(client, first);
    const second = await startTurn(client, threadId, command);
    await turnCompleted(client, second);
    expect(client.serverRequests).toHaveLength(1);
  });
});

describe('patch approvals', () => {
  it('starts the file change item with its diff before asking, then applies it on accept', async () => {
    const turnId = await startTurn(client, threadId, 'patch: approved.txt=hello');
    const request = await client.waitForServerRequest(PATCH);
    expect(request.params).toMatchObject({ threadId, turnId, reason: null, grantRoot: null });
    const started = itemOf('item/started', 'fileChange');
    expect(started).toMatchObject({ status: 'inProgress', changes: [{ path: join(h.temp.cwd, 'approved.txt'), kind: { type: 'add' }, diff: expect.stringContaining('hello') }] });
    expect(existsSync(join(h.temp.cwd, 'approved.txt'))).toBe(false);
    await client.respond(request.id, { decision: 'accept' });
    await turnCompleted(client, turnId);
    expect(existsSync(join(h.temp.cwd, 'approved.txt'))).toBe(true);
    const seq = turnMethods(client, turnId).filter((m) => m !== 'warning');
    const at = seq.indexOf('item/started', seq.indexOf('item/completed') + 1);
    expect(seq.slice(at, at + 6)).toEqual(['item/started', 'thread/status/changed', 'serverRequest/resolved', 'thread/status/changed', 'item/completed', 'turn/diff/updated']);
  });

  it('cancels a patch: nothing is written, the item ends declined and the turn interrupted', async () => {
    const turnId = await startTurn(client, threadId, 'patch: never.txt=no');
    await client.respond((await client.waitForServerRequest(PATCH)).id, { decision: 'cancel' });
    const completed = await turnCompleted(client, turnId);
    expect(completed.params.turn).toMatchObject({ status: 'interrupted' });
    expect(existsSync(join(h.temp.cwd, 'never.txt'))).toBe(false);
    expect(itemOf('item/completed', 'fileChange')).toMatchObject({ status: 'declined' });
  });
});

describe('what a client renders', () => {
  it('gets the reason with CR, ANSI, bidi and zero-width characters escaped, and the command exact', async () => {
    const cmd = `touch ${join(h.temp.cwd, 'shown.txt')} # \u202e\r\x1b[2Knpm test`;
    h.model.enqueue({ output: [functionCall('exec_command', { cmd, justification: 'routine\r\x1b[2K\u200bfine' })] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'run it');
    const request = await client.waitForServerRequest(EXEC);
    const params = request.params as { reason: string; command: string };
    expect(params.reason).toBe(String.raw`routine\x0d\x1b[2K\u{200b}fine`);
    // The structured command is data: exact, for the client to render its own way.
    expect(params.command).toContain(cmd);
    await client.respond(request.id, { decision: 'decline' });
    await turnCompleted(client, turnId);
  });
});
