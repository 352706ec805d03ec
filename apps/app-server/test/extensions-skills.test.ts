/**
 * Skills over the app-server with the scripted model (docs/extensions.md "Skills"): the skill
 * list reaches the model request as the reference lays it out, a `$name` mention and a `skill`
 * input attach the SKILL.md, a broken skill is a `skills/list` error, `skills/config/write`
 * disables a skill for the next turn, and a change on disk sends `skills/changed`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '@deputy/test-support';
import { harnessPerTest, isolateUserHome, type Harness } from './support/harness.js';
import { problemsAgainstDefinition } from '../../../packages/protocol/test/support/reference-schema.js';
import { runTurn, startThread } from './support/turns.js';

const harness = harnessPerTest();
// `~/.agents/skills` and the login shell's start-up files come from an empty HOME, not the host's.
isolateUserHome();

async function writeSkill(dir: string, text: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'SKILL.md');
  await writeFile(file, text);
  return file;
}

/** Every input text of the last Responses request, per message role. */
function lastRequestTexts(server: Harness): Array<{ role: string; text: string }> {
  const request = server.model.requests.filter((r: RecordedRequest) => r.wire === 'responses').at(-1);
  const input = (request?.body.input ?? []) as Array<{ type: string; role?: string; content?: Array<{ text?: string }> }>;
  return input.filter((i) => i.type === 'message').flatMap((i) => (i.content ?? []).map((c) => ({ role: i.role ?? '', text: c.text ?? '' })));
}

describe('skills reach the model', () => {
  it('lists enabled skills in the developer message, attaches a $name mention and reports a broken skill', async () => {
    const server = await harness();
    const deploy = await writeSkill(join(server.temp.home, 'skills', 'deploy'), '---\nname: deploy\ndescription: Ship the service safely\n---\n# Deploy\nRun ./ship.sh and watch the canary.\n');
    const lint = await writeSkill(join(server.temp.cwd, '.agents', 'skills', 'lint'), '---\nname: lint\ndescription: >\n  Run every linter\n  of the repository\n---\nUse pnpm lint.\n');
    const broken = await writeSkill(join(server.temp.cwd, '.codex', 'skills', 'broken'), '---\nname: broken\n---\nno description');
    const client = await server.connect();

    const listed = await client.call<{ data: Array<{ skills: Array<{ name: string; path: string; scope: string }>; errors: Array<{ path: string; message: string }> }> }>('skills/list', { cwds: [server.temp.cwd] });
    expect(listed.data[0]?.skills.map((s) => [s.name, s.scope, s.path])).toEqual([['lint', 'repo', lint], ['deploy', 'user', deploy]]);
    expect(listed.data[0]?.errors).toEqual([{ path: broken, message: expect.stringContaining('missing field `description`') }]);
    expect(problemsAgainstDefinition('SkillsListResponse', listed, '0.171')).toEqual([]);

    const { id } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, id, 'please use $deploy now');
    const texts = lastRequestTexts(server);
    const developer = texts.filter((t) => t.role === 'developer');
    expect(developer[0]?.text).toContain('<permissions instructions>');
    const skills = developer[1]?.text ?? '';
    expect(skills.startsWith('<skills_instructions>\n## Skills\nA skill is a set of local instructions')).toBe(true);
    expect(skills).toContain(`- lint: Run every linter of the repository (file: ${lint})\n- deploy: Ship the service safely (file: ${deploy})\n### How to use skills\n`);
    expect(skills).not.toContain('broken');
    expect(skills.endsWith('</skills_instructions>')).toBe(true);
    const user = texts.filter((t) => t.role === 'user').map((t) => t.text);
    const mentionAt = user.indexOf('please use $deploy now');
    expect(mentionAt).toBeGreaterThanOrEqual(0);
    expect(user[mentionAt + 1]).toBe(`<skill>\n<name>deploy</name>\n<path>${deploy}</path>\n---\nname: deploy\ndescription: Ship the service safely\n---\n# Deploy\nRun ./ship.sh and watch the canary.\n\n</skill>`);
    expect(user.filter((t) => t.startsWith('<skill>'))).toHaveLength(1);
  });

  it('attaches a skill input item, and leaves a disabled skill out of the next turns', async () => {
    const server = await harness();
    const lint = await writeSkill(join(server.temp.cwd, '.codex', 'skills', 'lint'), '---\nname: lint\ndescription: Run the linters\n---\nUse pnpm lint.\n');
    const client = await server.connect();
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    const start = await client.call<{ turn: { id: string } }>('turn/start', { threadId: id, input: [{ type: 'text', text: 'lint it' }, { type: 'skill', name: 'lint', path: lint }] });
    await client.waitForNotification('turn/completed', (p) => (p.turn as { id: string }).id === start.turn.id);
    expect(lastRequestTexts(server).some((t) => t.role === 'user' && t.text.startsWith(`<skill>\n<name>lint</name>\n<path>${lint}</path>\n`))).toBe(true);

    const written = await client.call('skills/config/write', { path: lint, enabled: false });
    expect(written).toEqual({ effectiveEnabled: false });
    expect(problemsAgainstDefinition('SkillsConfigWriteResponse', written, '0.171')).toEqual([]);
    const listed = await client.call<{ data: Array<{ skills: Array<{ enabled: boolean }> }> }>('skills/list', { cwds: [server.temp.cwd] });
    expect(listed.data[0]?.skills.map((s) => s.enabled)).toEqual([false]);

    const { id: second } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, second, 'use $lint');
    const texts = lastRequestTexts(server);
    expect(texts.some((t) => t.text.includes('<skills_instructions>'))).toBe(false);
    expect(texts.some((t) => t.text.startsWith('<skill>'))).toBe(false);
  });

  it('caps the skill list the model sees and warns about the skills left out', async () => {
    const server = await harness();
    for (let i = 0; i < 20; i++) {
      const name = `skill-${String(i).padStart(2, '0')}`;
      await writeSkill(join(server.temp.home, 'skills', name), `---\nname: ${name}\ndescription: ${'x'.repeat(1000)}\n---\n`);
    }
    const client = await server.connect();
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, id, 'hello');
    const listed = lastRequestTexts(server).find((t) => t.text.startsWith('<skills_instructions>'))?.text ?? '';
    const lines = listed.split('\n').filter((l) => l.startsWith('- skill-'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(20);
    const warnings = client.notifications('warning').map((n) => n.params.message as string);
    expect(warnings).toContainEqual(`${20 - lines.length} of 20 enabled skills were left out of the model's instructions: the skill list is capped at 16384 characters. Disable skills you do not need or name them with $name.`);
  });

  it('sends skills/changed after a skill file changes', async () => {
    const server = await harness();
    const dir = join(server.temp.home, 'skills', 'notes');
    await writeSkill(dir, '---\nname: notes\ndescription: Take notes\n---\n');
    const client = await server.connect();
    await client.call('skills/list', {});
    const changed = client.waitForNotification('skills/changed', () => true, 5000);
    await writeFile(join(dir, 'SKILL.md'), '---\nname: notes\ndescription: Take better notes\n---\n');
    expect((await changed).params).toEqual({});
  });
});
