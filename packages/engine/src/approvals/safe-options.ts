/**
 * The option allow-lists of the read-only commands that `untrusted` runs without asking (GNU
 * coreutils, grep, ripgrep, file). An option is listed only when it reads, prints or formats:
 * options that write files (`sort -o`), run programs (`sort --compress-program`, `rg --pre`),
 * decompress through external programs (`rg -z`, `file -z`) or change file metadata
 * (`file -p`) are left out, and so is anything not known; an unlisted option makes the command
 * ask. Long options are matched by their full name only. This module only holds data.
 */
import { defineOptions, type OptionTable } from './option-parser.js';

/** Commands whose arguments are only printed or evaluated, never opened or run (any arguments). */
export const PRINT_ONLY_COMMANDS: ReadonlySet<string> = new Set(['echo', 'expr', 'true', 'false']);

/** GNU ls (coreutils 9). */
const LS = defineOptions({
  flags: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1',
  valued: 'ITw',
  long: [
    'all', 'almost-all', 'author', 'escape', 'ignore-backups', 'directory', 'dired', 'file-type', 'full-time',
    'group-directories-first', 'no-group', 'human-readable', 'si', 'dereference-command-line',
    'dereference-command-line-symlink-to-dir', 'inode', 'kibibytes', 'dereference', 'numeric-uid-gid', 'literal',
    'hide-control-chars', 'show-control-chars', 'quote-name', 'reverse', 'recursive', 'size', 'zero', 'context',
  ],
  longValued: ['block-size', 'format', 'hide', 'ignore', 'indicator-style', 'quoting-style', 'sort', 'time', 'time-style', 'tabsize', 'width'],
  longOptional: ['color', 'hyperlink', 'classify'],
});

/** GNU grep 3. */
const GREP = defineOptions({
  flags: 'EFGPiyvwxcLloqsbHhnTZzaIrRU',
  valued: 'efmABCdD',
  numeric: 'option',
  long: [
    'extended-regexp', 'fixed-strings', 'basic-regexp', 'perl-regexp', 'ignore-case', 'no-ignore-case', 'word-regexp',
    'line-regexp', 'null-data', 'no-messages', 'invert-match', 'byte-offset', 'line-number', 'no-line-number',
    'line-buffered', 'with-filename', 'no-filename', 'only-matching', 'quiet', 'silent', 'text', 'recursive',
    'dereference-recursive', 'files-without-match', 'files-with-matches', 'count', 'initial-tab', 'null', 'binary',
    'no-group-separator',
  ],
  longValued: [
    'regexp', 'file', 'max-count', 'label', 'binary-files', 'directories', 'devices', 'include', 'exclude', 'exclude-from',
    'exclude-dir', 'after-context', 'before-context', 'context', 'group-separator',
  ],
  longOptional: ['color', 'colour'],
});

/** ripgrep 14, without `--pre`, `--pre-glob`, `--hostname-bin`, `-z`/`--search-zip`. */
const RG = defineOptions({
  flags: 'abcFhHiIlLnNopPqsSuUvVwx0.',
  valued: 'ABCdEefgjmMrtT',
  gnu: false,
  long: [
    'binary', 'no-binary', 'block-buffered', 'no-block-buffered', 'byte-offset', 'no-byte-offset', 'case-sensitive',
    'column', 'no-column', 'count', 'count-matches', 'crlf', 'no-crlf', 'debug', 'trace', 'files', 'files-with-matches',
    'files-without-match', 'fixed-strings', 'no-fixed-strings', 'follow', 'no-follow', 'glob-case-insensitive',
    'no-glob-case-insensitive', 'heading', 'no-heading', 'hidden', 'no-hidden', 'ignore-case', 'ignore-file-case-insensitive',
    'no-ignore-file-case-insensitive', 'include-zero', 'no-include-zero', 'invert-match', 'no-invert-match', 'json', 'no-json',
    'line-buffered', 'no-line-buffered', 'line-number', 'no-line-number', 'line-regexp', 'multiline', 'no-multiline',
    'multiline-dotall', 'no-multiline-dotall', 'no-config', 'no-ignore', 'ignore', 'no-ignore-dot', 'ignore-dot',
    'no-ignore-exclude', 'ignore-exclude', 'no-ignore-files', 'ignore-files', 'no-ignore-global', 'ignore-global',
    'no-ignore-messages', 'ignore-messages', 'no-ignore-parent', 'ignore-parent', 'no-ignore-vcs', 'ignore-vcs',
    'no-messages', 'messages', 'no-require-git', 'require-git', 'no-pcre2-unicode', 'pcre2-unicode', 'no-unicode',
    'unicode', 'null', 'null-data', 'one-file-system', 'no-one-file-system', 'only-matching', 'passthru', 'pcre2',
    'no-pcre2', 'pcre2-version', 'quiet', 'smart-case', 'sort-files', 'no-sort-files', 'stats', 'no-stats', 'text',
    'no-text', 'type-list', 'unrestricted', 'vimgrep', 'with-filename', 'no-filename', 'word-regexp', 'max-columns-preview',
    'no-max-columns-preview', 'trim', 'no-trim', 'auto-hybrid-regex', 'no-auto-hybrid-regex', 'no-context-separator',
    'pretty', 'stop-on-nonmatch', 'help', 'version',
  ],
  longValued: [
    'after-context', 'before-context', 'context', 'context-separator', 'color', 'colors', 'dfa-size-limit', 'encoding',
    'engine', 'file', 'glob', 'iglob', 'ignore-file', 'max-columns', 'max-count', 'max-depth', 'maxdepth', 'max-filesize',
    'path-separator', 'regexp', 'regex-size-limit', 'replace', 'sort', 'sortr', 'threads', 'type', 'type-not', 'type-add',
    'type-clear', 'field-context-separator', 'field-match-separator', 'hyperlink-format',
  ],
});

/** GNU sort, without `-o`/`--output`, `--compress-program` and `-T`/`--temporary-directory`. */
const SORT = defineOptions({
  flags: 'bdfgiMhnRrVcCsumz',
  valued: 'ktS',
  long: [
    'ignore-leading-blanks', 'dictionary-order', 'ignore-case', 'general-numeric-sort', 'ignore-nonprinting',
    'month-sort', 'human-numeric-sort', 'numeric-sort', 'random-sort', 'reverse', 'version-sort', 'merge', 'stable',
    'unique', 'zero-terminated', 'debug',
  ],
  longValued: ['sort', 'random-source', 'key', 'field-separator', 'buffer-size', 'parallel', 'files0-from'],
  longOptional: ['check'],
});

/** `file` (libmagic 5), without `-C`/`--compile`, `-p`/`--preserve-date`, `-z`/`-Z` (decompressors). */
const FILE = defineOptions({
  flags: 'bcdEhiIkLlNnrsSv0',
  valued: 'eFfmP',
  long: [
    'brief', 'extension', 'mime', 'mime-type', 'mime-encoding', 'keep-going', 'list', 'dereference', 'no-dereference',
    'no-buffer', 'no-pad', 'print0', 'raw', 'special-files', 'apple', 'no-sandbox',
  ],
  longValued: ['exclude', 'exclude-quiet', 'files-from', 'separator', 'magic-file', 'parameter'],
});

/** Option tables of the commands checked option by option (see also `find`, `git`, `sed` in `safe-commands.ts`). */
export const SAFE_OPTIONS: ReadonlyMap<string, OptionTable> = new Map<string, OptionTable>([
  ['cat', defineOptions({ flags: 'AbeEnstTuv', long: ['show-all', 'number-nonblank', 'show-ends', 'number', 'squeeze-blank', 'show-tabs', 'show-nonprinting'] })],
  ['cd', defineOptions({ flags: 'LPe@', gnu: false })],
  ['cut', defineOptions({ flags: 'nsz', valued: 'bcdf', long: ['complement', 'only-delimited', 'zero-terminated'], longValued: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] })],
  ['grep', GREP],
  ['head', defineOptions({ flags: 'qvz', valued: 'cn', numeric: 'option', long: ['quiet', 'silent', 'verbose', 'zero-terminated'], longValued: ['bytes', 'lines'] })],
  ['id', defineOptions({ flags: 'aZgGnruz', long: ['context', 'group', 'groups', 'name', 'real', 'user', 'zero'] })],
  ['ls', LS],
  [
    'nl',
    defineOptions({
      flags: 'p',
      valued: 'bdfhilnsvw',
      long: ['no-renumber'],
      longValued: ['body-numbering', 'section-delimiter', 'footer-numbering', 'header-numbering', 'line-increment', 'join-blank-lines', 'number-format', 'number-separator', 'starting-line-number', 'number-width'],
    }),
  ],
  ['paste', defineOptions({ flags: 'sz', valued: 'd', long: ['serial', 'zero-terminated'], longValued: ['delimiters'] })],
  ['pwd', defineOptions({ flags: 'LP', long: ['logical', 'physical'] })],
  ['rev', defineOptions({ flags: '0hV', long: ['zero'] })],
  ['seq', defineOptions({ flags: 'w', valued: 'fs', numeric: 'positional', long: ['equal-width'], longValued: ['format', 'separator'] })],
  ['stat', defineOptions({ flags: 'LftZ', valued: 'c', long: ['dereference', 'file-system', 'terse'], longValued: ['format', 'printf', 'cached'] })],
  [
    'tail',
    defineOptions({
      flags: 'fFqvz',
      valued: 'cns',
      numeric: 'option',
      long: ['retry', 'quiet', 'silent', 'verbose', 'zero-terminated'],
      longValued: ['bytes', 'lines', 'pid', 'max-unchanged-stats', 'sleep-interval'],
      longOptional: ['follow'],
    }),
  ],
  ['tr', defineOptions({ flags: 'cCdst', long: ['complement', 'delete', 'squeeze-repeats', 'truncate-set1'] })],
  ['uname', defineOptions({ flags: 'asnrvmpio', long: ['all', 'kernel-name', 'nodename', 'kernel-release', 'kernel-version', 'machine', 'processor', 'hardware-platform', 'operating-system'] })],
  ['wc', defineOptions({ flags: 'cmlLw', long: ['bytes', 'chars', 'lines', 'max-line-length', 'words'], longValued: ['files0-from', 'total'] })],
  ['which', defineOptions({ flags: 'as', gnu: false })],
  ['whoami', defineOptions({})],
  [
    'numfmt',
    defineOptions({
      flags: 'z',
      valued: 'd',
      numeric: 'positional',
      long: ['debug', 'grouping', 'zero-terminated'],
      longValued: ['delimiter', 'field', 'format', 'from', 'from-unit', 'invalid', 'padding', 'round', 'suffix', 'unit-separator', 'to', 'to-unit'],
      longOptional: ['header'],
    }),
  ],
  ['tac', defineOptions({ flags: 'br', valued: 's', long: ['before', 'regex'], longValued: ['separator'] })],
  ['base64', defineOptions({ flags: 'di', valued: 'w', long: ['decode', 'ignore-garbage'], longValued: ['wrap'] })],
  ['rg', RG],
  ['sort', SORT],
  [
    'uniq',
    defineOptions({
      flags: 'cdDiuz',
      valued: 'fsw',
      long: ['count', 'repeated', 'ignore-case', 'unique', 'zero-terminated'],
      longValued: ['skip-fields', 'skip-chars', 'check-chars'],
      longOptional: ['all-repeated', 'group'],
    }),
  ],
  ['file', FILE],
]);

/**
 * Commands none of whose options (in the full GNU set, abbreviations included) writes, runs or
 * decompresses anything, so a word that expands into unseen words (`cat *.txt`, `ls *`) is
 * harmless as their argument. `sort`, `uniq` (a second file is written), `rg`, `find`, `file`,
 * `sed`, `git` and `base64` (BSD's has `-o`) are not among them.
 */
export const GLOB_TOLERANT_COMMANDS: ReadonlySet<string> = new Set([
  ...PRINT_ONLY_COMMANDS, 'cat', 'cd', 'cut', 'grep', 'head', 'id', 'ls', 'nl', 'paste', 'pwd', 'rev', 'seq', 'stat', 'tail',
  'tr', 'uname', 'wc', 'which', 'whoami', 'numfmt', 'tac',
]);

/** Commands that exist only in GNU userlands (safe on Linux only, as Codex has it). */
export const LINUX_ONLY_COMMANDS: ReadonlySet<string> = new Set(['numfmt', 'tac']);
