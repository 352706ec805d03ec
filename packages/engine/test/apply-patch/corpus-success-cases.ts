/**
 * Corpus cases that must apply: every grammar form, each matching level, context narrowing, end of
 * file anchoring, line endings, moves and multi-file patches. Each lists the complete workspace
 * afterwards, so a stray write to any other file fails the case.
 */
import { patch, type PatchCase } from './corpus-helpers.js';

const NBSP = '\u00a0';

export const SUCCESS_CASES: PatchCase[] = [
  {
    name: 'adds a new file with the + lines as its content',
    patch: patch('*** Add File: hello.txt', '+Hello, world!', '+second line'),
    expected: { 'hello.txt': 'Hello, world!\nsecond line\n' },
    summary: 'Success. Updated the following files:\nA hello.txt\n',
  },
  {
    name: 'adds a file inside directories that do not exist yet',
    patch: patch('*** Add File: a/b/c/new.md', '+# Title'),
    expected: { 'a/b/c/new.md': '# Title\n' },
    summary: 'Success. Updated the following files:\nA a/b/c/new.md\n',
  },
  {
    name: 'overwrites an existing file named by an add section, as the reference does',
    files: { 'duplicate.txt': 'old content\n' },
    patch: patch('*** Add File: duplicate.txt', '+new content'),
    expected: { 'duplicate.txt': 'new content\n' },
    summary: 'Success. Updated the following files:\nA duplicate.txt\n',
  },
  {
    name: 'creates an empty file from an add section without lines',
    patch: patch('*** Add File: empty.txt'),
    expected: { 'empty.txt': '' },
  },
  {
    name: 'keeps trailing whitespace and blank lines of added content exactly',
    patch: patch('*** Add File: ws.txt', '+indented   ', '+', '+\tTab'),
    expected: { 'ws.txt': 'indented   \n\n\tTab\n' },
  },
  {
    name: 'deletes a file and leaves its neighbours alone',
    files: { 'obsolete.txt': 'bye\n', 'keep.txt': 'stay\n' },
    patch: patch('*** Delete File: obsolete.txt'),
    expected: { 'keep.txt': 'stay\n' },
    summary: 'Success. Updated the following files:\nD obsolete.txt\n',
  },
  {
    name: 'replaces a line in a chunk opened by a bare @@',
    files: { 'update.txt': 'foo\nbar\n' },
    patch: patch('*** Update File: update.txt', '@@', ' foo', '-bar', '+baz'),
    expected: { 'update.txt': 'foo\nbaz\n' },
    summary: 'Success. Updated the following files:\nM update.txt\n',
  },
  {
    name: 'accepts a first chunk that omits the @@ line',
    files: { 'file2.py': 'import foo\nx = 1\n' },
    patch: patch('*** Update File: file2.py', ' import foo', '+import bar'),
    expected: { 'file2.py': 'import foo\nimport bar\nx = 1\n' },
  },
  {
    name: 'applies several chunks to one file in order',
    files: { 'multi.txt': 'line1\nline2\nline3\nline4\n' },
    patch: patch('*** Update File: multi.txt', '@@', '-line2', '+changed2', '@@', '-line4', '+changed4'),
    expected: { 'multi.txt': 'line1\nchanged2\nline3\nchanged4\n' },
  },
  {
    name: 'applies interleaved replacements and an end-of-file append in one update',
    files: { 'interleaved.txt': 'a\nb\nc\nd\ne\nf\n' },
    patch: patch(
      '*** Update File: interleaved.txt',
      '@@', ' a', '-b', '+B',
      '@@', ' c', ' d', '-e', '+E',
      '@@', ' f', '+g', '*** End of File',
    ),
    expected: { 'interleaved.txt': 'a\nB\nc\nd\nE\nf\ng\n' },
  },
  {
    name: 'uses an @@ context line to pick the second of two identical blocks',
    files: { 'a.py': 'def first():\n    return 1\n\ndef second():\n    return 1\n' },
    patch: patch('*** Update File: a.py', '@@ def second():', '-    return 1', '+    return 2'),
    expected: { 'a.py': 'def first():\n    return 1\n\ndef second():\n    return 2\n' },
  },
  {
    name: 'narrows the match with consecutive @@ context lines, outermost first',
    files: {
      'shapes.py': [
        'class Circle:', '    def area(self):', '        return 0', '    def name(self):', '        return 0',
        'class Square:', '    def area(self):', '        return 0', '    def name(self):', '        return 0', '',
      ].join('\n'),
    },
    patch: patch('*** Update File: shapes.py', '@@ class Square:', '@@     def name(self):', '-        return 0', "+        return 'square'"),
    expected: {
      'shapes.py': [
        'class Circle:', '    def area(self):', '        return 0', '    def name(self):', '        return 0',
        'class Square:', '    def area(self):', '        return 0', '    def name(self):', "        return 'square'", '',
      ].join('\n'),
    },
  },
  {
    name: 'searches each chunk after the previous one, so repeated lines change in patch order',
    files: { 'rep.txt': 'x = 1\nx = 1\nx = 1\n' },
    patch: patch('*** Update File: rep.txt', '@@', '-x = 1', '+x = 2', '@@', '-x = 1', '+x = 3'),
    expected: { 'rep.txt': 'x = 2\nx = 3\nx = 1\n' },
  },
  {
    name: 'anchors an *** End of File chunk at the end even when its lines also occur earlier',
    files: { 'tail.txt': 'end\nmiddle\nend\n' },
    patch: patch('*** Update File: tail.txt', '@@', '-end', '+END', '*** End of File'),
    expected: { 'tail.txt': 'end\nmiddle\nEND\n' },
  },
  {
    name: 'appends lines with a pure-addition chunk marked *** End of File',
    files: { 'insert.txt': 'foo\nbar\nbaz\n' },
    patch: patch('*** Update File: insert.txt', '@@', '+quux', '*** End of File'),
    expected: { 'insert.txt': 'foo\nbar\nbaz\nquux\n' },
  },
  {
    name: 'puts a pure addition without context at the end of the file, as the reference does',
    files: { 'input.txt': 'line1\nline2\nline3\n' },
    patch: patch('*** Update File: input.txt', '@@', '+after-context', '+second-line', '@@', ' line1', '-line2', '-line3', '+line2-replacement'),
    expected: { 'input.txt': 'line1\nline2-replacement\nafter-context\nsecond-line\n' },
  },
  {
    name: 'inserts a pure addition right after the line its @@ context names',
    files: { 'cfg.ini': '[server]\nport = 80\n[client]\nretries = 3\n' },
    patch: patch('*** Update File: cfg.ini', '@@ [server]', '+host = example.org'),
    expected: { 'cfg.ini': '[server]\nhost = example.org\nport = 80\n[client]\nretries = 3\n' },
  },
  {
    name: 'removes lines with a deletion-only chunk',
    files: { 'lines.txt': 'line1\nline2\nline3\n' },
    patch: patch('*** Update File: lines.txt', '@@', ' line1', '-line2', ' line3'),
    expected: { 'lines.txt': 'line1\nline3\n' },
  },
  {
    name: 'matches lines whose trailing whitespace differs and keeps the file’s context lines as they were',
    files: { 'trail.txt': 'alpha   \nbeta\t\ngamma\n' },
    patch: patch('*** Update File: trail.txt', '@@', ' alpha', '-beta', '+BETA'),
    expected: { 'trail.txt': 'alpha   \nBETA\ngamma\n' },
  },
  {
    name: 'matches lines whose indentation differs when nothing closer exists',
    files: { 'indent.py': 'if x:\n        call()\n        done()\n' },
    patch: patch('*** Update File: indent.py', '@@', '    call()', '-    done()', '+        finish()'),
    expected: { 'indent.py': 'if x:\n        call()\n        finish()\n' },
  },
  {
    name: 'prefers an exact match over an earlier whitespace-only match',
    files: { 'prefer.txt': '  value\nvalue\n' },
    patch: patch('*** Update File: prefer.txt', '@@', '-value', '+VALUE'),
    expected: { 'prefer.txt': '  value\nVALUE\n' },
  },
  {
    name: 'matches typographic dashes and quotes written as ASCII and leaves context lines untouched',
    files: { 'unicode.py': `# note \u2013 \u201cquoted\u201d\nimport asyncio  # local import \u2013 avoids top\u2011level dep\nx${NBSP}= 1\n` },
    patch: patch('*** Update File: unicode.py', '@@', ' # note - "quoted"', '-import asyncio  # local import - avoids top-level dep', '+import asyncio  # HELLO', ' x = 1'),
    expected: { 'unicode.py': `# note \u2013 \u201cquoted\u201d\nimport asyncio  # HELLO\nx${NBSP}= 1\n` },
  },
  {
    name: 'edits non-ASCII text matched exactly',
    files: { 'foo.txt': 'héllo wörld\n日本語\n' },
    patch: patch('*** Update File: foo.txt', '@@', '-日本語', '+中文'),
    expected: { 'foo.txt': 'héllo wörld\n中文\n' },
  },
  {
    name: 'keeps CRLF line endings of a CRLF file, new lines included',
    files: { 'crlf.txt': 'one\r\ntwo\r\nthree\r\n' },
    patch: patch('*** Update File: crlf.txt', '@@', '-one', '+uno', '@@', ' two', '+', '+between', ' three'),
    expected: { 'crlf.txt': 'uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n' },
  },
  {
    name: 'keeps each untouched line’s own ending in a file with mixed endings',
    files: { 'mixed.txt': 'one\r\ntwo\nthree\r\nfour\n' },
    patch: patch('*** Update File: mixed.txt', '@@', ' one', ' two', '-three', '+THREE', ' four'),
    expected: { 'mixed.txt': 'one\r\ntwo\nTHREE\r\nfour\n' },
  },
  {
    name: 'keeps the ending of the context line that survives when a duplicate is removed',
    files: { 'repeated_context.txt': 'same\r\nsame\n' },
    patch: patch('*** Update File: repeated_context.txt', '@@', '-same', ' same'),
    expected: { 'repeated_context.txt': 'same\n' },
  },
  {
    name: 'ends an updated file with a line break even when the original had none',
    files: { 'no_newline.txt': 'no newline at end' },
    patch: patch('*** Update File: no_newline.txt', '@@', '-no newline at end', '+first line', '+second line'),
    expected: { 'no_newline.txt': 'first line\nsecond line\n' },
  },
  {
    name: 'uses CRLF for the final line break it adds to a CRLF file',
    files: { 'no_trailing_newline.txt': 'one\r\ntwo' },
    patch: patch('*** Update File: no_trailing_newline.txt', '@@', '-one', '+ONE'),
    expected: { 'no_trailing_newline.txt': 'ONE\r\ntwo\r\n' },
  },
  {
    name: 'renames a file whose update has only context lines, leaving the content as it was',
    files: { 'old.txt': 'keep me\nas is\n' },
    patch: patch('*** Update File: old.txt', '*** Move to: new.txt', '@@', ' keep me'),
    expected: { 'new.txt': 'keep me\nas is\n' },
    summary: 'Success. Updated the following files:\nM new.txt\n',
  },
  {
    name: 'moves a file into a new directory while changing it',
    files: { 'old/name.txt': 'old content\n', 'old/other.txt': 'unrelated\n' },
    patch: patch('*** Update File: old/name.txt', '*** Move to: renamed/dir/name.txt', '@@', '-old content', '+new content'),
    expected: { 'old/other.txt': 'unrelated\n', 'renamed/dir/name.txt': 'new content\n' },
    summary: 'Success. Updated the following files:\nM renamed/dir/name.txt\n',
  },
  {
    name: 'overwrites an existing move destination, as the reference does',
    files: { 'old/name.txt': 'from\n', 'renamed/dir/name.txt': 'existing\n' },
    patch: patch('*** Update File: old/name.txt', '*** Move to: renamed/dir/name.txt', '@@', '-from', '+new'),
    expected: { 'renamed/dir/name.txt': 'new\n' },
  },
  {
    name: 'treats a move onto the same path as a plain update',
    files: { 'same.txt': 'a\n' },
    patch: patch('*** Update File: same.txt', '*** Move to: same.txt', '@@', '-a', '+b'),
    expected: { 'same.txt': 'b\n' },
  },
  {
    name: 'adds, updates and deletes files in one patch and lists them A, M, D',
    files: { 'modify.txt': 'line1\nline2\n', 'delete.txt': 'obsolete\n' },
    patch: patch('*** Add File: nested/new.txt', '+created', '*** Delete File: delete.txt', '*** Update File: modify.txt', '@@', '-line2', '+changed'),
    expected: { 'nested/new.txt': 'created\n', 'modify.txt': 'line1\nchanged\n' },
    summary: 'Success. Updated the following files:\nA nested/new.txt\nM modify.txt\nD delete.txt\n',
  },
  {
    name: 'lets a second section see what the first section of the same patch did',
    files: { 'twice.txt': 'a\nb\n' },
    patch: patch('*** Update File: twice.txt', '@@', '-a', '+A', '*** Update File: twice.txt', '@@', ' A', '-b', '+B'),
    expected: { 'twice.txt': 'A\nB\n' },
    summary: 'Success. Updated the following files:\nM twice.txt\n',
  },
  {
    name: 'updates a file that an earlier section of the same patch added',
    patch: patch('*** Add File: fresh.txt', '+one', '+two', '*** Update File: fresh.txt', '@@', '-two', '+2'),
    expected: { 'fresh.txt': 'one\n2\n' },
  },
  {
    name: 'tolerates whitespace around the envelope and section markers',
    files: { 'file.txt': 'one\n' },
    patch: ' *** Begin Patch \n  *** Update File: file.txt\n@@\n-one\n+two\n *** End Patch \n\n',
    expected: { 'file.txt': 'two\n' },
  },
  {
    name: "unwraps a patch sent inside a <<'EOF' heredoc",
    files: { 'file.txt': 'one\n' },
    patch: `<<'EOF'\n${patch('*** Update File: file.txt', '@@', '-one', '+two')}\nEOF\n`,
    expected: { 'file.txt': 'two\n' },
  },
  {
    name: 'parses a patch whose own lines end in CRLF',
    files: { 'file.txt': 'one\n' },
    patch: patch('*** Update File: file.txt', '@@', '-one', '+two').replace(/\n/g, '\r\n'),
    expected: { 'file.txt': 'two\n' },
  },
  {
    name: 'accepts absolute paths inside the workspace and prints them relative',
    files: { 'abs.txt': 'x\n' },
    patch: patch('*** Update File: {cwd}/abs.txt', '@@', '-x', '+y'),
    expected: { 'abs.txt': 'y\n' },
    summary: 'Success. Updated the following files:\nM abs.txt\n',
  },
  {
    name: 'drops a trailing empty context line that stands for the final line break',
    files: { 'last.txt': 'foo\nbar\nbaz\n' },
    patch: patch('*** Update File: last.txt', '@@', ' bar', '-baz', '+BAZ', ' '),
    expected: { 'last.txt': 'foo\nbar\nBAZ\n' },
  },
  {
    name: 'ignores blank lines between chunks and between file sections',
    files: { 'a.txt': '1\n2\n3\n', 'b.txt': 'b\n' },
    patch: patch('*** Update File: a.txt', '@@', '-1', '+one', '', '@@', '-3', '+three', '', '*** Delete File: b.txt'),
    expected: { 'a.txt': 'one\n2\nthree\n' },
  },
  {
    name: 'reads a bare empty line inside a chunk as an empty context line',
    files: { 'gap.txt': 'a\n\nb\n' },
    patch: patch('*** Update File: gap.txt', '@@', ' a', '', '-b', '+B'),
    expected: { 'gap.txt': 'a\n\nB\n' },
  },
  {
    name: 'accepts a unified-diff style @@ header and ignores its line numbers',
    files: { 'nums.txt': 'one\ntwo\nthree\n' },
    patch: patch('*** Update File: nums.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three'),
    expected: { 'nums.txt': 'one\n2\nthree\n' },
  },
  {
    name: 'replaces lines in order when new lines repeat the old ones',
    files: { 'repeated.txt': 'a\nb\n' },
    patch: patch('*** Update File: repeated.txt', '@@', '-a', '-b', '+b', '+b', '+a'),
    expected: { 'repeated.txt': 'b\nb\na\n' },
  },
  {
    name: 'fills an empty file from a pure-addition chunk',
    files: { 'empty.txt': '' },
    patch: patch('*** Update File: empty.txt', '@@', '+first', '+second'),
    expected: { 'empty.txt': 'first\nsecond\n' },
  },
  {
    name: 'leaves an empty file when every line is removed',
    files: { 'all.txt': 'a\nb\n' },
    patch: patch('*** Update File: all.txt', '@@', '-a', '-b'),
    expected: { 'all.txt': '' },
  },
];
