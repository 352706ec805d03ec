/**
 * The offline demo through the built server: with no API key and no configured provider, a
 * `codex` call runs a full turn on the demo model the engine starts itself (a plan, `ls -la` in
 * the workspace, an answer computed from the real listing), so the bundle carries the demo; and
 * no chunk of the bundle comes from test-support.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { connectV1, type V1Session } from '../helpers/clients.js';
import { SERVER_MAIN } from '../helpers/harness.js';

let temp: TempHome | undefined;
let session: V1Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await temp?.cleanup();
  temp = undefined;
});

describe('the offline demo model', () => {
  it('answers a codex call without a key or a provider, from the real listing of the workspace', async () => {
    temp = await makeTempHome('deputy-mcp-demo-');
    await writeFile(join(temp.cwd, 'notes-for-demo.txt'), 'hello');
    await mkdir(join(temp.cwd, 'src-folder'));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: temp.home, DEPUTY_HOME: temp.home, DEPUTY_LOG: 'warn' };
    session = await connectV1({ env, cwd: temp.cwd });
    const result = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'what is in this folder?', cwd: temp.cwd } })) as {
      content: { type: string; text: string }[];
      isError?: boolean;
    };
    expect(result.isError).toBeFalsy();
    const answer = result.content[0]?.text ?? '';
    expect(answer).toMatch(/2 entries/);
    expect(answer).toContain('notes-for-demo.txt');
    expect(answer).toMatch(/offline demo model/);
  }, 30_000);

  it('is bundled from demo-model; no chunk of the bundle comes from test-support', async () => {
    const bundle = dirname(SERVER_MAIN);
    // The chunks are converted to CommonJS after bundling, which drops esbuild's module comments;
    // modules.json lists the source modules of each chunk.
    const files = await readdir(bundle);
    const modules = JSON.parse(await readFile(join(bundle, 'modules.json'), 'utf8')) as Record<string, string[]>;
    expect(Object.keys(modules).sort()).toEqual(files.filter((f) => f.endsWith('.js') && f !== 'main.js').sort());
    const inputs = Object.values(modules).flat();
    expect(inputs.filter((input) => input.includes('test-support'))).toEqual([]);
    expect(inputs.some((input) => input.startsWith('packages/demo-model/'))).toBe(true);
    // The SDK server's shims are Deputy's (src/sdk-shims.ts): its AJV validator is not bundled.
    expect(inputs).toContain('apps/mcp-server/dist/sdk-shims.js');
    expect(inputs.filter((input) => /@modelcontextprotocol\/server\/dist\/(ajvProvider|shimsNode)/.test(input))).toEqual([]);
  });
});
