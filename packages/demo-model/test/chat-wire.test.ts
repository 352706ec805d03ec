import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../src/scripted-model-server.js';
import { customToolCall, functionCall, text } from '../src/scripted-steps.js';
import { functionCalls, functionOutputs, lastUserText, toolNames } from '../src/request-matchers.js';
import { parseSse, postJson, type ParsedEvent } from './sse.js';

type Data = Record<string, unknown>;
type Chunk = { choices: { delta: Data; finish_reason: string | null }[]; usage?: Data };

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

async function streamChat(body: Data = {}): Promise<ParsedEvent[]> {
  const res = await postJson(`${server.url}/chat/completions`, { model: 'gpt-test', messages: [], stream: true, ...body });
  expect(res.status).toBe(200);
  return parseSse(await res.text());
}

const chunks = (events: ParsedEvent[]): Chunk[] => events.filter((e) => e.data !== '[DONE]').map((e) => e.data as Chunk);

describe('ScriptedModelServer on the chat wire', () => {
  it('streams text as content deltas, a stop chunk, then [DONE]', async () => {
    server.enqueue({ output: [text('chat hello world')] });
    const events = await streamChat();
    const all = chunks(events);
    expect(all[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const content = all.map((c) => c.choices[0]?.delta['content'] ?? '').join('');
    expect(content).toBe('chat hello world');
    expect(all.filter((c) => typeof c.choices[0]?.delta['content'] === 'string' && c.choices[0]?.delta['content'] !== '').length).toBeGreaterThan(1);
    expect(all.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('streams tool calls as indexed deltas and custom tool calls as {input} arguments', async () => {
    const a = functionCall('exec_command', { cmd: 'ls' }, 'call_a');
    const b = customToolCall('apply_patch', 'PATCH', 'call_b');
    server.enqueue({ output: [a, b] });
    const all = chunks(await streamChat());
    const calls = new Map<number, { id?: unknown; name?: unknown; args: string }>();
    for (const c of all) {
      for (const tc of (c.choices[0]?.delta['tool_calls'] ?? []) as { index: number; id?: string; function: { name?: string; arguments?: string } }[]) {
        const cur = calls.get(tc.index) ?? { args: '' };
        if (tc.id !== undefined) cur.id = tc.id;
        if (tc.function.name !== undefined) cur.name = tc.function.name;
        cur.args += tc.function.arguments ?? '';
        calls.set(tc.index, cur);
      }
    }
    expect([...calls.entries()]).toEqual([
      [0, { id: 'call_a', name: 'exec_command', args: '{"cmd":"ls"}' }],
      [1, { id: 'call_b', name: 'apply_patch', args: '{"input":"PATCH"}' }],
    ]);
    expect(all.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('sends a usage chunk only when stream_options.include_usage is set', async () => {
    server.enqueue({ output: [text('x')], usage: { input_tokens: 9, output_tokens: 4, cached_tokens: 2 } }, { output: [text('y')] });
    const withUsage = chunks(await streamChat({ stream_options: { include_usage: true } }));
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13, prompt_tokens_details: { cached_tokens: 2 } } });
    const without = chunks(await streamChat());
    expect(without.some((c) => c.usage !== undefined)).toBe(false);
  });

  it('reads user text, tool calls, tool outputs and tool names from chat messages', async () => {
    server.enqueue({ output: [text('ok')] });
    await streamChat({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi there' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c9', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } }] },
        { role: 'tool', tool_call_id: 'c9', content: 'file-a' },
      ],
      tools: [{ type: 'function', function: { name: 'exec_command', parameters: {} } }],
    });
    const [req] = server.requests;
    expect(req?.wire).toBe('chat');
    expect(lastUserText(req!)).toBe('hi there');
    expect(functionCalls(req!)).toEqual([{ type: 'function_call', call_id: 'c9', name: 'exec_command', arguments: '{"cmd":"ls"}' }]);
    expect(functionOutputs(req!)).toEqual([{ type: 'function_call_output', call_id: 'c9', output: 'file-a' }]);
    expect(toolNames(req!)).toEqual(['exec_command']);
  });
});
