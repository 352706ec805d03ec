/**
 * The offline demo through the built server: with no API key and no configured provider, the
 * bundled app-server says on stderr that it serves the demo model, and a turn runs on the demo
 * model the engine starts itself (a plan, `ls -la` in the workspace, an answer from the real
 * listing), so the bundle carries the demo; and no chunk of the bundle comes from test-support.
 * The turn is driven as a user's script would, with @deputy/client.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DeputyClient } from '@deputy/client';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { BUILD_TIMEOUT_MS, ensureBuilt, MAIN_JS, spawnServer, type ServerProcess } from './support/server-process.js';

let temp: TempHome | undefined;
let server: ServerProcess | undefined;
let client: DeputyClient | undefined;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await server?.stop();
  server = undefined;
  await temp?.cleanup();
  temp = undefined;
});

describe('the offline demo model', () => {
  it('serves a turn without a key or a provider and says so on stderr', async () => {
    temp = await makeTempHome('deputy-as-demo-');
    await writeFile(join(temp.cwd, 'notes-for-demo.txt'), 'hello');
    server = await spawnServer(temp, ['stdio://'], [], { OPENAI_API_KEY: '' });
    client = await connect({ stdio: { input: server.child.stdout, output: server.child.stdin }, timeoutMs: 20_000 });
    const { thread, modelProvider } = await client.request('thread/start', {});
    expect(modelProvider).toBe('demo');
    const events = client.notifications({ threadId: thread.id });
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'what is in this folder?' }] });
    let answer = '';
    for await (const event of events) {
      if (event.method === 'item/completed' && event.params.item.type === 'agentMessage') answer = event.params.item.text;
      if (event.method === 'turn/completed') {
        expect(event.params.turn.status).toBe('completed');
        break;
      }
    }
    expect(answer).toContain('notes-for-demo.txt');
    expect(answer).toMatch(/offline demo model/);
    expect(server.stderr()).toContain('serving the built-in offline demo model');
  }, 30_000);

  it('is bundled from demo-model; no chunk of the bundle comes from test-support', async () => {
    const bundle = dirname(MAIN_JS);
    // The chunks are converted to CommonJS after bundling, which drops esbuild's module comments;
    // modules.json lists the source modules of each chunk.
    const files = await readdir(bundle);
    const modules = JSON.parse(await readFile(join(bundle, 'modules.json'), 'utf8')) as Record<string, string[]>;
    expect(Object.keys(modules).sort()).toEqual(files.filter((f) => f.endsWith('.js') && f !== 'main.js').sort());
    const inputs = Object.values(modules).flat();
    expect(inputs.filter((input) => input.includes('test-support'))).toEqual([]);
    expect(inputs.some((input) => input.startsWith('packages/demo-model/'))).toBe(true);
  });
});
