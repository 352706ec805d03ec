/**
 * Contract tests of what clients call at start-up: account, models, skills, hooks, config
 * (docs/app-server.md "Methods served").
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessPerTest } from './support/harness.js';

const harness = harnessPerTest();

describe('account', () => {
  it('reports no OpenAI account for a provider that does not use OpenAI auth', async () => {
    const client = await (await harness()).connect();
    expect(await client.call('account/read', { refreshToken: false })).toEqual({ account: null, requiresOpenaiAuth: false });
    expect((await client.request('account/rateLimits/read')).error).toEqual({ code: -32600, message: 'codex account authentication required to read rate limits' });
  });

  it('reports an API-key account when the provider uses OpenAI auth and a key is stored', async () => {
    const server = await harness({ extraToml: 'requires_openai_auth = true', homeFiles: { 'auth.json': JSON.stringify({ OPENAI_API_KEY: 'sk-test' }) } });
    const client = await server.connect();
    expect(await client.call('account/read', { refreshToken: false })).toEqual({ account: { type: 'apiKey' }, requiresOpenaiAuth: true });
    expect((await client.request('account/rateLimits/read')).error?.message).toBe('chatgpt authentication required to read rate limits');
  });
});

describe('model/list', () => {
  it('lists the provider catalogue with the configured model first and default, and pages by offset', async () => {
    const server = await harness();
    const client = await server.connect();
    const all = await client.call<{ data: Array<{ id: string; isDefault: boolean; supportedReasoningEfforts: Array<{ reasoningEffort: string }>; defaultReasoningEffort: string }>; nextCursor: null }>(
      'model/list',
      { cursor: null, limit: null, includeHidden: true },
    );
    expect(all.data.map((m) => m.id)).toEqual(['mock-model', 'gpt-5.2-codex', 'gpt-4.1']);
    expect(all.data.map((m) => m.isDefault)).toEqual([true, false, false]);
    const codex = all.data[1];
    expect(codex?.supportedReasoningEfforts.map((e) => e.reasoningEffort)).toEqual(['low', 'medium', 'high', 'xhigh']);
    expect(codex?.defaultReasoningEffort).toBe('medium');
    const page = await client.call<{ data: Array<{ id: string }>; nextCursor: string | null }>('model/list', { limit: 2 });
    expect(page).toMatchObject({ nextCursor: '2' });
    const rest = await client.call<{ data: Array<{ id: string }>; nextCursor: string | null }>('model/list', { cursor: '2' });
    expect(rest).toEqual({ data: [expect.objectContaining({ id: 'gpt-4.1' })], nextCursor: null });
    expect(server.model.requests.filter((r) => r.wire === 'models')).toHaveLength(1);
  });

  it('falls back to the configured model when the provider cannot list its models', async () => {
    const server = await harness();
    await server.model.close();
    const client = await server.connect();
    const result = await client.call<{ data: Array<{ id: string }> }>('model/list', {});
    expect(result.data.map((m) => m.id)).toEqual(['mock-model']);
  });
});

describe('skills/list and hooks/list', () => {
  it('answers with empty lists when there are no skills and no hooks', async () => {
    const server = await harness();
    const client = await server.connect();
    expect(await client.call('skills/list', { cwds: [server.temp.cwd], forceReload: true })).toEqual({ data: [{ cwd: server.temp.cwd, skills: [], errors: [] }] });
    expect(await client.call('hooks/list', { cwds: [server.temp.cwd] })).toEqual({ data: [{ cwd: server.temp.cwd, hooks: [], warnings: [], errors: [] }] });
  });

  it('discovers user and workspace skills and reports broken ones', async () => {
    const server = await harness();
    const write = async (dir: string, body: string) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), body);
    };
    await write(join(server.temp.home, 'skills', 'release'), '---\nname: release\ndescription: "Cut a release"\nmetadata:\n  short-description: Releases\n---\nSteps…');
    await write(join(server.temp.cwd, '.deputy', 'skills', 'lint'), '---\nname: lint\ndescription: Run the linters\n---\n');
    await write(join(server.temp.cwd, '.codex', 'skills', 'broken'), 'no front matter here');
    const client = await server.connect();
    const result = await client.call<{ data: Array<{ skills: Array<Record<string, unknown>>; errors: Array<{ path: string }> }> }>('skills/list', {});
    const [entry] = result.data;
    expect(entry?.skills.map((s) => [s.name, s.scope])).toEqual([['lint', 'repo'], ['release', 'user']]);
    expect(entry?.skills[1]).toMatchObject({ description: 'Cut a release', shortDescription: 'Releases', path: join(server.temp.home, 'skills', 'release', 'SKILL.md'), enabled: true });
    expect(entry?.errors.map((e) => e.path)).toEqual([join(server.temp.cwd, '.codex', 'skills', 'broken', 'SKILL.md')]);
  });

  it('lists hooks from the config and hooks.json with their trust, asking for review of untrusted ones', async () => {
    const server = await harness({
      extraToml: '\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "./check.sh"\ntimeout = 30\nstatusMessage = "checking"\n',
    });
    await writeFile(join(server.temp.home, 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }], Nope: [] } }));
    const client = await server.connect();
    const result = await client.call<{ data: Array<{ hooks: Array<Record<string, unknown>>; warnings: string[] }> }>('hooks/list', {});
    const [entry] = result.data;
    expect(entry?.hooks.map((x) => [x.eventName, x.command, x.matcher, x.timeoutSec, x.statusMessage])).toEqual([
      ['stop', 'notify-send done', null, 600, null],
      ['preToolUse', './check.sh', '^Bash$', 30, 'checking'],
    ]);
    expect(entry?.hooks.map((x) => x.trustStatus)).toEqual(['untrusted', 'untrusted']);
    expect(entry?.hooks[0]?.key).toBe(`${join(server.temp.home, 'hooks.json')}:stop:0:0`);
    expect(entry?.warnings).toContainEqual(expect.stringContaining('2 hooks need review'));
    expect(entry?.warnings).toContainEqual(expect.stringContaining('unknown hook event `Nope`'));
  });
});

describe('config and other lists', () => {
  it('reads the config with origins and layers, session flags first', async () => {
    const server = await harness({ overrides: ['model_reasoning_effort="low"'] });
    const client = await server.connect();
    const result = await client.call<{ config: Record<string, unknown>; origins: Record<string, { name: { type: string } }>; layers?: Array<{ name: { type: string }; version: string }> }>(
      'config/read',
      { includeLayers: true },
    );
    expect(result.config).toMatchObject({ model: 'mock-model', model_provider: 'mock', model_reasoning_effort: 'low', review_model: null });
    expect(result.origins.model?.name.type).toBe('user');
    expect(result.origins.model_reasoning_effort?.name.type).toBe('sessionFlags');
    expect(result.layers?.map((l) => l.name.type)).toEqual(['sessionFlags', 'user']);
    expect(result.layers?.[1]?.version).toMatch(/^sha256:[0-9a-f]{64}$/);
    const plain = await client.call<Record<string, unknown>>('config/read', {});
    expect(plain.layers).toBeUndefined();
    expect(await client.call('configRequirements/read')).toEqual({ requirements: null });
  });

  it('answers the remaining start-up lists with their documented empty shapes', async () => {
    const client = await (await harness()).connect();
    expect(await client.call('app/list', {})).toEqual({ data: [], nextCursor: null });
    expect(await client.call('experimentalFeature/list', {})).toEqual({ data: [], nextCursor: null });
    expect(await client.call('modelProvider/capabilities/read', {})).toEqual({ namespaceTools: false, imageGeneration: false, webSearch: false });
  });
});
