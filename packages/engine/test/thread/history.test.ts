/**
 * The model history a thread owns: `History` on its own (append, summary replacement, restore,
 * rollback), and a rollback on a resumed thread whose last turn a crash cut short, whose
 * repairs must reach the rollout before the rollback does.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { functionCall, functionCalls, functionOutputs, text, type RecordedRequest } from '@deputy/test-support';
import type { ResponseItem } from '../../src/model/types.js';
import { dropLastTurns, History } from '../../src/thread/history.js';
import type { TurnRecord } from '../../src/thread/thread-types.js';
import { sharedHome } from '../helpers/engine.js';

const say = (text: string): ResponseItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const turn = (id: string): TurnRecord => ({ info: { id, status: 'completed', error: null, startedAtMs: 0, completedAtMs: 0, lastAgentMessage: null }, items: [] });

describe('History', () => {
  it('keeps items with their turns, and the context key they hold', () => {
    const history = new History();
    history.markContext('key-1');
    history.append(say('context'), 't1');
    history.append(say('hello'), 't1');
    history.append(say('later'), 't2');
    expect(history.items.map((i) => (i.type === 'message' ? i.content[0] : null))).toHaveLength(3);
    expect(history.turnIds).toEqual(['t1', 't1', 't2']);
    expect(history.contextKey).toBe('key-1');
  });

  it('empties for a summary and forgets its context', () => {
    const history = new History();
    history.markContext('key-1');
    history.append(say('old'), 't1');
    history.clear();
    expect([history.items, history.turnIds, history.contextKey]).toEqual([[], [], null]);
  });

  it('takes over restored arrays and drops the items of rolled-back turns', () => {
    const history = new History();
    history.restore([say('a'), say('b'), say('c'), say('d')], [null, 't1', 't2', 't2'], 'key-1');
    const turns = [turn('t1'), turn('t2')];
    history.rollback(dropLastTurns(turns, 1));
    expect(turns.map((t) => t.info.id)).toEqual(['t1']);
    expect(history.turnIds).toEqual([null, 't1']);
    expect(history.contextKey).toBeNull();
  });
});

/** Tool outputs in a request whose call is not in it (the API refuses such a request). */
function orphanOutputs(request: RecordedRequest): string[] {
  const calls = new Set(functionCalls(request).map((c) => c.call_id));
  return functionOutputs(request)
    .map((o) => o.call_id)
    .filter((id) => !calls.has(id));
}

describe('a rollback right after resuming a thread cut short by a crash', () => {
  it('drops the cut turn with its repaired call, in memory and in the rollout', async () => {
    const { server, temp, open } = await sharedHome();
    const call = functionCall('exec_command', { cmd: 'echo cut' });
    server.enqueue({ output: [text('first answer')] }, { output: [call] }, { output: [text('ran it')] });
    const first = await open();
    const thread = await first.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'first' }]).done;
    await thread.startTurn([{ type: 'text', text: 'run it' }]).done;
    const path = thread.path!;
    await first.close();
    // The crash: the rollout ends right after the call was recorded.
    const lines = (await readFile(path, 'utf8')).split('\n');
    const callLine = lines.findIndex((l) => l.includes('"type":"response_item"') && l.includes(call.callId) && l.includes('"function_call"'));
    await writeFile(path, lines.slice(0, callLine + 1).join('\n') + '\n');

    const second = await open();
    await second.manager.rollback(thread.id, 1);
    server.enqueue({ output: [text('after rollback')] });
    await (await second.manager.resume(thread.id)).startTurn([{ type: 'text', text: 'again' }]).done;
    expect(orphanOutputs(server.requests.at(-1)!)).toEqual([]);
    await second.close();

    const third = await open();
    server.enqueue({ output: [text('after restart')] });
    await (await third.manager.resume(thread.id)).startTurn([{ type: 'text', text: 'once more' }]).done;
    const last = server.requests.at(-1)!;
    expect(orphanOutputs(last)).toEqual([]);
    expect(JSON.stringify(last.body.input)).not.toContain(call.callId);
  });
});
