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
    const files = await readdir(bundle);
    const texts = await Promise.all(files.filter((f) => /\.js(\.map)?$/.test(f)).map(async (f) => [f, await readFile(join(bundle, f), 'utf8')] as const));
    expect(texts.filter(([, text]) => text.includes('test-support')).map(([f]) => f)).toEqual([]);
    expect(texts.some(([, text]) => text.includes('packages/demo-model/'))).toBe(true);
  });
});
