/**
 * End-to-end over stdio with the built server (docs/extensions.md): a user skill reaches the
 * scripted model's request, and a trusted PreToolUse hook blocks one command and lets another
 * run (checked on the host), its `hook/started` / `hook/completed` matching both reference
 * schemas (0.130 by the wire validator, 0.171 here).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { problemsAgainstDefinition } from '../../../../packages/protocol/test/support/reference-schema.js';
import { runTurn, startThread } from '../support/turns.js';
import type { WireClient } from '../support/wire-client.js';
import { WireValidator } from '../support/wire-validator.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, stdioClient, type ServerProcess } from './support/server-process.js';

let model: ScriptedModelServer;
let temp: TempHome;
let userHome: string;
let server: ServerProcess | undefined;
let client: WireClient | undefined;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
  // An empty HOME: no host shell start-up files, no host ~/.agents/skills.
  userHome = mkdtempSync(join(tmpdir(), 'deputy-e2e-user-'));
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await server?.stop();
  server = undefined;
  await model.close();
  await temp.cleanup();
  rmSync(userHome, { recursive: true, force: true });
});

describe('skills and hooks through the built server', () => {
  it('offers a user skill to the model and blocks a command with a trusted PreToolUse hook', async () => {
    const skillDir = join(temp.home, 'skills', 'tidy');
    await mkdir(skillDir, { recursive: true });
    await writeFile(join(skillDir, 'SKILL.md'), '---\nname: tidy\ndescription: Keep the workspace tidy\n---\nRemove temp files.\n');
    await writeFile(
      join(temp.home, 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: `grep -q secret-plan && { echo 'not the secret plan' >&2; exit 2; }; exit 0`, timeout: 10 }] }] } }),
    );
    server = await spawnServer(temp, ['stdio://'], [], { HOME: userHome });
    const validator = new WireValidator();
    client = stdioClient(server, validator);
    await client.initialize({});

    const listed = await client.call<{ data: Array<{ hooks: Array<{ key: string; currentHash: string; trustStatus: string }> }> }>('hooks/list', {});
    const [hook] = listed.data[0]?.hooks ?? [];
    expect(hook?.trustStatus).toBe('untrusted');
    await client.call('config/value/write', { keyPath: `hooks.state."${hook?.key}".trusted_hash`, value: hook?.currentHash, mergeStrategy: 'replace' });

    const { id } = await startThread(client, { cwd: temp.cwd });
    await runTurn(client, id, 'run: touch secret-plan.txt');
    await runTurn(client, id, 'run: touch public-plan.txt');
    expect(existsSync(join(temp.cwd, 'secret-plan.txt'))).toBe(false);
    expect(existsSync(join(temp.cwd, 'public-plan.txt'))).toBe(true);

    const first = model.requests.find((r) => r.wire === 'responses');
    const developer = JSON.stringify(first?.body.input ?? []);
    expect(developer).toContain(`- tidy: Keep the workspace tidy (file: ${join(skillDir, 'SKILL.md')})`);

    const runs = client.notifications().filter((n) => n.method === 'hook/started' || n.method === 'hook/completed');
    expect(runs.map((n) => [n.method, (n.params.run as { status: string }).status])).toEqual([
      ['hook/started', 'running'],
      ['hook/completed', 'blocked'],
      ['hook/started', 'running'],
      ['hook/completed', 'completed'],
    ]);
    for (const n of runs) expect(problemsAgainstDefinition(n.method === 'hook/started' ? 'HookStartedNotification' : 'HookCompletedNotification', n.params, '0.171')).toEqual([]);
    expect(validator.problems).toEqual([]);
  });
});
