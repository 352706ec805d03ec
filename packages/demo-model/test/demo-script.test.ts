import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDemoModelServer, summariseListing } from '../src/demo-script.js';
import type { ScriptedModelServer } from '../src/scripted-model-server.js';
import { parseSse, postJson } from './sse.js';

type Data = Record<string, unknown>;

let server: ScriptedModelServer;
/** The workspace the real `ls -la` runs in. */
let cwd: string;
beforeEach(async () => {
  server = await startDemoModelServer();
  cwd = await realpath(await mkdtemp(join(tmpdir(), 'deputy-demo-cwd-')));
});
afterEach(async () => {
  await server.close();
  await rm(cwd, { recursive: true, force: true });
});

const TOOLS = [
  { type: 'function', name: 'exec_command' },
  { type: 'function', name: 'update_plan' },
];
const user = (t: string): Data => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text: t }] });

/** Sends one Responses request and returns the done output items. */
async function ask(input: Data[]): Promise<Data[]> {
  const res = await postJson(`${server.url}/responses`, { model: 'demo', stream: true, input, tools: TOOLS });
  return parseSse(await res.text())
    .filter((e) => e.event === 'response.output_item.done')
    .map((e) => (e.data as Data)['item'] as Data);
}

/** Runs the real `ls -la` in the workspace and wraps it the way exec_command reports output. */
async function realLsOutput(cwd: string): Promise<string> {
  const { stdout } = await promisify(execFile)('ls', ['-la'], { cwd });
  return `Chunk ID: 1a2b3c\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 40\nOutput:\n${stdout}`;
}

describe('demoScript', () => {
  it('plans, lists the workspace, then summarises the real listing', async () => {
    await mkdir(join(cwd, 'src'));
    await mkdir(join(cwd, 'docs'));
    await writeFile(join(cwd, 'README.md'), '# hi\n');
    await writeFile(join(cwd, 'notes with space.txt'), 'x');
    await writeFile(join(cwd, 'package.json'), '{}');

    const history: Data[] = [user('Show me what is in this folder.')];
    const [plan] = await ask(history);
    expect(plan).toMatchObject({ type: 'function_call', name: 'update_plan' });
    const planArgs = JSON.parse(String(plan?.['arguments'])) as { plan: { step: string; status: string }[] };
    expect(planArgs.plan).toHaveLength(3);
    expect(planArgs.plan.map((s) => s.status)).toEqual(['in_progress', 'pending', 'pending']);

    history.push(plan!, { type: 'function_call_output', call_id: plan?.['call_id'], output: 'Plan updated' });
    const [exec] = await ask(history);
    expect(exec).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(String(exec?.['arguments']))).toEqual({ cmd: 'ls -la' });

    history.push(exec!, { type: 'function_call_output', call_id: exec?.['call_id'], output: await realLsOutput(cwd) });
    const [answer] = await ask(history);
    const reply = String((answer?.['content'] as { text: string }[])[0]?.text);
    expect(reply).toContain('5 entries (2 directories, 3 files)');
    expect(reply).toContain('`docs/`');
    expect(reply).toContain('`notes with space.txt`');
    expect(reply).toMatch(/offline demo model/);
    expect(reply).toContain('OPENAI_API_KEY');
  });

  it('starts over with a plan on the next user message of the same thread', async () => {
    const [item] = await ask([user('first'), { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }, user('again')]);
    expect(item).toMatchObject({ type: 'function_call', name: 'update_plan' });
  });

  it('answers the chat wire with the same steps', async () => {
    const res = await postJson(`${server.url}/chat/completions`, {
      model: 'demo',
      stream: true,
      messages: [
        { role: 'user', content: 'look around' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'p1', type: 'function', function: { name: 'update_plan', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'p1', content: 'Plan updated' },
      ],
      tools: TOOLS.map((t) => ({ type: 'function', function: { name: t.name, parameters: {} } })),
    });
    const chunks = parseSse(await res.text()).filter((e) => e.data !== '[DONE]');
    const names = chunks.flatMap((c) =>
      (((c.data as { choices: { delta: Data }[] }).choices[0]?.delta['tool_calls'] ?? []) as { function: { name?: string } }[]).map((t) => t.function.name),
    );
    expect(names.filter((n) => n !== undefined)).toEqual(['exec_command']);
  });

  it('explains a failed listing instead of inventing one', () => {
    const reply = summariseListing('rejected by user');
    expect(reply).toContain('got no file listing back');
    expect(reply).toContain('rejected by user');
  });
});
