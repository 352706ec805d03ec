/**
 * What the model sees of skills: the `<skills_instructions>` text listing the enabled skills
 * (name, description, SKILL.md path) laid out as the reference lays it out, capped in size with a
 * warning for what was left out; and, for a turn whose input names a skill (a `skill` input part,
 * or `$name` in its text), one `<skill>` user message per named skill carrying its SKILL.md.
 */
import { readFile } from 'node:fs/promises';
import type { ResponseItem } from '../model/types.js';
import type { Skill, SkillScope } from './discovery.js';

/** Default cap on the characters of the skill list offered to the model. */
export const DEFAULT_SKILLS_INSTRUCTIONS_MAX_CHARS = 16 * 1024;
/** Longest SKILL.md attached to a turn, in characters. */
export const MAX_SKILL_BODY_CHARS = 64 * 1024;
/** Most SKILL.md text one turn's input may attach in all, in characters. */
export const MAX_SKILL_ATTACH_TOTAL_CHARS = 128 * 1024;

const SCOPE_RANK: Record<SkillScope, number> = { repo: 0, user: 1, system: 2, admin: 3 };

const HEADER = [
  '## Skills',
  'A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and file path so you can open the source for full instructions when using a specific skill.',
  '### Available skills',
];

const HOW_TO_USE = `### How to use skills
- Discovery: The list above is the skills available in this session (name + description + file path). Skill bodies live on disk at the listed paths.
- Trigger rules: If the user names a skill (with \`$SkillName\` or plain text) OR the task clearly matches a skill's description shown above, you must use that skill for that turn. Multiple mentions mean use them all. Do not carry skills across turns unless re-mentioned.
- Missing/blocked: If a named skill isn't in the list or the path can't be read, say so briefly and continue with the best fallback.
- How to use a skill (progressive disclosure):
  1) After deciding to use a skill, open its \`SKILL.md\`. Read only enough to follow the workflow.
  2) When \`SKILL.md\` references relative paths (e.g., \`scripts/foo.py\`), resolve them relative to the skill directory listed above first, and only consider other paths if needed.
  3) If \`SKILL.md\` points to extra folders such as \`references/\`, load only the specific files needed for the request; don't bulk-load everything.
  4) If \`scripts/\` exist, prefer running or patching them instead of retyping large code blocks.
  5) If \`assets/\` or templates exist, reuse them instead of recreating from scratch.
- Coordination and sequencing:
  - If multiple skills apply, choose the minimal set that covers the request and state the order you'll use them.
  - Announce which skill(s) you're using and why (one short line). If you skip an obvious skill, say why.
- Context hygiene:
  - Keep context small: summarize long sections instead of pasting them; only load extra files when needed.
  - Avoid deep reference-chasing: prefer opening only files directly linked from \`SKILL.md\` unless you're blocked.
  - When variants exist (frameworks, providers, domains), pick only the relevant reference file(s) and note that choice.
- Safety and fallback: If a skill can't be applied cleanly (missing files, unclear instructions), state the issue, pick the next-best approach, and continue.`;

/** The skills text for the model and the warning when the cap left skills out. */
export interface SkillsInstructions {
  /** The `<skills_instructions>` block, or null when no skill is enabled. */
  text: string | null;
  /** How many enabled skills the cap left out of the list. */
  omitted: number;
  warning: string | null;
}

/** The enabled skills in the order the model sees them: by scope (repository first), then name. */
export function offeredSkills(skills: readonly Skill[]): Skill[] {
  return skills.filter((s) => s.enabled).sort((a, b) => SCOPE_RANK[a.scope] - SCOPE_RANK[b.scope] || a.name.localeCompare(b.name));
}

/**
 * Renders the skill list for the model. Entries are added while the list stays within
 * `maxChars`; the rest are left out and named in the warning.
 */
export function renderSkillsInstructions(skills: readonly Skill[], maxChars: number = DEFAULT_SKILLS_INSTRUCTIONS_MAX_CHARS): SkillsInstructions {
  const offered = offeredSkills(skills);
  if (offered.length === 0) return { text: null, omitted: 0, warning: null };
  const lines: string[] = [];
  let used = 0;
  for (const skill of offered) {
    const line = `- ${skill.name}: ${skill.description} (file: ${skill.path.replace(/\\/g, '/')})`;
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  const omitted = offered.length - lines.length;
  const warning =
    omitted > 0
      ? `${omitted} of ${offered.length} enabled skills were left out of the model's instructions: the skill list is capped at ${maxChars} characters. Disable skills you do not need or name them with $name.`
      : null;
  if (lines.length === 0) return { text: null, omitted, warning };
  const text = ['<skills_instructions>', ...HEADER, ...lines, HOW_TO_USE, '</skills_instructions>'].join('\n');
  return { text, omitted, warning };
}

/** Names that look like `$NAME` mentions but are environment variables. */
const COMMON_ENV_VARS = new Set(['PATH', 'HOME', 'USER', 'SHELL', 'PWD', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'TERM', 'XDG_CONFIG_HOME']);

/** The `$name` mentions in `text` (letters, digits, `_`, `-`, `:`), in order, once each. */
export function extractSkillMentions(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/\$([A-Za-z0-9_:-]+)/g)) {
    const name = match[1] as string;
    if (!COMMON_ENV_VARS.has(name) && !names.includes(name)) names.push(name);
  }
  return names;
}

/** A piece of turn input, as far as skills care. */
export type SkillInputPart = { type: 'text'; text: string } | { type: 'skill'; name: string; path: string } | { type: string };

/**
 * The enabled skills a turn's input names: `skill` parts by path first, then `$name` mentions
 * that match exactly one enabled skill, each skill once.
 */
export function mentionedSkills(input: readonly SkillInputPart[], skills: readonly Skill[]): Skill[] {
  const enabled = skills.filter((s) => s.enabled);
  const selected: Skill[] = [];
  const add = (s: Skill | undefined): void => {
    if (s && !selected.some((x) => x.path === s.path)) selected.push(s);
  };
  for (const part of input) if (part.type === 'skill' && 'path' in part) add(enabled.find((s) => s.path === part.path));
  for (const part of input) {
    if (part.type !== 'text' || !('text' in part)) continue;
    for (const name of extractSkillMentions(part.text)) {
      const matches = enabled.filter((s) => s.name === name);
      if (matches.length === 1) add(matches[0]);
    }
  }
  return selected;
}

/** The `<skill>` message that attaches a skill's SKILL.md to a turn. */
export function skillMessage(name: string, path: string, contents: string): ResponseItem {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<skill>\n<name>${name}</name>\n<path>${path}</path>\n${contents}\n</skill>` }] };
}

/**
 * Reads each named skill's SKILL.md into its `<skill>` message (each cut at
 * {@link MAX_SKILL_BODY_CHARS}); a file that cannot be read, or that would take the turn past
 * {@link MAX_SKILL_ATTACH_TOTAL_CHARS}, is a warning instead.
 */
export async function skillInjections(skills: readonly Skill[]): Promise<{ items: ResponseItem[]; warnings: string[] }> {
  const items: ResponseItem[] = [];
  const warnings: string[] = [];
  let total = 0;
  for (const skill of skills) {
    try {
      const contents = (await readFile(skill.path, 'utf8')).slice(0, MAX_SKILL_BODY_CHARS);
      if (total + contents.length > MAX_SKILL_ATTACH_TOTAL_CHARS) {
        warnings.push(`Skill ${skill.name} was not attached: the skills named in one turn are capped at ${MAX_SKILL_ATTACH_TOTAL_CHARS} characters`);
        continue;
      }
      total += contents.length;
      items.push(skillMessage(skill.name, skill.path, contents));
    } catch (e) {
      warnings.push(`Failed to load skill ${skill.name} at ${skill.path}: ${(e as Error).message}`);
    }
  }
  return { items, warnings };
}
