/**
 * Skill discovery: every `SKILL.md` under the skill roots visible from a cwd, in the reference's
 * places and order: repository skills (`.codex/skills`, `.agents/skills` and Deputy's
 * `.deputy/skills` of each directory from the cwd up to the repository root, closest first), the
 * user's (`<home>/skills` and `~/.agents/skills`), and system skills (`<home>/skills/.system`,
 * none shipped). Each root is walked to a bounded depth and size, hidden directories skipped.
 * A file that fails to read or validate is an `errors` entry; nothing here throws for a skill.
 * Whether a skill is enabled comes from the config's `[[skills.config]]` entries (by path or
 * name, the last entry wins). Read-only; callers cache as they need.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { workspaceDirs } from '../config/workspace.js';
import { SingleFlight } from '../util/single-flight.js';
import { parseSkillFile } from './skill-file.js';

/** Folders of a workspace directory that hold skills, in the order they are read. */
export const WORKSPACE_SKILL_DIRS = ['.codex/skills', '.agents/skills', '.deputy/skills'] as const;
/** How deep below a root a SKILL.md is looked for. */
const MAX_SCAN_DEPTH = 6;
/** How many directories one root may make the walk read. */
const MAX_DIRS_PER_ROOT = 2000;

/** Where a skill was found. */
export type SkillScope = 'repo' | 'user' | 'system' | 'admin';

/** One discovered skill. */
export interface Skill {
  name: string;
  description: string;
  shortDescription: string | null;
  /** Absolute path of its SKILL.md. */
  path: string;
  scope: SkillScope;
  enabled: boolean;
}

/** A SKILL.md that could not be used, and why. */
export interface SkillLoadError {
  path: string;
  message: string;
}

/** The skills visible from one cwd. */
export interface SkillSet {
  cwd: string;
  skills: Skill[];
  errors: SkillLoadError[];
}

/** A root to scan and the scope of what it holds. */
export interface SkillRoot {
  dir: string;
  scope: SkillScope;
}

/** One `[[skills.config]]` entry of config.toml. */
const SkillConfigEntrySchema = z.looseObject({ path: z.string().optional(), name: z.string().optional(), enabled: z.boolean() });
const SkillsConfigSchema = z.looseObject({ config: z.array(z.unknown()).optional() });

/** The enabled/disabled choices of config.toml's `[[skills.config]]`; malformed entries are skipped. */
export function skillToggles(skillsTable: unknown): Array<z.infer<typeof SkillConfigEntrySchema>> {
  const table = SkillsConfigSchema.safeParse(skillsTable ?? {});
  if (!table.success) return [];
  return (table.data.config ?? []).flatMap((entry) => {
    const parsed = SkillConfigEntrySchema.safeParse(entry);
    return parsed.success && (parsed.data.path || parsed.data.name) ? [parsed.data] : [];
  });
}

/** Whether a skill is enabled under `toggles` (the last entry naming it by path or name wins). */
export function isSkillEnabled(skill: Pick<Skill, 'name' | 'path'>, toggles: ReturnType<typeof skillToggles>): boolean {
  let enabled = true;
  for (const t of toggles) {
    if ((t.path !== undefined && path.resolve(t.path) === skill.path) || (t.name !== undefined && t.name === skill.name)) enabled = t.enabled;
  }
  return enabled;
}

/** The roots scanned for `cwd`, in discovery order. `userHome` defaults to the OS home. */
export function skillRoots(home: string, cwd: string, userHome: string = homedir(), extraRoots: readonly string[] = []): SkillRoot[] {
  const roots: SkillRoot[] = [];
  const dirs = workspaceDirs(cwd).reverse();
  for (const sub of WORKSPACE_SKILL_DIRS) for (const dir of dirs) roots.push({ dir: path.join(dir, sub), scope: 'repo' });
  roots.push({ dir: path.join(home, 'skills'), scope: 'user' });
  roots.push({ dir: path.join(userHome, '.agents', 'skills'), scope: 'user' });
  for (const dir of extraRoots) roots.push({ dir: path.resolve(dir), scope: 'user' });
  roots.push({ dir: path.join(home, 'skills', '.system'), scope: 'system' });
  return roots;
}

/** Every SKILL.md below `dir` (bounded depth and breadth, hidden directories skipped), sorted. */
async function skillFiles(dir: string): Promise<string[]> {
  // Most roots do not exist; a failed readdir costs a rejected promise with a stack trace, where
  // this check costs one stat (every turn scans them all).
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const queue: Array<{ dir: string; depth: number }> = [{ dir, depth: 0 }];
  let visited = 0;
  while (queue.length > 0 && visited < MAX_DIRS_PER_ROOT) {
    const next = queue.shift() as { dir: string; depth: number };
    visited++;
    let entries;
    try {
      entries = await readdir(next.dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.')) continue;
      const full = path.join(next.dir, e.name);
      if (e.isFile() && e.name === 'SKILL.md') found.push(full);
      else if ((e.isDirectory() || e.isSymbolicLink()) && next.depth < MAX_SCAN_DEPTH) queue.push({ dir: full, depth: next.depth + 1 });
    }
  }
  return found;
}

async function loadSkill(file: string, scope: SkillScope): Promise<Omit<Skill, 'enabled'> | SkillLoadError> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { path: file, message: `failed to read SKILL.md: ${(e as Error).message}` };
  }
  const parsed = parseSkillFile(text);
  if ('error' in parsed) return { path: file, message: parsed.error };
  return { name: parsed.name, description: parsed.description, shortDescription: parsed.metadata?.['short-description'] ?? null, path: file, scope };
}

/** Options of {@link discoverSkills}. */
export interface DiscoverSkillsOptions {
  /** Deputy's home (`DEPUTY_HOME`). */
  home: string;
  cwd: string;
  /** config.toml's `skills` table (its `config` entries enable and disable skills). */
  skillsTable?: unknown;
  /** The OS user's home, for `~/.agents/skills`; default `os.homedir()`. */
  userHome?: string;
  /** More absolute directories to scan after the user's roots (scope `user`). */
  extraRoots?: readonly string[];
}

/** Scans in progress by their options: callers asking the same while one runs share it. */
const scansInFlight = new SingleFlight<string, SkillSet>();

/**
 * The skills visible from `cwd`: each SKILL.md once (by real path), in discovery order. A call
 * made while the same scan is running gets that scan's result (200 turns starting at once in
 * one directory scan it once); a call made after it ended scans again, so edits show at once.
 */
export function discoverSkills(options: DiscoverSkillsOptions): Promise<SkillSet> {
  const key = JSON.stringify([options.home, path.resolve(options.cwd), options.skillsTable ?? null, options.userHome ?? null, options.extraRoots ?? []]);
  return scansInFlight.run(key, () => scanSkills(options));
}

async function scanSkills(options: DiscoverSkillsOptions): Promise<SkillSet> {
  const cwd = path.resolve(options.cwd);
  const toggles = skillToggles(options.skillsTable);
  const skills: Skill[] = [];
  const errors: SkillLoadError[] = [];
  const seen = new Set<string>();
  for (const root of skillRoots(options.home, cwd, options.userHome, options.extraRoots)) {
    for (const file of await skillFiles(root.dir)) {
      const real = await realpath(file).catch(() => file);
      if (seen.has(real)) continue;
      seen.add(real);
      const loaded = await loadSkill(file, root.scope);
      if ('message' in loaded) errors.push(loaded);
      else skills.push({ ...loaded, enabled: isSkillEnabled(loaded, toggles) });
    }
  }
  return { cwd, skills, errors };
}

