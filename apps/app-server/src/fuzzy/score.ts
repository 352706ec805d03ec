/**
 * The scoring half of the fuzzy matcher: character classes and position bonuses of a path, and
 * the best alignment of a needle in it, with the reference matcher's model (nucleo, itself fzf's):
 * 16 points per matched character, word-boundary, camelCase and consecutive bonuses, gap
 * penalties of 3 then 1, the first character's bonus doubled, `/` as the delimiter and the start
 * of the path as a boundary. The optimal alignment comes from dynamic programming; very long
 * inputs fall back to a greedy one. Pure functions; no I/O.
 */

/** Character classes, in the order the bonus rules compare them. */
const WHITESPACE = 0;
const NON_WORD = 1;
const DELIMITER = 2;
const LOWER = 3;
const UPPER = 4;
const LETTER = 5;
const NUMBER = 6;

const SCORE_MATCH = 16;
const PENALTY_GAP_START = 3;
const PENALTY_GAP_EXTENSION = 1;
const BONUS_BOUNDARY = SCORE_MATCH / 2;
/** Kept below a word boundary so camelCase, snake_case and plain words balance out. */
const BONUS_CAMEL123 = BONUS_BOUNDARY - PENALTY_GAP_START;
const BONUS_NON_WORD = BONUS_BOUNDARY;
const BONUS_CONSECUTIVE = PENALTY_GAP_START + PENALTY_GAP_EXTENSION;
const BONUS_FIRST_CHAR_MULTIPLIER = 2;
/** After a `/` (paths are the haystack, so the start counts as one too). */
const BONUS_BOUNDARY_DELIMITER = BONUS_BOUNDARY + 1;
/** Past this many cells the optimal alignment gives way to a greedy one (time stays linear). */
const MAX_MATRIX_CELLS = 100 * 1024;
const INVALID = -1;

/** A path prepared for matching: its code points folded, with and without accents, and their bonuses. */
export interface Haystack {
  /** Lower-cased code points. */
  readonly folded: readonly string[];
  /** `folded` with accents stripped (the same array for an ASCII path). */
  readonly normalized: readonly string[];
  /** The bonus of matching each position. */
  readonly bonus: Uint8Array;
}

/** A successful match. */
export interface Match {
  readonly score: number;
  /** Ascending, distinct code point indices of the matched characters. */
  readonly indices: number[];
}

const LETTERS = /\p{L}/u;
const LOWERCASE = /\p{Lowercase}/u;
const UPPERCASE = /\p{Uppercase}/u;
const NUMERIC = /\p{N}/u;
const SPACE = /\s/u;
const COMBINING = /\p{M}/gu;

/** The class of one code point (ASCII by hand, the rest by Unicode property). */
function classOf(c: string): number {
  const code = c.codePointAt(0) ?? 0;
  if (code < 128) {
    if (c >= 'a' && c <= 'z') return LOWER;
    if (c >= 'A' && c <= 'Z') return UPPER;
    if (c >= '0' && c <= '9') return NUMBER;
    if (c === ' ' || (code >= 9 && code <= 13)) return WHITESPACE;
    return c === '/' ? DELIMITER : NON_WORD;
  }
  if (LOWERCASE.test(c)) return LOWER;
  if (UPPERCASE.test(c)) return UPPER;
  if (NUMERIC.test(c)) return NUMBER;
  if (LETTERS.test(c)) return LETTER;
  return SPACE.test(c) ? WHITESPACE : NON_WORD;
}

/** The bonus of matching a character of class `cls` that follows one of class `prev`. */
function bonusFor(prev: number, cls: number): number {
  if (cls > DELIMITER) {
    if (prev === WHITESPACE) return BONUS_BOUNDARY;
    if (prev === DELIMITER) return BONUS_BOUNDARY_DELIMITER;
    if (prev === NON_WORD) return BONUS_BOUNDARY;
  }
  if ((prev === LOWER && cls === UPPER) || (prev !== NUMBER && cls === NUMBER)) return BONUS_CAMEL123;
  if (cls === WHITESPACE) return BONUS_BOUNDARY;
  return cls === NON_WORD ? BONUS_NON_WORD : 0;
}

/** Lower case, one code point (a fold that would grow, like `İ`, keeps its first). */
export function foldCase(c: string): string {
  return Array.from(c.toLowerCase())[0] ?? c;
}

/** The base letter of an accented one (`é` → `e`); other characters unchanged. */
export function stripAccent(c: string): string {
  return Array.from(c.normalize('NFD').replace(COMBINING, ''))[0] ?? c;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Prepares `path` for matching. */
export function prepareHaystack(path: string): Haystack {
  const isAscii = ASCII.test(path);
  // ASCII lower-casing maps one unit to one unit: split instead of folding each code point.
  const chars = isAscii ? path.split('') : Array.from(path);
  const bonus = new Uint8Array(chars.length);
  let prev = DELIMITER;
  for (let i = 0; i < chars.length; i++) {
    const cls = classOf(chars[i] as string);
    bonus[i] = bonusFor(prev, cls);
    prev = cls;
  }
  const folded = isAscii ? path.toLowerCase().split('') : chars.map(foldCase);
  return { folded, normalized: isAscii ? folded : folded.map(stripAccent), bonus };
}

/** Scores one fixed alignment (contiguous or greedy): the reference's running-bonus rules. */
function scoreAlignment(bonus: Uint8Array, positions: readonly number[]): number {
  const first = positions[0] as number;
  let firstBonus = bonus[first] as number;
  let score = SCORE_MATCH + firstBonus * BONUS_FIRST_CHAR_MULTIPLIER;
  for (let k = 1; k < positions.length; k++) {
    const at = positions[k] as number;
    const previous = positions[k - 1] as number;
    let b = bonus[at] as number;
    if (at === previous + 1) {
      if (b >= BONUS_BOUNDARY && b > firstBonus) firstBonus = b;
      b = Math.max(b, firstBonus, BONUS_CONSECUTIVE);
    } else {
      const gap = at - previous - 1;
      score = Math.max(0, score - PENALTY_GAP_START - (gap - 1) * PENALTY_GAP_EXTENSION);
      firstBonus = b;
    }
    score += SCORE_MATCH + b;
  }
  return score;
}

/** Greedy alignment for long inputs: earliest end, then the latest start before it. */
function greedyFuzzy(hay: readonly string[], bonus: Uint8Array, needle: readonly string[]): Match | null {
  let k = 0;
  let end = -1;
  for (let i = 0; i < hay.length && end < 0; i++) if (hay[i] === needle[k] && ++k === needle.length) end = i;
  if (end < 0) return null;
  const positions: number[] = [];
  k = needle.length - 1;
  for (let i = end; k >= 0; i--) if (hay[i] === needle[k]) positions[k--] = i;
  return { score: scoreAlignment(bonus, positions), indices: positions };
}

/** Scratch rows and choice bits of the alignment, grown on demand (matching is synchronous). */
const scratch = {
  rows: [new Int32Array(64), new Int32Array(64), new Int32Array(64), new Int32Array(64)],
  fromConsecutive: new Uint8Array(1024),
  fromMatch: new Uint8Array(1024),
};

function scratchFor(width: number, cells: number): typeof scratch {
  if (scratch.rows[0] === undefined || scratch.rows[0].length < width) scratch.rows = scratch.rows.map(() => new Int32Array(width * 2));
  if (scratch.fromMatch.length < cells) {
    scratch.fromConsecutive = new Uint8Array(cells * 2);
    scratch.fromMatch = new Uint8Array(cells * 2);
  }
  scratch.fromConsecutive.fill(0, 0, cells);
  scratch.fromMatch.fill(0, 0, cells);
  return scratch;
}

/**
 * Fills the alignment rows over `hay[start..end)`, the only window an alignment can use, and
 * returns the last row. Row r holds, per position j, the best score with needle[r] matched at j
 * and, running along the row, `p`: the best score with needle[0..r-1] matched before j-1 and j-1
 * skipped. The choice bits in `grid` let `rebuildAlignment` walk the best path back.
 */
function fillRows(hay: readonly string[], bonus: Uint8Array, needle: readonly string[], start: number, grid: typeof scratch): Int32Array {
  const n = bonus.length;
  const { fromConsecutive, fromMatch } = grid;
  let [m, nextM, consecutive, nextConsecutive] = grid.rows as [Int32Array, Int32Array, Int32Array, Int32Array];
  for (let j = 0; j < n; j++) {
    const isMatch = hay[start + j] === needle[0];
    m[j] = isMatch ? SCORE_MATCH + (bonus[j] as number) * BONUS_FIRST_CHAR_MULTIPLIER : INVALID;
    consecutive[j] = isMatch ? (bonus[j] as number) : 0;
  }
  for (let r = 1; r < needle.length; r++) {
    nextM.fill(INVALID, 0, n);
    let p = INVALID;
    for (let j = 1; j < n; j++) {
      const before = j >= 2 ? (m[j - 2] as number) : INVALID;
      const viaMatch = before === INVALID ? INVALID : Math.max(0, before - PENALTY_GAP_START);
      const viaSkip = p === INVALID ? INVALID : Math.max(0, p - PENALTY_GAP_EXTENSION);
      if (viaMatch > viaSkip) fromMatch[(r - 1) * n + (j - 1)] = 1;
      p = Math.max(viaMatch, viaSkip);
      if (hay[start + j] !== needle[r]) continue;
      const b = bonus[j] as number;
      const previous = m[j - 1] as number;
      let chain = -Infinity;
      let chainBonus = 0;
      if (previous !== INVALID) {
        chainBonus = Math.max(consecutive[j - 1] as number, BONUS_CONSECUTIVE);
        if (b >= BONUS_BOUNDARY && b > chainBonus) chainBonus = b;
        chain = previous + Math.max(chainBonus, b);
      }
      const skip = p === INVALID ? -Infinity : p + b;
      if (chain === -Infinity && skip === -Infinity) continue;
      // Strictly better to extend the run, as the reference decides.
      if (chain > skip) {
        nextM[j] = chain + SCORE_MATCH;
        nextConsecutive[j] = chainBonus;
        fromConsecutive[r * n + j] = 1;
      } else {
        nextM[j] = skip + SCORE_MATCH;
        nextConsecutive[j] = b;
      }
    }
    [m, nextM] = [nextM, m];
    [consecutive, nextConsecutive] = [nextConsecutive, consecutive];
  }
  return m;
}

/** Walks the choice bits back from the last needle character matched at `last`. */
function rebuildAlignment(grid: typeof scratch, rows: number, n: number, start: number, last: number): number[] {
  const indices: number[] = new Array<number>(rows);
  let col = last;
  for (let r = rows - 1; r >= 0; r--) {
    indices[r] = start + col;
    if (r === 0) break;
    col -= 1;
    if (grid.fromConsecutive[r * n + col + 1] !== 1) {
      // Back through the skipped run of row r-1 to where its match was taken.
      while (grid.fromMatch[(r - 1) * n + col] !== 1) col -= 1;
      col -= 1;
    }
  }
  return indices;
}

/** Best alignment by dynamic programming over `hay[start..end)`. */
function optimalFuzzy(hay: readonly string[], bonusOf: Uint8Array, needle: readonly string[], start: number, end: number): Match | null {
  const n = end - start;
  const grid = scratchFor(n, needle.length * n);
  const lastRow = fillRows(hay, bonusOf.subarray(start, end), needle, start, grid);
  // Ties go to the last end, as the reference's `max_by_key`.
  let last = -1;
  for (let j = 0; j < n; j++) if (lastRow[j] !== INVALID && (last < 0 || (lastRow[j] as number) >= (lastRow[last] as number))) last = j;
  if (last < 0) return null;
  return { score: lastRow[last] as number, indices: rebuildAlignment(grid, needle.length, n, start, last) };
}

/** Best fuzzy alignment of `needle` in `hay` (both folded alike), or null. */
export function fuzzyMatch(hay: readonly string[], bonus: Uint8Array, needle: readonly string[]): Match | null {
  if (needle.length > hay.length) return null;
  let k = 0;
  for (let i = 0; i < hay.length && k < needle.length; i++) if (hay[i] === needle[k]) k++;
  if (k < needle.length) return null;
  const start = hay.indexOf(needle[0] as string);
  const end = hay.lastIndexOf(needle[needle.length - 1] as string) + 1;
  if ((end - start) * needle.length > MAX_MATRIX_CELLS) return greedyFuzzy(hay, bonus, needle);
  return optimalFuzzy(hay, bonus, needle, start, end);
}

function equalsAt(hay: readonly string[], needle: readonly string[], at: number): boolean {
  for (let k = 0; k < needle.length; k++) if (hay[at + k] !== needle[k]) return false;
  return true;
}

function range(from: number, length: number): number[] {
  return Array.from({ length }, (_, k) => from + k);
}

/** Best contiguous occurrence of `needle` in `hay`, or null. */
export function substringMatch(hay: readonly string[], bonus: Uint8Array, needle: readonly string[]): Match | null {
  let best: Match | null = null;
  for (let at = 0; at + needle.length <= hay.length; at++) {
    if (!equalsAt(hay, needle, at)) continue;
    const indices = range(at, needle.length);
    const score = scoreAlignment(bonus, indices);
    if (best === null || score > best.score) best = { score, indices };
  }
  return best;
}

/** Prefix, suffix or whole-string match, ignoring surrounding whitespace of the haystack. */
export function anchoredMatch(hay: readonly string[], bonus: Uint8Array, needle: readonly string[], kind: 'prefix' | 'postfix' | 'exact'): Match | null {
  let start = 0;
  let end = hay.length;
  if (!SPACE.test(needle[0] as string)) while (start < end && SPACE.test(hay[start] as string)) start++;
  if (!SPACE.test(needle[needle.length - 1] as string)) while (end > start && SPACE.test(hay[end - 1] as string)) end--;
  if (needle.length > end - start) return null;
  if (kind === 'exact' && needle.length !== end - start) return null;
  const at = kind === 'postfix' ? end - needle.length : start;
  if (!equalsAt(hay, needle, at)) return null;
  const indices = range(at, needle.length);
  return { score: scoreAlignment(bonus, indices), indices };
}

