/**
 * Contract tests of `thread/shellCommand` (the Codex TUI's `!command`): `{}` first, then the
 * command as a `commandExecution` item with `source: "userShell"` in a turn of its own (no model
 * request) or in the running turn; shell syntax kept; unsandboxed on a read-only thread; the
 * command and its output reach the next model request; interrupt; errors. Every message is
 * checked against our schemas and the reference's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSandboxAvailable } from '@deputy/engine';
import { waitFor } from '@deputy/test-support';
import { harnessPerTest, type Harness } from './support/harness.js';
import { runTurn, startThread, startTurn, turnCompleted } from './support/turns.js';
import type { Received, WireClient } from './support/wire-client.js';

const harness = harnessPerTest();

/** A wire commandExecution item, as far as these tests look. */
interface WireCommand {
  type: 'commandExecution';
  id: string;
  command: string;
  cwd: string;
  processId: string | null;
  source: string;
  status: string;
  commandActions: unknown[];
  aggregatedOutput: string | null;
  exitCode: number | null;
  durationMs: number | null;
}

/** Waits for the `item/completed` of the user shell command whose command line contains `marker`. */
function userShellCompleted(client: WireClient, marker: string): Promise<Received> {
  return client.waitForNotification('item/completed', (p) => {
    const item = p.item as WireCommand;
    return item.type === 'commandExecution' && item.source === 'userShell' && item.command.includes(marker);
  });
}

async function open(options: Parameters<typeof harness>[0] = {}): Promise<{ h: Harness; client: WireClient; threadId: string }> {
  const h = await harness(options);
  const client = await h.connect();
  const threadId = (await startThread(client)).id;
  return { h, client, threadId };
}

describe('thread/shellCommand with no turn running', () => {
  it('answers {} first, then runs the line in a turn of its own with output and exit code, without the model', async () => {
    const { h, client, threadId } = await open();
    const script = "printf 'beta\\nalpha\\n' | sort | tr a-z A-Z";
    const response = await client.request('thread/shellCommand', { threadId, command: `  ${script}\n` });
    expect(response).toMatchObject({ result: {} });
    const completed = await userShellCompleted(client, 'sort');
    const turnId = completed.params.turnId as string;
    await turnCompleted(client, turnId);

    const responseIndex = client.received.findIndex((m) => 'id' in m && m.id === response.id);
    const firstTurnNote = client.received.findIndex((m) => 'method' in m && m.method === 'turn/started');
    expect(firstTurnNote).toBeGreaterThan(responseIndex);
    const methods = client.received
      .slice(responseIndex + 1)
      .flatMap((m) => ('method' in m && m.method !== 'thread/started' ? [m.method] : []));
    const deltaCount = methods.filter((m) => m === 'item/commandExecution/outputDelta').length;
    expect(deltaCount).toBeGreaterThan(0);
    expect(methods.filter((m) => m !== 'item/commandExecution/outputDelta')).toEqual([
      'thread/status/changed',
      'turn/started',
      'item/started',
      'item/completed',
      'thread/status/changed',
      'turn/completed',
    ]);

    const started = client.notifications('item/started')[0]!.params;
    const item = completed.params.item as WireCommand;
    expect(started).toMatchObject({ threadId, turnId, item: { id: item.id, type: 'commandExecution', source: 'userShell', status: 'inProgress', aggregatedOutput: null, exitCode: null } });
    expect(item).toMatchObject({ source: 'userShell', status: 'completed', exitCode: 0, aggregatedOutput: 'ALPHA\nBETA\n', processId: null, cwd: h.temp.cwd });
    // The trimmed line goes to the shell as one script; the pipes are the shell's.
    expect(item.command).toMatch(/^\/\S+ -lc 'printf '\\''beta\\nalpha\\n'\\'' \| sort \| tr a-z A-Z'$/);
    expect(item.commandActions).toEqual([{ type: 'unknown', command: script }]);
    const deltas = client.notifications('item/commandExecution/outputDelta').map((n) => n.params);
    expect(deltas.every((d) => d.itemId === item.id && d.turnId === turnId)).toBe(true);
    expect(deltas.map((d) => d.delta).join('')).toBe('ALPHA\nBETA\n');
    expect(client.notifications('turn/completed')[0]!.params.turn).toMatchObject({ id: turnId, status: 'completed', error: null, items: [] });
    expect(h.model.requests).toHaveLength(0);
  });

  it('reports a failing command as failed with its exit code', async () => {
    const { client, threadId } = await open();
    await client.call('thread/shellCommand', { threadId, command: 'echo to-stderr >&2; exit 4' });
    const item = (await userShellCompleted(client, 'exit 4')).params.item as WireCommand;
    expect(item).toMatchObject({ status: 'failed', exitCode: 4, aggregatedOutput: 'to-stderr\n' });
  });

  it("puts the command and its output in the next turn's model request", async () => {
    const { h, client, threadId } = await open();
    await client.call('thread/shellCommand', { threadId, command: 'echo shell-said-this | rev' });
    await turnCompleted(client, (await userShellCompleted(client, 'rev')).params.turnId as string);
    await runTurn(client, threadId, 'what did the shell say?');

    expect(h.model.requests).toHaveLength(1);
    const input = h.model.requests[0]!.body.input as Array<{ type: string; role?: string; content?: Array<{ text?: string }> }>;
    const record = input.find((i) => i.role === 'user' && i.content?.[0]?.text?.startsWith('<user_shell_command>'));
    expect(record?.content?.[0]?.text).toMatch(
      /^<user_shell_command>\n<command>\necho shell-said-this \| rev\n<\/command>\n<result>\nExit code: 0\nDuration: \d+\.\d{4} seconds\nOutput:\nsiht-dias-llehs\n\n<\/result>\n<\/user_shell_command>$/,
    );
    const last = input.at(-1)!;
    expect(last).toMatchObject({ role: 'user', content: [{ text: 'what did the shell say?' }] });
  });

  it('runs outside the sandbox on a read-only thread', async () => {
    const availability = await checkSandboxAvailable();
    if (!availability.ok) throw new Error(`this test needs a working bwrap: ${availability.message}`);
    const h = await harness({ sandbox: 'read-only' });
    const client = await h.connect();
    const thread = await client.call<{ thread: { id: string }; sandbox: { type: string } }>('thread/start', { sandbox: 'read-only' });
    expect(thread.sandbox.type).toBe('readOnly');
    await client.call('thread/shellCommand', { threadId: thread.thread.id, command: 'echo from-bang > bang.txt && cat bang.txt' });
    const item = (await userShellCompleted(client, 'bang.txt')).params.item as WireCommand;
    expect(item).toMatchObject({ status: 'completed', exitCode: 0, aggregatedOutput: 'from-bang\n' });
    expect(readFileSync(join(h.temp.cwd, 'bang.txt'), 'utf8')).toBe('from-bang\n');
  });

  it('is killed by turn/interrupt and completes as aborted', async () => {
    const { h, client, threadId } = await open();
    const pidFile = join(h.temp.cwd, 'bang.pid');
    await client.call('thread/shellCommand', { threadId, command: `echo $$ > ${pidFile}; echo running; sleep 30` });
    await client.waitForNotification('item/commandExecution/outputDelta');
    await client.waitUntil(() => existsSync(pidFile), 'the pid file');
    const pgid = Number(readFileSync(pidFile, 'utf8').trim());
    const turnId = ((await client.waitForNotification('turn/started')).params.turn as { id: string }).id;
    expect(await client.call('turn/interrupt', { threadId, turnId })).toEqual({});
    const completed = await turnCompleted(client, turnId);
    expect(completed.params.turn).toMatchObject({ status: 'interrupted' });
    const item = (await userShellCompleted(client, 'sleep 30')).params.item as WireCommand;
    expect(item).toMatchObject({ status: 'failed', exitCode: -1, aggregatedOutput: 'command aborted by user' });
    await waitFor(() => !groupAlive(pgid), 5000, 'the process group to die');
  });
});

describe('thread/shellCommand while a turn runs', () => {
  it('joins the running turn, and the model reads the record after the tool output', async () => {
    const { h, client, threadId } = await open();
    const gate = join(h.temp.cwd, 'gate');
    const turnId = await startTurn(client, threadId, `run: while [ ! -f ${gate} ]; do sleep 0.02; done; echo gate-open`);
    await client.waitForNotification('item/started', (p) => (p.item as WireCommand).type === 'commandExecution' && (p.item as WireCommand).source === 'agent');

    expect(await client.call('thread/shellCommand', { threadId, command: 'echo joined-the-turn' })).toEqual({});
    const completed = await userShellCompleted(client, 'joined-the-turn');
    expect(completed.params.turnId).toBe(turnId);
    expect(completed.params.item).toMatchObject({ source: 'userShell', status: 'completed', exitCode: 0, aggregatedOutput: 'joined-the-turn\n' });
    const started = client.notifications('item/started').find((n) => (n.params.item as WireCommand).id === (completed.params.item as WireCommand).id);
    expect(started?.params.turnId).toBe(turnId);
    await writeFile(gate, '');
    await turnCompleted(client, turnId);

    expect(client.notifications('turn/started')).toHaveLength(1);
    expect(client.notifications('turn/completed')).toHaveLength(1);
    expect(h.model.requests).toHaveLength(2);
    const input = h.model.requests[1]!.body.input as Array<{ type: string; role?: string; content?: Array<{ text?: string }> }>;
    const output = input.findIndex((i) => i.type === 'function_call_output');
    expect(input[output - 1]?.type).toBe('function_call');
    expect(input[output + 1]?.content?.[0]?.text).toMatch(/^<user_shell_command>\n<command>\necho joined-the-turn\n[\s\S]*\nOutput:\njoined-the-turn\n/);
  });
});

describe('thread/shellCommand errors', () => {
  it('refuses an unknown or malformed thread, an empty command and missing fields, and keeps serving', async () => {
    const { client, threadId } = await open();
    const unknown = '01a2286b-0072-7ad3-9f71-2d86309503a6';
    expect((await client.request('thread/shellCommand', { threadId: unknown, command: 'true' })).error).toEqual({ code: -32600, message: `thread not found: ${unknown}` });
    expect((await client.request('thread/shellCommand', { threadId: 'not-a-uuid', command: 'true' })).error?.message).toMatch(/^invalid thread id: /);
    expect((await client.request('thread/shellCommand', { threadId, command: '  \n' })).error).toEqual({ code: -32600, message: 'command must not be empty' });
    expect((await client.request('thread/shellCommand', { threadId: unknown, command: '' })).error).toEqual({ code: -32600, message: 'command must not be empty' });
    expect((await client.request('thread/shellCommand', {})).error).toMatchObject({ code: -32600, message: 'Invalid request: missing field `threadId`' });
    expect((await client.request('thread/shellCommand', { threadId })).error).toMatchObject({ code: -32600, message: 'Invalid request: missing field `command`' });
    expect(client.notifications('turn/started')).toHaveLength(0);

    await client.call('thread/shellCommand', { threadId, command: 'echo still-serving' });
    expect((await userShellCompleted(client, 'still-serving')).params.item).toMatchObject({ exitCode: 0, aggregatedOutput: 'still-serving\n' });
  });
});

/** True while any process of group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
