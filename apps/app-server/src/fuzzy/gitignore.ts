/**
 * Gitignore patterns, through the `ignore` package (git's rules: `#` comments, `!` re-includes,
 * a trailing `/` for directories only, anchoring by an inner or leading `/`, `*`, `?`, `**`,
 * classes, escapes; the last matching line decides). Compiles the text of a `.gitignore`,
 * `.ignore` or `.git/info/exclude` file and matches paths relative to the file's directory.
 * Reading the files is the walker's.
 */
import ignore, { type Ignore } from 'ignore';

/** The compiled lines of one ignore file. */
export type IgnoreRules = Ignore;

/** Compiles the text of an ignore file; lines that cannot be compiled are skipped. */
export function compileIgnore(text: string): IgnoreRules {
  return ignore({ allowRelativePaths: true }).add(text);
}

/**
 * What the rules say about `relativePath` (`/`-separated, relative to the file's directory):
 * true ignored, false re-included, undefined when no line matches.
 */
export function matchIgnore(rules: IgnoreRules, relativePath: string, isDir: boolean): boolean | undefined {
  const verdict = rules.test(isDir ? `${relativePath}/` : relativePath);
  if (verdict.ignored) return true;
  if (verdict.unignored) return false;
  return undefined;
}
