/**
 * Auto-compaction end to end: when the last request's usage reaches
 * `model_auto_compact_token_limit`, the next request is a summary request (no tools, the compact
 * prompt), the turn goes on from the summary, the rollout records a `compacted` line, and a
 * thread resumed in a new manager continues from the summary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, lastUserText, makeTempHome, startScriptedModelServer, text, toolNames, type RecordedRequest } from '@deputy/test-support';
import { DEFAULT_COMPACT_PROMPT } from '../../src/thread/base-instructions.js';
import { SUMMARY_PREFIX } from '../../src/thread/compaction.js';
import { TurnInProgressError, TurnNotSteerableError } from '../../src/errors.js';
import { collect, startTestEngine, waitFor } from '../helpers/engine.js';
import { ofType, readRolloutLines, requestText, unansweredCalls } from './support.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(topLevelToml: string) {
  const server = await startScriptedModelServer();
  const temp = await makeTempHome();
  cleanups.push(() => server.close(), () => temp.cleanup());
  const open = async () => {
    const engine = await startTestEngine({ server, temp, extraToml: topLevelToml });
    cleanups.push(() => engine.close());
    return engine;
  };
  return { server, temp, open };
}

const isCompactRequest = (r: RecordedRequest, prompt: string) => toolNames(r).length === 0 && lastUserText(r) === prompt;

describe('auto-compaction', () => {
  it('summarises the history when usage passes the limit and goes on from the summary', async () => {
    const { server, temp, open } = await setup('model_auto_compact_token_limit = 1000');
    const engine = await open();
    const call = functionCall('exec_command', { cmd: 'echo BEFORE-COMPACTION' });
    server.enqueue(
      { output: [call], usage: { input_tokens: 5000 } },
      { output: [text('SUMMARY: ran echo, saw BEFORE-COMPACTION')] },
      { output: [text('finished after compaction')] },
    );
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'please echo' }]).done;

    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('finished after compaction');
    const [first, compact, after] = server.requests;
    expect(toolNames(first!).length).toBeGreaterThan(0);
    expect(isCompactRequest(compact!, DEFAULT_COMPACT_PROMPT)).toBe(true);
    expect(requestText(compact!)).toContain('BEFORE-COMPACTION');
    expect(toolNames(after!).length).toBeGreaterThan(0);
    const afterText = requestText(after!);
    expect(afterText).toContain(JSON.stringify(SUMMARY_PREFIX + 'SUMMARY: ran echo, saw BEFORE-COMPACTION').slice(1, -1));
    expect(afterText).toContain('please echo');
    expect(afterText).not.toContain(call.callId);
    expect(unansweredCalls(after!)).toEqual([]);
    const compaction = ofType(events, 'item.completed').filter((e) => e.item.type === 'contextCompaction');
    expect(compaction).toHaveLength(1);
    // The summary is not shown to the user as an agent message.
    expect(ofType(events, 'item.completed').some((e) => e.item.type === 'agentMessage' && e.item.text.startsWith('SUMMARY'))).toBe(false);
    const lines = await readRolloutLines(thread.path!);
    const compacted = lines.filter((l) => l.type === 'compacted');
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.payload.summary).toBe('SUMMARY: ran echo, saw BEFORE-COMPACTION');
  });

  it('lets a resumed thread continue from the summary', async () => {
    const { server, temp, open } = await setup('model_auto_compact_token_limit = 1000');
    const first = await open();
    server.enqueue(
      { output: [text('answer one with OLD-DETAIL')], usage: { input_tokens: 5000 } },
      { output: [text('THE-SUMMARY')] },
      { output: [text('answer two')] },
    );
    const thread = await first.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'turn one' }]).done;
    const turn = await thread.startTurn([{ type: 'text', text: 'turn two' }]).done;
    expect(turn.status).toBe('completed');
    expect(isCompactRequest(server.requests[1]!, DEFAULT_COMPACT_PROMPT)).toBe(true);
    await first.manager.close();

    const second = await open();
    const resumed = await second.manager.resume(thread.id);
    server.enqueue({ output: [text('answer three')] });
    const third = await resumed.startTurn([{ type: 'text', text: 'turn three' }]).done;
    expect(third.status).toBe('completed');
    const request = server.requests.at(-1)!;
    const body = requestText(request);
    expect(body).toContain('THE-SUMMARY');
    expect(body).toContain('turn two');
    expect(body).toContain('answer two');
    expect(body).not.toContain('OLD-DETAIL');
    expect(lastUserText(request)).toBe('turn three');
    expect((await second.manager.read(thread.id)).turns).toHaveLength(3);
  });

  it('uses the compact_prompt override', async () => {
    const { server, temp, open } = await setup('model_auto_compact_token_limit = 1000\ncompact_prompt = "CUSTOM: summarise in one line"');
    const engine = await open();
    server.enqueue({ output: [text('big')], usage: { input_tokens: 5000 } }, { output: [text('one line')] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'a' }]).done;
    await thread.startTurn([{ type: 'text', text: 'b' }]).done;
    expect(isCompactRequest(server.requests[1]!, 'CUSTOM: summarise in one line')).toBe(true);
  });

  it('compacts once and retries when the provider says the context is too long', async () => {
    const { server, temp, open } = await setup('');
    const engine = await open();
    server.enqueue({ fault: 'context-too-long' }, { output: [text('SHORT-SUMMARY')] }, { output: [text('fits now')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'huge request' }]).done;
    expect(turn).toMatchObject({ status: 'completed', lastAgentMessage: 'fits now' });
    expect(isCompactRequest(server.requests[1]!, DEFAULT_COMPACT_PROMPT)).toBe(true);
    expect(requestText(server.requests[2]!)).toContain('SHORT-SUMMARY');
    expect(lastUserText(server.requests[2]!)).toBe('huge request');
  });

  it('fails the turn readably when the context is still too long after compacting', async () => {
    const { server, temp, open } = await setup('');
    const engine = await open();
    server.enqueue({ fault: 'context-too-long' }, { output: [text('summary')] }, { fault: 'context-too-long' });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'huge request' }]).done;
    expect(turn.status).toBe('failed');
    expect(turn.error?.code).toBe('contextWindowExceeded');
    expect(server.requests).toHaveLength(3);
  });

  it('does not compact below the limit', async () => {
    const { server, temp, open } = await setup('model_auto_compact_token_limit = 1000');
    const engine = await open();
    server.enqueue({ output: [text('small')], usage: { input_tokens: 500 } }, { output: [text('still small')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'a' }]).done;
    await thread.startTurn([{ type: 'text', text: 'b' }]).done;
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((r) => toolNames(r).length > 0)).toBe(true);
  });
});

describe('compaction on request (Thread.startCompaction)', () => {
  it('runs a turn that only summarises the history, and the next turn goes on from the summary', async () => {
    const { server, temp, open } = await setup('');
    const engine = await open();
    server.enqueue({ output: [text('the first answer')] }, { output: [text('SUMMARY: one question, one answer')] }, { output: [text('after')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'first question' }]).done;
    const events = collect(thread);
    const compaction = await thread.startCompaction().done;
    expect(compaction).toMatchObject({ status: 'completed', error: null, lastAgentMessage: null });
    expect(isCompactRequest(server.requests[1]!, DEFAULT_COMPACT_PROMPT)).toBe(true);
    expect(requestText(server.requests[1]!)).toContain('first question');
    const shown = events.filter((e) => e.type.startsWith('turn.') || e.type.startsWith('item.'));
    expect(shown.map((e) => (e.type.startsWith('item.') ? `${e.type}:${(e as { item: { type: string } }).item.type}` : e.type))).toEqual([
      'turn.started',
      'item.started:contextCompaction',
      'item.completed:contextCompaction',
      'turn.completed',
    ]);
    expect((await readRolloutLines(thread.path!)).filter((l) => l.type === 'compacted').map((l) => l.payload.summary)).toEqual(['SUMMARY: one question, one answer']);
    await thread.startTurn([{ type: 'text', text: 'second question' }]).done;
    const next = requestText(server.requests[2]!);
    expect(next).toContain(JSON.stringify(SUMMARY_PREFIX + 'SUMMARY: one question, one answer').slice(1, -1));
    expect(next).not.toContain('the first answer');
    expect(next).toContain('second question');
  });

  it('takes no steer input and no second turn while it runs, and can be interrupted', async () => {
    const { server, temp, open } = await setup('');
    const engine = await open();
    server.enqueue({ output: [text('slow summary')], delayMs: 2_000 });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const handle = thread.startCompaction();
    await waitFor(() => server.requests.length === 1, 5_000, 'the summary request');
    expect(() => thread.steer([{ type: 'text', text: 'more' }])).toThrow(TurnNotSteerableError);
    expect(() => thread.startTurn([{ type: 'text', text: 'another' }])).toThrow(TurnInProgressError);
    await thread.interrupt(handle.turnId);
    expect((await handle.done).status).toBe('interrupted');
    expect((await readRolloutLines(thread.path!)).some((l) => l.type === 'compacted')).toBe(false);
  });
});
