/**
 * Tool turns end to end: a command printing more than a megabyte reaches the model cut to head +
 * tail with a marker, and a whole patch turn runs over the Chat Completions wire (apply_patch as
 * a function with an `input` argument, tool-call deltas assembled by the client).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, functionOutputs, text } from '@deputy/test-support';
import { collect, startTestEngine, type TestEngine } from '../helpers/engine.js';
import { ofType } from './support.js';

let engine: TestEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

describe('command output for the model', () => {
  it('cuts a command printing more than a megabyte to a bounded head and tail with a marker', async () => {
    engine = await startTestEngine();
    // 'HEAD-MARK', then 250,000 lines of "line" (1.25 MB), then 'TAIL-MARK'.
    const cmd = "printf 'HEAD-MARK\\n'; yes line | head -n 250000; printf 'TAIL-MARK\\n'";
    engine.server.enqueue({ output: [functionCall('exec_command', { cmd, yield_time_ms: 20_000 })] }, { output: [text('that was long')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'print a lot' }]).done;
    expect(turn.status).toBe('completed');

    const output = functionOutputs(engine.server.requests[1]!)[0]!.output;
    expect(output).toMatch(/^Chunk ID: \w+\nWall time: [\d.]+ seconds\nProcess exited with code 0\nOriginal token count: \d+\nOutput:\n/);
    const original = Number(/Original token count: (\d+)/.exec(output)![1]);
    expect(original).toBeGreaterThan(300_000);
    expect(output).toMatch(/\nOutput:\nTotal output lines: \d+\n\nHEAD-MARK\n/);
    expect(output).toMatch(/…\d+ tokens truncated…/);
    expect(output).toContain('HEAD-MARK');
    expect(output.trimEnd().endsWith('TAIL-MARK')).toBe(true);
    // Default budget: 10,000 tokens ≈ 40,000 bytes of output, plus the header.
    expect(Buffer.byteLength(output)).toBeLessThan(41_000);
    const command = ofType(events, 'item.completed').find((e) => e.item.type === 'commandExecution')!.item;
    expect(command.type === 'commandExecution' && (command.aggregatedOutput ?? '').length).toBeLessThan(41_000);
    // The rollout keeps what the model saw, not the megabyte.
    const rollout = await readFile(thread.path!, 'utf8');
    expect(Buffer.byteLength(rollout)).toBeLessThan(200_000);
  });

  it('honours a smaller max_output_tokens from the model', async () => {
    engine = await startTestEngine();
    const cmd = 'seq 1 100000';
    engine.server.enqueue({ output: [functionCall('exec_command', { cmd, max_output_tokens: 100 })] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'count' }]).done;
    const output = functionOutputs(engine.server.requests[1]!)[0]!.output;
    const body = output.slice(output.indexOf('Output:\n') + 'Output:\n'.length);
    expect(Buffer.byteLength(body)).toBeLessThan(100 * 4 + 100);
    expect(body).toMatch(/^Total output lines: 100000\n\n1\n/);
    expect(body.trimEnd().endsWith('100000')).toBe(true);
  });
});

describe('the chat wire', () => {
  it('runs a whole patch turn with apply_patch as a function taking {input}', async () => {
    engine = await startTestEngine({ wire: 'chat' });
    const patch = ['*** Begin Patch', '*** Add File: notes/hello.txt', '+hello from chat', '*** End Patch'].join('\n');
    const call = functionCall('apply_patch', { input: patch });
    engine.server.enqueue({ output: [call] }, { output: [text('file added')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'add a note' }]).done;

    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('file added');
    expect(await readFile(join(engine.temp.cwd, 'notes/hello.txt'), 'utf8')).toBe('hello from chat\n');
    const first = engine.server.requests[0]!;
    expect(first.wire).toBe('chat');
    const tools = first.body.tools as { type: string; function: { name: string; parameters: { properties: Record<string, unknown>; required?: string[] } } }[];
    const applyPatch = tools.find((t) => t.function.name === 'apply_patch')!;
    expect(applyPatch.type).toBe('function');
    expect(Object.keys(applyPatch.function.parameters.properties)).toEqual(['input']);
    const second = engine.server.requests[1]!;
    const messages = second.body.messages as { role: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    const assistant = messages.find((m) => m.role === 'assistant' && m.tool_calls);
    expect(assistant?.tool_calls?.[0]).toMatchObject({ id: call.callId, function: { name: 'apply_patch' } });
    expect(JSON.parse(assistant!.tool_calls![0]!.function.arguments)).toEqual({ input: patch });
    const toolMessage = messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe(call.callId);
    expect(functionOutputs(second)[0]!.output).toMatch(/notes\/hello\.txt/);
    const change = ofType(events, 'item.completed').find((e) => e.item.type === 'fileChange');
    expect(change?.item.type === 'fileChange' && change.item.status).toBe('completed');
  });
});
