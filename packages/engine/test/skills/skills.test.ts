/**
 * Skills: SKILL.md front matter, discovery from the reference's roots (closest repository root
 * first, broken files as errors), enabling by `[[skills.config]]`, the capped list the model
 * sees, and which skills a turn's input names.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { discoverSkills, isSkillEnabled, skillToggles, type Skill } from '../../src/skills/discovery.js';
import { extractSkillMentions, mentionedSkills, renderSkillsInstructions, skillInjections } from '../../src/skills/instructions.js';
import { parseSkillFile } from '../../src/skills/skill-file.js';

let temp: TempHome | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

async function skillAt(dir: string, text: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), text);
  return join(dir, 'SKILL.md');
}

function skill(name: string, extra: Partial<Skill> = {}): Skill {
  return { name, description: `does ${name}`, shortDescription: null, path: `/s/${name}/SKILL.md`, scope: 'user', enabled: true, ...extra };
}

describe('SKILL.md front matter', () => {
  it.each([
    ['---\nname: deploy\ndescription: "Ship it: carefully"\nmetadata:\n  short-description: Ship\n---\nbody', { name: 'deploy', description: 'Ship it: carefully', metadata: { 'short-description': 'Ship' } }],
    ["---\nname: 'it''s'\ndescription: |\n  line one\n  line two\n---\n", { name: "it's", description: 'line one\nline two' }],
    ['---\nname: fold\ndescription: >-\n  one\n  two\n# comment\n---\n', { name: 'fold', description: 'one two' }],
  ])('reads %j', (text, expected) => {
    expect(parseSkillFile(text)).toEqual(expected);
  });

  it.each([
    ['# just markdown', 'missing YAML frontmatter delimited by ---'],
    ['---\nname: x\n', 'unterminated YAML frontmatter: no closing ---'],
    ['---\nname: x\n---\n', 'invalid SKILL.md frontmatter: missing field `description`'],
    [`---\nname: ${'n'.repeat(65)}\ndescription: d\n---\n`, 'invalid SKILL.md frontmatter: name: name exceeds 64 characters'],
  ])('refuses %j', (text, error) => {
    expect(parseSkillFile(text)).toEqual({ error });
  });
});

describe('discovery', () => {
  it('reads repository roots from the cwd up to the repository root, then the user roots, and reports broken files', async () => {
    temp = await makeTempHome('deputy-skills-');
    const repo = temp.cwd;
    await mkdir(join(repo, '.git'));
    const sub = join(repo, 'pkg');
    const near = await skillAt(join(sub, '.codex', 'skills', 'near'), '---\nname: near\ndescription: closest\n---\n');
    const far = await skillAt(join(repo, '.agents', 'skills', 'group', 'far'), '---\nname: far\ndescription: at the root, nested\n---\n');
    const user = await skillAt(join(temp.home, 'skills', 'mine'), '---\nname: mine\ndescription: the user one\n---\n');
    const agents = await skillAt(join(temp.home, 'os-home', '.agents', 'skills', 'shared'), '---\nname: shared\ndescription: from ~/.agents\n---\n');
    const system = await skillAt(join(temp.home, 'skills', '.system', 'sys'), '---\nname: sys\ndescription: system\n---\n');
    const broken = await skillAt(join(temp.home, 'skills', 'broken'), 'no front matter');
    const set = await discoverSkills({ home: temp.home, cwd: sub, userHome: join(temp.home, 'os-home'), skillsTable: { config: [{ path: user, enabled: false }, { name: 'sys', enabled: false }, { name: 'sys', enabled: true }] } });
    expect(set.skills.map((s) => [s.name, s.scope, s.path, s.enabled])).toEqual([
      ['near', 'repo', near, true],
      ['far', 'repo', far, true],
      ['mine', 'user', user, false],
      ['shared', 'user', agents, true],
      ['sys', 'system', system, true],
    ]);
    expect(set.errors).toEqual([{ path: broken, message: 'missing YAML frontmatter delimited by ---' }]);
  });

  it('keeps valid [[skills.config]] entries only, the last one naming a skill winning', () => {
    const toggles = skillToggles({ config: [{ name: 'a', enabled: false }, { enabled: true }, 'junk', { path: '/s/a/SKILL.md', enabled: true }] });
    expect(toggles).toHaveLength(2);
    expect(isSkillEnabled({ name: 'a', path: '/s/a/SKILL.md' }, toggles)).toBe(true);
    expect(isSkillEnabled({ name: 'a', path: '/other' }, toggles)).toBe(false);
  });
});

describe('what the model sees', () => {
  it('lists enabled skills repository first, then by name, and caps the list with a warning', () => {
    const skills = [skill('zeta'), skill('alpha'), skill('repo-one', { scope: 'repo' }), skill('off', { enabled: false })];
    const full = renderSkillsInstructions(skills);
    expect(full.warning).toBeNull();
    expect(full.text?.split('\n').filter((l) => l.startsWith('- ') && l.includes('(file: '))).toEqual([
      '- repo-one: does repo-one (file: /s/repo-one/SKILL.md)',
      '- alpha: does alpha (file: /s/alpha/SKILL.md)',
      '- zeta: does zeta (file: /s/zeta/SKILL.md)',
    ]);
    const capped = renderSkillsInstructions(skills, 80);
    expect(capped.omitted).toBe(2);
    expect(capped.text).toContain('- repo-one:');
    expect(capped.text).not.toContain('- alpha:');
    expect(capped.warning).toMatch(/^2 of 3 enabled skills were left out .* capped at 80 characters/);
    expect(renderSkillsInstructions([skill('off', { enabled: false })])).toEqual({ text: null, omitted: 0, warning: null });
  });

  it('finds $name mentions, skips environment variables, and resolves only unambiguous enabled names', () => {
    expect(extractSkillMentions('use $deploy and $PATH, then $deploy again or $ci:fast')).toEqual(['deploy', 'ci:fast']);
    const skills = [skill('deploy'), skill('twin', { path: '/a/SKILL.md' }), skill('twin', { path: '/b/SKILL.md' }), skill('off', { enabled: false })];
    const named = mentionedSkills(
      [
        { type: 'text', text: '$twin $off $deploy $missing' },
        { type: 'skill', name: 'twin', path: '/b/SKILL.md' },
      ],
      skills,
    );
    expect(named.map((s) => s.path)).toEqual(['/b/SKILL.md', '/s/deploy/SKILL.md']);
  });
});

describe('attaching skills', () => {
  it('reads each named SKILL.md into a <skill> message, cut per file and capped per turn, with warnings', async () => {
    temp = await makeTempHome('deputy-skills-');
    const big = 'b'.repeat(70 * 1024);
    const paths = await Promise.all(['one', 'two', 'three'].map((n) => skillAt(join(temp?.home ?? '', n), big)));
    const named = paths.map((path, i) => skill(['one', 'two', 'three'][i] as string, { path }));
    const missing = skill('gone', { path: join(temp.home, 'gone', 'SKILL.md') });
    const { items, warnings } = await skillInjections([...named, missing]);
    expect(items).toHaveLength(2);
    expect(items[0]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `<skill>\n<name>one</name>\n<path>${paths[0]}</path>\n${'b'.repeat(64 * 1024)}\n</skill>` }] });
    expect(warnings).toEqual([
      'Skill three was not attached: the skills named in one turn are capped at 131072 characters',
      expect.stringMatching(/^Failed to load skill gone at .*gone\/SKILL.md: ENOENT/),
    ]);
  });
});
