/**
 * Steer and interrupt against the real scripted model server: steer input joins the running turn
 * at the next request; interrupting mid-stream or mid-command ends the turn as interrupted,
 * drops the partial message, kills the command's whole process group and leaves a history the
 * next request can use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, functionOutputs, lastUserText, text } from '@deputy/test-support';
import { collect, startTestEngine, waitFor, type TestEngine } from '../helpers/engine.js';
import { groupExists, killGroupQuietly, ofType, readRolloutLines, unansweredCalls } from './support.js';

let engine: TestEngine | null = null;
const groups: number[] = [];
afterEach(async () => {
  try {
    await engine?.close();
  } finally {
    for (const pgid of groups.splice(0)) killGroupQuietly(pgid);
    engine = null;
  }
});

describe('steer', () => {
  it('joins the running turn at the next model request, in one turn with ordered items', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('working on the first part of it')], delayMs: 20 }, { output: [text('both parts done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.startTurn([{ type: 'text', text: 'do the first part' }]);
    await waitFor(() => events.some((e) => e.type === 'item.delta'), 5000, 'the first delta');
    expect(thread.steer([{ type: 'text', text: 'also do the second part' }], handle.turnId)).toBe(handle.turnId);
    const turn = await handle.done;

    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('both parts done');
    expect(engine.server.requests).toHaveLength(2);
    expect(lastUserText(engine.server.requests[1]!)).toBe('also do the second part');
    expect(ofType(events, 'turn.started')).toHaveLength(1);
    expect(ofType(events, 'turn.completed')).toHaveLength(1);
    const completed = ofType(events, 'item.completed').map((e) => (e.item.type === 'userMessage' ? `user:${JSON.stringify(e.item.content[0])}` : e.item.type === 'agentMessage' ? `agent:${e.item.text}` : e.item.type));
    expect(completed).toEqual([
      'user:{"type":"text","text":"do the first part","text_elements":[]}',
      'agent:working on the first part of it',
      'user:{"type":"text","text":"also do the second part","text_elements":[]}',
      'agent:both parts done',
    ]);
    const snapshot = await engine.manager.read(thread.id);
    expect(snapshot.turns).toHaveLength(1);
    expect(snapshot.turns[0]!.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage', 'userMessage', 'agentMessage']);
  });

  it('refuses steer input when no turn is running', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect(() => thread.steer([{ type: 'text', text: 'late' }])).toThrow(/no active turn|not running|no turn/i);
  });
});

describe('interrupt mid-stream', () => {
  it('ends the turn as interrupted at once, keeps the partial message only as a partial transcript line, and takes a new turn', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ fault: 'stall', after: 6, output: [text('a long answer that will never finish streaming')] }, { output: [text('fresh answer')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.startTurn([{ type: 'text', text: 'start talking' }]);
    await waitFor(() => events.some((e) => e.type === 'item.delta'), 5000, 'the first delta');
    const streaming = ofType(events, 'item.started').find((e) => e.item.type === 'agentMessage')!.item.id;

    const before = performance.now();
    const info = await thread.interrupt();
    const elapsed = performance.now() - before;
    // Typically 10–70 ms even on a loaded machine; the bound leaves room for a busy CI runner.
    expect(elapsed).toBeLessThan(150);
    expect(info?.status).toBe('interrupted');
    expect((await handle.done).status).toBe('interrupted');
    expect(thread.activeTurnId).toBeNull();
    expect(ofType(events, 'item.completed').some((e) => e.item.id === streaming)).toBe(false);
    const streamed = ofType(events, 'item.delta').map((e) => e.delta).join('');
    expect(streamed.length).toBeGreaterThan(0);
    // What was said before the interrupt stays in the transcript (docs/app-server.md "Limits": streamed
    // text is persisted as it streams), marked partial; it never reaches the model again (below).
    const lines = await readRolloutLines(thread.path!);
    const kept = lines.filter((l) => JSON.stringify(l).includes(streaming));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((l) => (l.payload as { partial?: boolean }).partial === true)).toBe(true);
    const ended = lines.filter((l) => l.type === 'turn_ended');
    expect((ended[0]!.payload.turn as { status: string }).status).toBe('interrupted');

    const next = await thread.startTurn([{ type: 'text', text: 'try again' }]).done;
    expect(next.status).toBe('completed');
    expect(next.lastAgentMessage).toBe('fresh answer');
    expect(JSON.stringify(engine.server.requests[1]!.body.input)).not.toContain(streamed);
  });

  it('returns null when there is no turn to interrupt', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect(await thread.interrupt()).toBeNull();
  });
});

describe('interrupt mid-command', () => {
  it('kills the command and its grandchildren and answers the call as aborted for the next request', async () => {
    engine = await startTestEngine();
    const pidFile = join(engine.temp.cwd, 'shell.pid');
    const call = functionCall('exec_command', { cmd: `echo $$ > ${pidFile}; sleep 60 & sleep 60; wait`, yield_time_ms: 30_000 });
    engine.server.enqueue({ output: [call] }, { output: [text('ok, stopped')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.startTurn([{ type: 'text', text: 'run the long thing' }]);
    let pid = 0;
    await waitFor(
      () => {
        try {
          pid = Number(readFileSync(pidFile, 'utf8').trim());
        } catch {
          return false;
        }
        return pid > 0;
      },
      5000,
      'the shell to write its pid',
    );
    groups.push(pid);
    expect(groupExists(pid)).toBe(true);

    const info = await thread.interrupt();
    expect(info?.status).toBe('interrupted');
    expect((await handle.done).status).toBe('interrupted');
    // Killed grandchildren are reparented to init and may linger as zombies until it reaps them.
    await waitFor(() => !groupExists(pid), 10_000, 'the process group to be gone');
    expect(() => process.kill(-pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    const command = ofType(events, 'item.completed').find((e) => e.item.type === 'commandExecution');
    expect(command?.item.type === 'commandExecution' && command.item.status).not.toBe('inProgress');

    const next = await thread.startTurn([{ type: 'text', text: 'what happened?' }]).done;
    expect(next.status).toBe('completed');
    const request = engine.server.requests[1]!;
    expect(unansweredCalls(request)).toEqual([]);
    const output = functionOutputs(request).find((o) => o.call_id === call.callId);
    expect(output?.output).toMatch(/abort/i);
    expect(lastUserText(request)).toBe('what happened?');
  });
});

