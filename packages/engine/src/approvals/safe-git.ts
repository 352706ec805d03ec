/**
 * Read-only git for the `untrusted` safe list: `status`, `log`, `diff`, `show` and listing
 * `branch`, each with an allow-list of options (git accepts unambiguous abbreviations of long
 * options, so a deny-list of `--output`, `--ext-diff`, `--textconv`, … cannot hold). No global
 * option that chooses a repository, a work tree, a configuration, an exec path or a pager is
 * listed (`-C`, `--git-dir`, `--work-tree`, `--bare`, `--namespace`, `-c`, `--config-env`,
 * `--exec-path`, `-p`/`--paginate`, `--super-prefix`, `--list-cmds`): a repository can ship a
 * plain-file git directory whose config names programs (`core.fsmonitor`, filters, textconv)
 * and git runs them. Even without such an option git finds the repository (and its config) from
 * the working directory, which workspace content can decide, so the policy never runs a safe git
 * where those programs could change anything (see `policy.ts`, row 5). Pure; it never runs git.
 */

/** One subcommand's options: exact flags, options with an optional attached value, options with a value. */
interface GitOptions {
  flags: ReadonlySet<string>;
  /** `--name` or `--name=value`; for a short option `-X` or `-Xvalue`. */
  optional: ReadonlySet<string>;
  /** `--name=value` / `--name value`; for a short option `-Xvalue` / `-X value`. */
  valued: ReadonlySet<string>;
  /** `-5` (log, show). */
  numeric: boolean;
  /** Revisions or paths may be given. */
  positionals: boolean;
}

/** Global options that only change how paths and objects are read; none takes a value. */
const GLOBAL_FLAGS = new Set(['--no-pager', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks']);

const DIFF_FLAGS = [
  '-p', '-u', '-s', '--patch', '--no-patch', '--raw', '--patch-with-raw', '--patch-with-stat', '--compact-summary', '--numstat',
  '--shortstat', '--summary', '--name-only', '--name-status', '--full-index', '--binary', '--no-color', '--no-color-moved',
  '--no-renames', '--find-copies-harder', '-D', '--irreversible-delete', '-R', '--no-relative', '-a', '--text',
  '--ignore-cr-at-eol', '--ignore-space-at-eol', '-b', '--ignore-space-change', '-w', '--ignore-all-space',
  '--ignore-blank-lines', '-W', '--function-context', '--no-ext-diff', '--no-textconv', '--no-prefix', '--default-prefix',
  '--ita-invisible-in-index', '--ita-visible-in-index', '--minimal', '--patience', '--histogram', '--indent-heuristic',
  '--no-indent-heuristic', '--check', '--exit-code', '--quiet', '-z', '--no-abbrev', '--cumulative', '--merge-base',
  '--staged', '--cached', '--no-index',
];
const DIFF_OPTIONAL = [
  '--stat', '--color', '--color-moved', '--color-words', '--word-diff', '--relative', '--dirstat', '--abbrev', '-M',
  '--find-renames', '-C', '--find-copies', '-B', '--break-rewrites', '--submodule', '--ignore-submodules',
];
const DIFF_VALUED = [
  '-U', '--unified', '--inter-hunk-context', '--diff-algorithm', '--stat-width', '--stat-name-width', '--stat-count',
  '--stat-graph-width', '--word-diff-regex', '--color-moved-ws', '--anchored', '-S', '-G', '--find-object', '-O',
  '--diff-filter', '--src-prefix', '--dst-prefix', '--line-prefix', '--output-indicator-new', '--output-indicator-old',
  '--output-indicator-context', '-l', '--ws-error-highlight', '-I', '--ignore-matching-lines',
];
const LOG_FLAGS = [
  '--oneline', '--graph', '--all', '--reverse', '--first-parent', '--merges', '--no-merges', '--no-walk', '--do-walk',
  '--date-order', '--topo-order', '--author-date-order', '--left-right', '--left-only', '--right-only', '--cherry',
  '--cherry-pick', '--cherry-mark', '--boundary', '--full-history', '--simplify-merges', '--simplify-by-decoration',
  '--ancestry-path', '--dense', '--sparse', '--follow', '--abbrev-commit', '--no-abbrev-commit', '--no-decorate',
  '--source', '--use-mailmap', '--mailmap', '--no-mailmap', '--no-use-mailmap', '--log-size', '--parents', '--children',
  '--walk-reflogs', '-g', '--regexp-ignore-case', '-i', '--invert-grep', '--all-match', '-E', '--extended-regexp', '-F',
  '--fixed-strings', '-P', '--perl-regexp', '--basic-regexp', '--remove-empty', '--show-pulls', '--no-notes', '--count',
  '--no-min-parents', '--no-max-parents', '--relative-date', '--full-diff', '-m', '-c', '--cc', '--dd',
  '--combined-all-paths', '--no-diff-merges', '--no-expand-tabs', '--clear-decorations', '--single-worktree', '--reflog',
  '--exclude-first-parent-only', '--merge', '-t', '-r', '--root', '--no-standard-notes', '--standard-notes',
];
const LOG_OPTIONAL = ['--pretty', '--decorate', '--branches', '--tags', '--remotes', '--notes', '--show-notes', '--show-linear-break', '--expand-tabs'];
const LOG_VALUED = [
  '-n', '--max-count', '--skip', '--since', '--after', '--until', '--before', '--author', '--committer', '--grep',
  '--grep-reflog', '--min-parents', '--max-parents', '--date', '--format', '--decorate-refs', '--decorate-refs-exclude',
  '--exclude', '--glob', '-L', '--since-as-filter', '--diff-merges', '--encoding',
];

const table = (flags: string[], optional: string[], valued: string[], numeric: boolean, positionals = true): GitOptions => ({
  flags: new Set(flags),
  optional: new Set(optional),
  valued: new Set(valued),
  numeric,
  positionals,
});

const SUBCOMMANDS: ReadonlyMap<string, GitOptions> = new Map([
  ['diff', table(DIFF_FLAGS, DIFF_OPTIONAL, DIFF_VALUED, false)],
  ['log', table([...DIFF_FLAGS, ...LOG_FLAGS], [...DIFF_OPTIONAL, ...LOG_OPTIONAL], [...DIFF_VALUED, ...LOG_VALUED], true)],
  ['show', table([...DIFF_FLAGS, ...LOG_FLAGS], [...DIFF_OPTIONAL, ...LOG_OPTIONAL], [...DIFF_VALUED, ...LOG_VALUED], true)],
  [
    'status',
    table(
      ['-s', '--short', '-b', '--branch', '--show-stash', '--long', '-v', '--verbose', '-z', '--null', '--no-ahead-behind', '--ahead-behind', '--renames', '--no-renames', '--no-column'],
      ['--porcelain', '-u', '--untracked-files', '--ignored', '--ignore-submodules', '--column', '--find-renames', '-M'],
      [],
      false,
    ),
  ],
]);

/** `git branch` in list mode; positionals (patterns) only with `-l`/`--list`. */
const BRANCH_LIST = table(
  ['-l', '--list', '-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--show-current', '--no-color', '--no-column', '--no-abbrev', '-i', '--ignore-case', '--omit-empty'],
  ['--color', '--column', '--abbrev'],
  ['--format', '--sort', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at'],
  false,
);

/** True for `git [safe globals] status|log|diff|show|branch` with only listed options. */
export function isReadOnlyGit(args: readonly string[]): boolean {
  const found = findGitSubcommand(args);
  if (found === null) return false;
  const subArgs = args.slice(found.index + 1);
  if (found.name === 'branch') {
    const isListing = subArgs.includes('-l') || subArgs.includes('--list');
    return checkGitArgs(subArgs, { ...BRANCH_LIST, positionals: isListing });
  }
  const options = SUBCOMMANDS.get(found.name);
  return options !== undefined && checkGitArgs(subArgs, options);
}

/** The subcommand after the allowed global options; `null` at any other global option. */
function findGitSubcommand(args: readonly string[]): { name: string; index: number } | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (GLOBAL_FLAGS.has(a)) continue;
    if (a.startsWith('-')) return null;
    return { name: a, index: i };
  }
  return null;
}

/** True when every option of `args` is in `options` (see {@link GitOptions}). */
function checkGitArgs(args: readonly string[], options: GitOptions): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') return options.positionals || i === args.length - 1;
    if (a === '-' || !a.startsWith('-')) {
      if (!options.positionals) return false;
      continue;
    }
    if (options.numeric && /^-\d+$/.test(a)) continue;
    const next = readGitOption(a, options);
    if (next === 'invalid') return false;
    if (next === 'takes-next') {
      if (i + 1 >= args.length) return false;
      i++;
    }
  }
  return true;
}

function readGitOption(a: string, options: GitOptions): 'ok' | 'takes-next' | 'invalid' {
  if (a.startsWith('--')) {
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    if (options.flags.has(name)) return eq < 0 ? 'ok' : 'invalid';
    if (options.optional.has(name)) return 'ok';
    if (options.valued.has(name)) return eq < 0 ? 'takes-next' : 'ok';
    return 'invalid';
  }
  if (options.flags.has(a) || options.optional.has(a)) return 'ok';
  if (options.valued.has(a)) return 'takes-next';
  const short = a.slice(0, 2);
  if (options.valued.has(short) || options.optional.has(short)) return 'ok';
  // A cluster of value-less short flags (`-av`).
  return [...a.slice(1)].every((letter) => options.flags.has(`-${letter}`)) ? 'ok' : 'invalid';
}
