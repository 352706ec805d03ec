import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, text, functionOutputs } from '@deputy/test-support';
import { collect, startTestEngine, type TestEngine } from '../helpers/engine.js';

let engine: TestEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

describe('a turn', () => {
  it('answers an echo turn with ordered, stamped events and persists the thread', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('hello there')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'say hello' }]).done;
    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('hello there');
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('turn.started');
    expect(types.at(-1)).toBe('turn.completed');
    expect(types).toContain('item.delta');
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.threadId))).toEqual(new Set([thread.id]));
    const request = engine.server.requests[0]!;
    expect(request.body.model).toBe('gpt-5.2-codex');
    expect(request.body.prompt_cache_key).toBe(thread.id);
    const toolNames = (request.body.tools as { name: string }[]).map((t) => t.name);
    expect(toolNames).toEqual(['exec_command', 'write_stdin', 'update_plan', 'apply_patch', 'view_image']);
    const snapshot = await engine.manager.read(thread.id);
    expect(snapshot.turns[0]?.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
    const listed = engine.manager.list({ limit: 10 });
    expect(listed.threads.map((t) => t.id)).toContain(thread.id);
    expect(listed.threads[0]?.preview).toBe('say hello');
  });

  it('runs a tool call, feeds its output back, and loops until the model answers', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [functionCall('exec_command', { cmd: 'echo hi-from-tool' })] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'run it' }]).done;
    expect(turn.status).toBe('completed');
    const outputs = functionOutputs(engine.server.requests[1]!);
    expect(outputs[0]?.output).toMatch(/Process exited with code 0\nOriginal token count: \d+\nOutput:\nhi-from-tool/);
    const command = events.find((e) => e.type === 'item.completed' && e.item.type === 'commandExecution');
    expect(command?.type === 'item.completed' && command.item.type === 'commandExecution' && command.item.exitCode).toBe(0);
  });

  it('tells the model about an unknown tool instead of failing the turn', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [functionCall('no_such_tool', {})] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'x' }]).done;
    expect(turn.status).toBe('completed');
    expect(functionOutputs(engine.server.requests[1]!)[0]?.output).toBe('unsupported call: no_such_tool');
  });

  it('fails the turn with a readable error when the provider rejects the key', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ fault: 'http', status: 401 });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'x' }]).done;
    expect(turn.status).toBe('failed');
    expect(turn.error?.code).toBe('unauthorized');
    expect(turn.error?.message).not.toMatch(/at .*\.js:\d+/);
  });
});
