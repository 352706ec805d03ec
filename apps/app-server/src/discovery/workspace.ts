/**
 * Facts about a workspace directory that responses report: the repository root above it, the
 * directories from that root down to the cwd, and the AGENTS.md files the engine reads for a
 * thread there (`instructionSources`). Synchronous and read-only, like the engine's own lookup.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** The nearest directory at or above `cwd` that holds `.git`, or null. */
export function repositoryRoot(cwd: string): string | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The directories from the repository root (or `cwd` outside a repository) down to `cwd`. */
export function workspaceDirs(cwd: string): string[] {
  const target = path.resolve(cwd);
  const root = repositoryRoot(target) ?? target;
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
    .map((dir) => path.join(dir, 'AGENTS.md'))
    .filter(isFile);
}
