/**
 * Ranking and the one-shot search: scores walked entries against a parsed query, keeps the best
 * `MATCH_LIMIT` by score (then path, then root order) and turns them into wire results. The
 * reference's limits: 50 results, an empty query finds nothing, a cancelled search answers no
 * files. Session state lives in `session.ts`; this module keeps no state between calls.
 */
import type { AppServer } from '@deputy/protocol';
import { matchPattern, mayMatchAscii, parsePattern, prepareHaystack, type Pattern } from './matcher.js';
import { resolveRoots, walkRoots, type SearchRoot, type WalkEntry } from './walk.js';

/** Most results a search returns (reference: `MATCH_LIMIT`). */
export const MATCH_LIMIT = 50;
/** A walk stops after this many entries, so a search over `/` stays bounded in time and memory. */
export const MAX_WALK_ENTRIES = 500_000;

const ASCII = /^[\x00-\x7f]*$/;

/** A scored entry. */
interface Scored {
  readonly entry: WalkEntry;
  readonly score: number;
  readonly indices: number[];
}

function compareScored(a: Scored, b: Scored): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.entry.path !== b.entry.path) return a.entry.path < b.entry.path ? -1 : 1;
  return a.entry.root - b.entry.root;
}

/** The best matches of one pattern among the entries added so far. */
export class Ranking {
  #best: Scored[] = [];
  #isSorted = true;

  constructor(
    readonly pattern: Pattern,
    readonly limit = MATCH_LIMIT,
  ) {}

  /** Scores `entry` and keeps it if it is among the best. */
  add(entry: WalkEntry): void {
    if (ASCII.test(entry.path) && !mayMatchAscii(entry.path.toLowerCase(), this.pattern)) return;
    const match = matchPattern(prepareHaystack(entry.path), this.pattern);
    if (match === null) return;
    this.#best.push({ entry, score: match.score, indices: match.indices });
    this.#isSorted = false;
    if (this.#best.length > this.limit * 4) this.#trim();
  }

  #trim(): void {
    if (!this.#isSorted) this.#best.sort(compareScored);
    this.#isSorted = true;
    if (this.#best.length > this.limit) this.#best.length = this.limit;
  }

  /** The best matches as wire results, best first. */
  results(roots: readonly SearchRoot[]): AppServer.FuzzyFileSearchResult[] {
    this.#trim();
    return this.#best.map(({ entry, score, indices }) => ({
      root: (roots[entry.root] as SearchRoot).label,
      path: entry.path,
      match_type: entry.isDir ? 'directory' : 'file',
      file_name: entry.path.slice(entry.path.lastIndexOf('/') + 1),
      score,
      indices,
    }));
  }
}

/** Parses a query; null when it can match nothing useful (empty, or only whitespace). */
export function patternOf(query: string): Pattern | null {
  const pattern = parsePattern(query);
  return pattern.length === 0 ? null : pattern;
}

/**
 * Searches `roots` (relative ones from `cwd`) for `query`; no files for an empty query, no
 * roots, or when `signal` aborts before the walk ends.
 */
export async function searchOnce(query: string, roots: readonly string[], cwd: string, signal: AbortSignal): Promise<AppServer.FuzzyFileSearchResult[]> {
  const pattern = patternOf(query);
  if (pattern === null || roots.length === 0) return [];
  const resolved = await resolveRoots(roots, cwd);
  const ranking = new Ranking(pattern);
  await walkRoots(resolved, {
    onEntries: (entries) => entries.forEach((entry) => ranking.add(entry)),
    signal,
    limit: MAX_WALK_ENTRIES,
  });
  return signal.aborted ? [] : ranking.results(resolved);
}
