/**
 * A thread's turn lifecycle as front doors drive it: the next turn may start from the
 * `turn.completed` listener, a busy thread refuses a second turn, steer and interrupt check the
 * turn id, a closed thread refuses turns with a clear error, token usage adds up across turns,
 * and resuming a loaded thread with overrides changes only what was overridden.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '@deputy/test-support';
import { NoActiveTurnError, TurnInProgressError, TurnMismatchError } from '../../src/errors.js';
import { collect, startTestEngine, waitFor, type TestEngine } from '../helpers/engine.js';
import { ofType } from './support.js';

let engine: TestEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

describe('turn lifecycle', () => {
  it('lets a turn.completed listener start the next turn at once', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('one')] }, { output: [text('two')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    let next: Promise<unknown> | null = null;
    const off = thread.events.subscribe((event) => {
      if (event.type !== 'turn.completed' || next) return;
      expect(thread.activeTurnId).toBeNull();
      expect(() => thread.steer([{ type: 'text', text: 'too late' }])).toThrow(NoActiveTurnError);
      next = thread.startTurn([{ type: 'text', text: 'queued follow-up' }]).done;
    });
    await thread.startTurn([{ type: 'text', text: 'first' }]).done;
    expect(next).not.toBeNull();
    expect(await next).toMatchObject({ status: 'completed', lastAgentMessage: 'two' });
    off();
    expect(thread.turns.map((t) => t.info.status)).toEqual(['completed', 'completed']);
  });

  it('refuses a second turn while one runs, and checks turn ids on steer and interrupt', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ fault: 'stall', after: 3 });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const handle = thread.startTurn([{ type: 'text', text: 'slow' }]);
    expect(() => thread.startTurn([{ type: 'text', text: 'another' }])).toThrow(TurnInProgressError);
    expect(() => thread.steer([{ type: 'text', text: 'x' }], 'other-turn')).toThrow(TurnMismatchError);
    expect(() => thread.steer([])).toThrow(/empty/);
    await expect(thread.interrupt('other-turn')).rejects.toThrow(TurnMismatchError);
    expect((await thread.interrupt(handle.turnId))?.status).toBe('interrupted');
  });

  it('refuses a turn on a closed thread with a clear error instead of a broken turn', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await engine.manager.archive(thread.id);
    expect(thread.isClosed).toBe(true);
    expect(() => thread.startTurn([{ type: 'text', text: 'x' }])).toThrow(/closed/);
  });

  it('stamps events with a seq that keeps rising across turns, and adds up token usage', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('a')], usage: { input_tokens: 100, output_tokens: 10 } }, { output: [text('b')], usage: { input_tokens: 200, output_tokens: 20 } });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    await thread.startTurn([{ type: 'text', text: 'one' }]).done;
    await thread.startTurn([{ type: 'text', text: 'two' }]).done;
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    const usage = ofType(events, 'tokenUsage.updated').at(-1)!.usage;
    expect(usage.last).toMatchObject({ inputTokens: 200, outputTokens: 20, totalTokens: 220 });
    expect(usage.total).toMatchObject({ inputTokens: 300, outputTokens: 30, totalTokens: 330 });
    expect(thread.usage?.total.totalTokens).toBe(330);
    const ids = new Set(ofType(events, 'item.completed').map((e) => e.item.id));
    expect(ids.size).toBe(ofType(events, 'item.completed').length);
  });

  it('keeps the thread instructions when a loaded thread is resumed with overrides', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd, developerInstructions: 'DEV-RULES', baseInstructions: 'BASE-RULES' });
    const resumed = await engine.manager.resume(thread.id, { model: 'gpt-5.2' });
    expect(resumed).toBe(thread);
    expect(resumed.settings).toMatchObject({ model: 'gpt-5.2', developerInstructions: 'DEV-RULES', baseInstructions: 'BASE-RULES', cwd: engine.temp.cwd });
    engine.server.enqueue({ output: [text('ok')] });
    await resumed.startTurn([{ type: 'text', text: 'go' }]).done;
    const request = engine.server.requests[0]!;
    expect(request.body.model).toBe('gpt-5.2');
    expect(request.body.instructions).toBe('BASE-RULES');
    expect(JSON.stringify(request.body.input)).toContain('DEV-RULES');
  });

  it('applies a turn override to that turn and the ones after it', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('a')] }, { output: [text('b')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'one' }], { model: 'gpt-5.2' }).done;
    await thread.startTurn([{ type: 'text', text: 'two' }]).done;
    expect(engine.server.requests.map((r) => r.body.model)).toEqual(['gpt-5.2', 'gpt-5.2']);
  });

  it('ends a turn whose model never answers when the thread is closed', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ fault: 'stall', after: 2 });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const handle = thread.startTurn([{ type: 'text', text: 'x' }]);
    await waitFor(() => engine!.server.requests.length === 1, 5000, 'the request');
    await engine.manager.unload(thread.id);
    expect((await handle.done).status).toBe('interrupted');
  });
});
