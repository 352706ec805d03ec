/**
 * Finds where a run of patch lines sits in a file. It tries four comparisons, strictest first:
 * exact, trailing whitespace ignored, surrounding whitespace ignored, and finally typographic
 * punctuation folded to ASCII (so a patch written with `-` and `"` still finds a line containing
 * an en dash or curly quotes). It does no other fuzz: no similarity scores, no skipped lines.
 */

/** One comparison level; each maps a line to the form that is compared. */
const LEVELS: ReadonlyArray<(line: string) => string> = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => foldPunctuation(line.trim()),
];

const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const ODD_SPACES = /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g;

/**
 * Replaces typographic dashes, curly quotes and non-breaking or fixed-width spaces with their
 * ASCII counterparts. Exported for tests and for callers that compare lines the same way.
 */
export function foldPunctuation(line: string): string {
  return line.replace(DASHES, '-').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(ODD_SPACES, ' ');
}

/**
 * Finds `pattern` in `lines` at or after `start`.
 * @param lines the file's lines (without line endings)
 * @param pattern the lines to find, in order
 * @param start the first index a match may begin at
 * @param eof when true the pattern is expected at the very end of the file: that position is
 *   tried first (at every level), then the normal search from `start` runs as a fallback
 * @returns the index where the match begins, or null. An empty pattern matches at `start`.
 */
export function seekSequence(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number | null {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return null;
  const lastStart = lines.length - pattern.length;
  if (eof && lastStart >= start) {
    for (const normalise of LEVELS) {
      if (matchesAt(lines, pattern, lastStart, normalise)) return lastStart;
    }
  }
  for (const normalise of LEVELS) {
    for (let i = Math.max(0, start); i <= lastStart; i += 1) {
      if (matchesAt(lines, pattern, i, normalise)) return i;
    }
  }
  return null;
}

function matchesAt(
  lines: readonly string[],
  pattern: readonly string[],
  at: number,
  normalise: (line: string) => string,
): boolean {
  for (let k = 0; k < pattern.length; k += 1) {
    if (normalise(lines[at + k] ?? '') !== normalise(pattern[k] ?? '')) return false;
  }
  return true;
}
