/**
 * Retries seen from a turn: a 500 followed by success completes the turn and tells listeners an
 * error will be retried; a stream cut after an output item is retried without recording that
 * item twice; a stream that keeps failing ends the turn as failed with a readable error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, functionOutputs, inputItems, text } from '@deputy/test-support';
import { collect, startTestEngine, type TestEngine } from '../helpers/engine.js';
import { ofType } from './support.js';

let engine: TestEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

describe('retries in a turn', () => {
  it('completes the turn after a 500 and emits an error event that will be retried', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ fault: 'http', status: 500 }, { output: [text('recovered')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('recovered');
    expect(engine.server.requests).toHaveLength(2);
    const errors = ofType(events, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.willRetry).toBe(true);
    expect(errors[0]!.error.message).not.toMatch(/at .*\.js:\d+/);
    expect(ofType(events, 'turn.completed')).toHaveLength(1);
  });

  it('retries a stream dropped after an output item without duplicating items in the history', async () => {
    engine = await startTestEngine();
    const call = functionCall('exec_command', { cmd: 'echo once' });
    // Frames: created, in_progress, then the call's added, argument deltas, arguments done, item done.
    const dropAfter = 2 + 1 + Math.ceil(call.arguments.length / 6) + 1 + 1;
    engine.server.enqueue(
      { fault: 'drop-mid-stream', after: dropAfter, output: [call, text('never finished')] },
      { output: [call] },
      { output: [text('ran it once')] },
      { output: [text('second turn')] },
    );
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'run it' }]).done;
    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('ran it once');
    expect(ofType(events, 'error').map((e) => e.willRetry)).toEqual([true]);
    expect(ofType(events, 'item.completed').filter((e) => e.item.type === 'commandExecution')).toHaveLength(1);

    await thread.startTurn([{ type: 'text', text: 'again?' }]).done;
    const last = engine.server.requests.at(-1)!;
    const calls = inputItems(last).filter((i) => i['type'] === 'function_call');
    expect(calls).toHaveLength(1);
    expect(functionOutputs(last)).toHaveLength(1);
    expect(JSON.stringify(last.body.input)).not.toContain('never finished');
    const snapshot = await engine.manager.read(thread.id);
    expect(snapshot.turns[0]!.items.map((i) => i.type)).toEqual(['userMessage', 'commandExecution', 'agentMessage']);
  });

  it('fails the turn readably when every attempt fails', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ fault: 'http', status: 503 }, { fault: 'http', status: 503 }, { fault: 'http', status: 503 });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    expect(turn.status).toBe('failed');
    expect(turn.error?.code).toBe('serverOverloaded');
    expect(turn.error?.httpStatus).toBe(503);
    expect(ofType(events, 'error').map((e) => e.willRetry)).toEqual([true, true, false]);
  });
});
