/**
 * Resuming replays a thread's rollout lazily: the thread is usable at once, its message view is
 * built without parsing big tool items, and the full history and turns appear on first use.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, inputItems, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

let server: ScriptedModelServer | null = null;
let temp: TempHome | null = null;
const engines: TestEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
  await server?.close();
  await temp?.cleanup();
  server = null;
  temp = null;
});

describe('a resumed thread', () => {
  it('is usable before its history is replayed, and replays it on first use', async () => {
    server = await startScriptedModelServer();
    temp = await makeTempHome();
    const first = await startTestEngine({ server, temp });
    engines.push(first);
    server.enqueue({ output: [functionCall('exec_command', { cmd: 'head -c 400000 /dev/zero | tr "\\0" x' })] }, { output: [text('printed many x')] });
    const thread = await first.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'print a lot' }]).done;
    await first.manager.close();

    const second = await startTestEngine({ server, temp });
    engines.push(second);
    const resumed = await second.manager.resume(thread.id);
    expect(resumed.isDeferred).toBe(true);
    const view = resumed.messageTurns();
    expect(resumed.isDeferred).toBe(true);
    expect(view).toHaveLength(1);
    expect(view[0]?.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
    expect(view[0]?.info.status).toBe('completed');

    expect(resumed.turns[0]?.items.map((i) => i.type)).toEqual(['userMessage', 'commandExecution', 'agentMessage']);
    expect(resumed.isDeferred).toBe(false);

    server.enqueue({ output: [text('again')] });
    const before = server.requests.length;
    const turn = await resumed.startTurn([{ type: 'text', text: 'and now?' }]).done;
    expect(turn.status).toBe('completed');
    const sent = JSON.stringify(inputItems(server.requests[before]!));
    expect(sent).toContain('print a lot');
    expect(sent).toContain('printed many x');
  });
});
