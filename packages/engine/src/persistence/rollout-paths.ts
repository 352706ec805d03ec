/**
 * Where rollouts live: `<home>/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<threadId>.jsonl`
 * (local time of the thread's creation, as Codex does) and `<home>/archived_sessions/<same name>`.
 * This module owns the naming rules and the directory walk; it never opens a rollout's content.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';

/** Directory of live rollouts under the home. */
export const SESSIONS_DIR = 'sessions';
/** Directory of archived rollouts under the home (flat, no date directories). */
export const ARCHIVED_SESSIONS_DIR = 'archived_sessions';

const FILE_NAME_RE = /^rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-([A-Za-z0-9][A-Za-z0-9_-]*)\.jsonl$/;
const THREAD_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** True when `threadId` can be embedded in a file name (UUIDs and similar; no separators or dots). */
export function isSafeThreadId(threadId: string): boolean {
  return THREAD_ID_RE.test(threadId) && threadId.length <= 128;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The rollout file name for a thread created at `createdAtMs` (local time). */
export function rolloutFileName(threadId: string, createdAtMs: number): string {
  if (!isSafeThreadId(threadId)) throw new Error(`thread id is not usable in a file name: ${JSON.stringify(threadId)}`);
  const d = new Date(createdAtMs);
  const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`;
  return `rollout-${stamp}-${threadId}.jsonl`;
}

/**
 * The path a thread's live rollout has (or will have: a front door reports it before the first
 * turn writes the file).
 */
export function rolloutPathFor(home: string, threadId: string, createdAtMs: number): string {
  const d = new Date(createdAtMs);
  return path.join(home, SESSIONS_DIR, String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate()), rolloutFileName(threadId, createdAtMs));
}

/** What a rollout file name says: the thread id and the dated directory it belongs in. */
export interface RolloutFileName {
  threadId: string;
  /** `[YYYY, MM, DD]` as written in the name. */
  dateParts: [string, string, string];
}

/** Parses a rollout file name (a base name or a full path); null if it is not one. */
export function parseRolloutFileName(fileOrPath: string): RolloutFileName | null {
  const m = FILE_NAME_RE.exec(path.basename(fileOrPath));
  if (!m) return null;
  return { threadId: m[7] as string, dateParts: [m[1] as string, m[2] as string, m[3] as string] };
}

/** The live (unarchived) path for a rollout file name, from the date written in the name. */
export function livePathForFileName(home: string, fileName: string): string {
  const parsed = parseRolloutFileName(fileName);
  if (!parsed) throw new Error(`not a rollout file name: ${fileName}`);
  return path.join(home, SESSIONS_DIR, ...parsed.dateParts, path.basename(fileName));
}

/** The archived path for a rollout file name. */
export function archivedPathForFileName(home: string, fileName: string): string {
  return path.join(home, ARCHIVED_SESSIONS_DIR, path.basename(fileName));
}

/** One rollout found on disk. */
export interface RolloutFileRef {
  path: string;
  threadId: string;
  archived: boolean;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

function refsIn(dir: string, names: string[], archived: boolean): RolloutFileRef[] {
  const refs: RolloutFileRef[] = [];
  for (const name of names) {
    const parsed = parseRolloutFileName(name);
    if (parsed) refs.push({ path: path.join(dir, name), threadId: parsed.threadId, archived });
  }
  return refs;
}

/** A directory that can hold rollouts, with its modification time when it was listed. */
export interface RolloutDir {
  path: string;
  archived: boolean;
  /** `mtimeMs` of the directory, read before its entries: a later change gives another value. */
  mtimeMs: number;
}

async function mtimeOf(dir: string): Promise<number | null> {
  try {
    return (await fsp.stat(dir)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Every directory that can hold rollouts: each `sessions/YYYY/MM/DD/` and `archived_sessions/`,
 * with its modification time (a file added, removed or renamed in it changes that time).
 * Directories that do not look like dates are ignored.
 */
export async function listRolloutDirs(home: string, signal?: AbortSignal): Promise<RolloutDir[]> {
  const out: RolloutDir[] = [];
  const sessions = path.join(home, SESSIONS_DIR);
  for (const year of (await listDir(sessions)).filter((n) => /^\d{4}$/.test(n)).sort()) {
    for (const month of (await listDir(path.join(sessions, year))).filter((n) => /^\d{2}$/.test(n)).sort()) {
      signal?.throwIfAborted();
      const days = (await listDir(path.join(sessions, year, month))).filter((n) => /^\d{2}$/.test(n)).sort();
      const stamped = await Promise.all(days.map(async (day) => {
        const dir = path.join(sessions, year, month, day);
        const mtimeMs = await mtimeOf(dir);
        return mtimeMs === null ? null : { path: dir, archived: false, mtimeMs };
      }));
      for (const dir of stamped) if (dir) out.push(dir);
    }
  }
  const archive = path.join(home, ARCHIVED_SESSIONS_DIR);
  const archiveMtime = await mtimeOf(archive);
  if (archiveMtime !== null) out.push({ path: archive, archived: true, mtimeMs: archiveMtime });
  return out;
}

/** The rollouts in one directory of `listRolloutDirs`, found by name only. */
export async function listRolloutFilesIn(dir: Pick<RolloutDir, 'path' | 'archived'>): Promise<RolloutFileRef[]> {
  return refsIn(dir.path, await listDir(dir.path), dir.archived);
}

/**
 * Every rollout under `sessions/YYYY/MM/DD/` and `archived_sessions/`, found by name only (no file
 * is opened).
 */
export async function listRolloutFiles(home: string, signal?: AbortSignal): Promise<RolloutFileRef[]> {
  const dirs = await listRolloutDirs(home, signal);
  return (await Promise.all(dirs.map((dir) => listRolloutFilesIn(dir)))).flat();
}

/** Candidate day directories for a UUIDv7 id: its embedded creation time, ±1 day for clock/zone slack. */
export function likelyDayDirs(home: string, threadId: string): string[] {
  const hex = threadId.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex) || hex[12] !== '7') return [];
  const ms = Number.parseInt(hex.slice(0, 12), 16);
  const dirs: string[] = [];
  for (const delta of [0, -86_400_000, 86_400_000]) {
    const d = new Date(ms + delta);
    dirs.push(path.join(home, SESSIONS_DIR, String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate())));
  }
  return dirs;
}

/** Looks for `*-<threadId>.jsonl` in the given directories; returns the first match. */
export async function findInDirs(dirs: string[], threadId: string): Promise<string | null> {
  const suffix = `-${threadId}.jsonl`;
  for (const dir of dirs) {
    const hit = (await listDir(dir)).find((name) => name.startsWith('rollout-') && name.endsWith(suffix));
    if (hit) return path.join(dir, hit);
  }
  return null;
}
