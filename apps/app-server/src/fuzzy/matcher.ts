/**
 * The fuzzy matcher of the file search: parses a query into atoms and matches a prepared path
 * against them, giving the summed score and the matched character indices, as the reference's
 * matcher (nucleo) does with its patterns. Case is ignored; accents
 * fold to their base letter unless the atom itself has some. Query syntax as the reference's:
 * whitespace separates atoms that must all match (`\ ` is a literal space), `'x` is a substring,
 * `^x` a prefix, `x$` a suffix, `!x` excludes. The scoring itself is in `score.ts`. Pure
 * functions; no I/O.
 */
import { anchoredMatch, foldCase, fuzzyMatch, stripAccent, substringMatch, type Haystack, type Match } from './score.js';

export { prepareHaystack, type Haystack, type Match } from './score.js';

const SPACE = /\s/u;

/** How an atom matches. */
export type AtomKind = 'fuzzy' | 'substring' | 'prefix' | 'postfix' | 'exact';

/** One whitespace-separated part of a query. */
export interface Atom {
  readonly kind: AtomKind;
  /** The needle as code points, case-folded. */
  readonly needle: readonly string[];
  /** The haystack must not match (scores nothing). */
  readonly isNegative: boolean;
  /** Fold accents in the haystack (the needle has none). */
  readonly normalize: boolean;
}

/** A parsed query: every atom must match. Empty when the query has no atom. */
export type Pattern = readonly Atom[];

/** Splits on unescaped whitespace; `\ ` stays in the atom (as a space later). */
function splitAtoms(query: string): string[] {
  const atoms: string[] = [];
  let current = '';
  let isEscaped = false;
  for (const c of query) {
    if (!isEscaped && SPACE.test(c)) {
      if (current !== '') atoms.push(current);
      current = '';
    } else {
      current += c;
    }
    isEscaped = !isEscaped && c === '\\';
  }
  if (current !== '') atoms.push(current);
  return atoms;
}

/** Turns `\ ` into a space, leaving other backslashes alone. */
function unescapeSpaces(text: string): string {
  return text.replace(/\\(\s)/gu, '$1');
}

/** Parses one atom's special syntax (see the module comment); null when nothing is left to match. */
function parseAtom(raw: string): Atom | null {
  let text = raw;
  let isNegative = false;
  if (text.startsWith('!')) {
    isNegative = true;
    text = text.slice(1);
  } else if (text.startsWith('\\!')) {
    text = text.slice(1);
  }
  let kind: AtomKind = 'fuzzy';
  if (text.startsWith('^')) {
    kind = 'prefix';
    text = text.slice(1);
  } else if (text.startsWith("'")) {
    kind = 'substring';
    text = text.slice(1);
  } else if (text.startsWith('\\^') || text.startsWith("\\'")) {
    text = text.slice(1);
  }
  if (text.endsWith('\\$')) {
    text = `${text.slice(0, -2)}$`;
  } else if (text.endsWith('$')) {
    kind = kind === 'fuzzy' ? 'postfix' : 'exact';
    text = text.slice(0, -1);
  }
  if (isNegative && kind === 'fuzzy') kind = 'substring';
  const needle = Array.from(unescapeSpaces(text));
  if (needle.length === 0) return null;
  const normalize = needle.every((c) => stripAccent(c) === c);
  return { kind, needle: needle.map(foldCase), isNegative, normalize };
}

/** Parses a query into its atoms (see the module comment). */
export function parsePattern(query: string): Pattern {
  return splitAtoms(query).flatMap((raw) => parseAtom(raw) ?? []);
}

function matchAtom(haystack: Haystack, atom: Atom): Match | null {
  const hay = atom.normalize ? haystack.normalized : haystack.folded;
  switch (atom.kind) {
    case 'fuzzy':
      return fuzzyMatch(hay, haystack.bonus, atom.needle);
    case 'substring':
      return substringMatch(hay, haystack.bonus, atom.needle);
    default:
      return anchoredMatch(hay, haystack.bonus, atom.needle, atom.kind);
  }
}

/**
 * Matches a prepared path against a pattern: null when an atom fails (or a negative one
 * matches), else the summed score and the union of the matched indices.
 */
export function matchPattern(haystack: Haystack, pattern: Pattern): Match | null {
  let score = 0;
  const indices = new Set<number>();
  for (const atom of pattern) {
    const match = matchAtom(haystack, atom);
    if (atom.isNegative) {
      if (match !== null) return null;
      continue;
    }
    if (match === null) return null;
    score += match.score;
    for (const i of match.indices) indices.add(i);
  }
  return { score, indices: [...indices].sort((a, b) => a - b) };
}

/**
 * A cheap test that can only reject: false when some positive atom's characters do not all
 * occur, in order, in the lower-cased ASCII `path`. Only valid for ASCII paths.
 */
export function mayMatchAscii(lowerPath: string, pattern: Pattern): boolean {
  for (const atom of pattern) {
    if (atom.isNegative) continue;
    let from = 0;
    for (const c of atom.needle) {
      const at = lowerPath.indexOf(c, from);
      if (at < 0) return false;
      from = at + 1;
    }
  }
  return true;
}
