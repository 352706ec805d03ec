/**
 * The workspace around a cwd: its repository root (the nearest directory at or above it holding
 * `.git`), the directories from that root (the cwd itself outside a repository) down to the cwd,
 * and the AGENTS.md files in them, root first, that give a thread its project instructions. The
 * one definition of that walk, for the prompt, skills discovery and what the front doors report
 * (`instructionSources`). Synchronous, read-only lookups; reading the files is the caller's job.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** The file name of project instructions. */
export const PROJECT_DOC_FILE = 'AGENTS.md';

/** The nearest directory at or above `cwd` that holds a `.git` entry, or null. */
export function findRepositoryRoot(cwd: string): string | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The directories from the repository root (or `cwd` outside a repository) down to `cwd`. */
export function workspaceDirs(cwd: string): string[] {
  const target = path.resolve(cwd);
  const root = findRepositoryRoot(target) ?? target;
  const dirs: string[] = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || path.dirname(dir) === dir) break;
  }
  return dirs;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Absolute paths of the AGENTS.md files a thread in `cwd` is given, root first. */
export function instructionSources(cwd: string): string[] {
  return workspaceDirs(cwd)
    .map((dir) => path.join(dir, PROJECT_DOC_FILE))
    .filter(isFile);
}
