/**
 * Skill discovery for `skills/list`: every `<root>/<skill>/SKILL.md` under the user's
 * `<home>/skills` and, for a workspace, under `.deputy/skills`, `.codex/skills` and
 * `.agents/skills` of each directory from the repository root down to the cwd. A SKILL.md starts
 * with YAML front matter naming the skill (`name`, `description`, optional
 * `metadata.short-description`); files without it are reported as load errors, not skipped
 * silently. The closest definition of a name wins. Read-only; nothing is cached here.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { workspaceDirs } from '@deputy/engine/facts';
import type { AppServer } from '@deputy/protocol';

/** Folders of a workspace directory that hold skills (Deputy's own, then Codex's). */
export const WORKSPACE_SKILL_DIRS = ['.deputy/skills', '.codex/skills', '.agents/skills'];

/** What a SKILL.md front matter declares. */
export interface SkillFrontMatter {
  name: string;
  description: string;
  shortDescription: string | null;
}

function unquote(raw: string): string {
  const v = raw.trim();
  if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) {
    return v.startsWith('"') ? (JSON.parse(v) as string) : v.slice(1, -1).replace(/''/g, "'");
  }
  return v;
}

/**
 * Parses the front matter of a SKILL.md: top-level `key: value` lines and one level of nesting
 * (`metadata:` followed by indented keys). Returns an error message when it is missing or
 * incomplete.
 */
export function parseSkillFrontMatter(text: string): SkillFrontMatter | { error: string } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { error: 'missing YAML frontmatter delimited by ---' };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (end < 0) return { error: 'unterminated YAML frontmatter: no closing ---' };
  const top: Record<string, string> = {};
  const nested: Record<string, string> = {};
  let section: string | null = null;
  for (const line of lines.slice(1, end)) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const match = /^(\s*)([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, indent = '', key = '', value = ''] = match;
    if (indent.length === 0) {
      section = value.trim() === '' ? key : null;
      if (value.trim() !== '') top[key] = unquote(value);
    } else if (section !== null) {
      nested[`${section}.${key}`] = unquote(value);
    }
  }
  const name = top.name?.trim();
  const description = top.description?.trim();
  if (!name) return { error: 'missing field `name` in SKILL.md frontmatter' };
  if (!description) return { error: 'missing field `description` in SKILL.md frontmatter' };
  return { name, description, shortDescription: nested['metadata.short-description'] ?? top['short-description'] ?? null };
}

async function subdirectories(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

async function loadRoot(root: string, scope: AppServer.SkillMetadata['scope'], out: AppServer.SkillMetadata[], errors: AppServer.LoadError[]): Promise<void> {
  for (const name of await subdirectories(root)) {
    const file = path.join(root, name, 'SKILL.md');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') errors.push({ path: file, message: (e as Error).message });
      continue;
    }
    const parsed = parseSkillFrontMatter(text);
    if ('error' in parsed) {
      errors.push({ path: file, message: parsed.error });
      continue;
    }
    out.push({
      name: parsed.name,
      description: parsed.description,
      ...(parsed.shortDescription ? { shortDescription: parsed.shortDescription } : {}),
      interface: null,
      path: file,
      scope,
      enabled: true,
    });
  }
}

/** The skills visible from `cwd`: workspace skills (closest first), then the user's. */
export async function discoverSkills(home: string, cwd: string): Promise<AppServer.SkillsListResult['data'][number]> {
  const found: AppServer.SkillMetadata[] = [];
  const errors: AppServer.LoadError[] = [];
  for (const dir of workspaceDirs(cwd).reverse()) {
    for (const sub of WORKSPACE_SKILL_DIRS) await loadRoot(path.join(dir, sub), 'repo', found, errors);
  }
  await loadRoot(path.join(home, 'skills'), 'user', found, errors);
  const seen = new Set<string>();
  const skills = found.filter((s) => (seen.has(s.name) ? false : (seen.add(s.name), true)));
  return { cwd, skills, errors };
}
