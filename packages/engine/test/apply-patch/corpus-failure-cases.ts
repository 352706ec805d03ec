/**
 * Corpus cases that must fail: parse errors of each kind, files that are missing or of the wrong
 * type, context that cannot be found, and patches whose later section fails after an earlier one
 * would have succeeded. The runner checks that the workspace is byte-for-byte unchanged.
 */
import { patch, type PatchCase } from './corpus-helpers.js';

export const FAILURE_CASES: PatchCase[] = [
  {
    name: 'rejects text that does not start with *** Begin Patch',
    files: { 'foo.txt': 'x\n' },
    patch: '*** Update File: foo.txt\n@@\n-x\n+y\n*** End Patch',
    error: "Invalid patch: The first line of the patch must be '*** Begin Patch'",
  },
  {
    name: 'rejects a patch without *** End Patch',
    files: { 'foo.txt': 'x\n' },
    patch: '*** Begin Patch\n*** Update File: foo.txt\n@@\n-x\n+y',
    error: "Invalid patch: The last line of the patch must be '*** End Patch'",
  },
  {
    name: 'rejects an unknown section header and names its line',
    files: { 'foo.txt': 'x\n' },
    patch: patch('*** Frobnicate File: foo'),
    error:
      "Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
  },
  {
    name: 'rejects an update section without any chunk',
    files: { 'foo.txt': 'x\n' },
    patch: patch('*** Update File: foo.txt'),
    error: "Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty",
  },
  {
    name: 'rejects a second chunk that does not start with @@',
    files: { 'foo.txt': 'a\nb\n' },
    patch: patch('*** Update File: foo.txt', '@@', '-a', '+A', 'b'),
    error: "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: 'b'",
  },
  {
    name: 'rejects a chunk line without a space, + or - prefix',
    files: { 'foo.txt': 'a\n' },
    patch: patch('*** Update File: foo.txt', '@@', 'bad'),
    error: "Invalid patch hunk on line 4: Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
  },
  {
    name: 'rejects a chunk that holds only *** End of File',
    files: { 'foo.txt': 'a\n' },
    patch: patch('*** Update File: foo.txt', '@@', '*** End of File'),
    error: 'Invalid patch hunk on line 4: Update hunk does not contain any lines',
  },
  {
    name: 'rejects a chunk header with nothing after it',
    files: { 'foo.txt': 'a\n' },
    patch: patch('*** Update File: foo.txt', '@@ something'),
    error: 'Update hunk does not contain any lines',
  },
  {
    name: 'rejects a heredoc wrapper whose quotes do not match',
    files: { 'foo.txt': 'a\n' },
    patch: `<<"EOF'\n${patch('*** Update File: foo.txt', '@@', '-a', '+b')}\nEOF\n`,
    error: "The first line of the patch must be '*** Begin Patch'",
  },
  {
    name: 'rejects a patch with no file sections',
    files: { 'foo.txt': 'a\n' },
    patch: patch(),
    error: 'No files were modified.',
  },
  {
    name: 'fails to update a file that does not exist',
    patch: patch('*** Update File: missing.txt', '@@', '-old', '+new'),
    error: 'Failed to read file to update missing.txt: No such file or directory',
  },
  {
    name: 'fails to delete a file that does not exist',
    files: { 'foo.txt': 'x\n' },
    patch: patch('*** Delete File: missing.txt'),
    error: 'Failed to delete file missing.txt: No such file or directory',
  },
  {
    name: 'fails to delete a directory',
    files: { 'dir/foo.txt': 'x\n' },
    patch: patch('*** Delete File: dir'),
    error: 'Failed to delete file dir: Is a directory',
  },
  {
    name: 'fails to move a file onto a directory',
    files: { 'a.txt': 'x\n', 'target/keep.txt': 'k\n' },
    patch: patch('*** Update File: a.txt', '*** Move to: target', '@@', '-x', '+y'),
    error: 'Failed to write file target: Is a directory',
  },
  {
    name: 'reports the expected lines when they are not in the file',
    files: { 'modify.txt': 'line1\nline2\n' },
    patch: patch('*** Update File: modify.txt', '@@', '-missing', '+changed'),
    error: 'Failed to find expected lines in modify.txt (hunk 1):\nmissing',
  },
  {
    name: 'names the chunk that failed when an earlier one matched',
    files: { 'modify.txt': 'a\nb\nc\n' },
    patch: patch('*** Update File: modify.txt', '@@', '-a', '+A', '@@', ' b', '-nope', '+x'),
    error: 'Failed to find expected lines in modify.txt (hunk 2):\nb\nnope',
  },
  {
    name: 'reports an @@ context line that is not in the file',
    files: { 'a.py': 'def f():\n    pass\n' },
    patch: patch('*** Update File: a.py', '@@ def nowhere():', '-    pass', '+    return 1'),
    error: "Failed to find context 'def nowhere():' in a.py (hunk 1)",
  },
  {
    name: 'does not match lines that differ in more than whitespace or punctuation style',
    files: { 'close.txt': 'const value = 1;\n' },
    patch: patch('*** Update File: close.txt', '@@', '-const valeu = 1;', '+const value = 2;'),
    error: 'Failed to find expected lines in close.txt (hunk 1)',
  },
  {
    name: 'does not look for later chunks before the position of earlier ones',
    files: { 'order.txt': 'b\na\n' },
    patch: patch('*** Update File: order.txt', '@@', '-a', '+A', '@@', '-b', '+B'),
    error: 'Failed to find expected lines in order.txt (hunk 2):\nb',
  },
  {
    name: 'fails to update a file that is not UTF-8 text',
    files: { 'bin.dat': Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x0a]) },
    patch: patch('*** Update File: bin.dat', '@@', '-A', '+B'),
    error: 'Failed to read file to update bin.dat: File is not valid UTF-8 text',
  },
  {
    name: 'writes nothing when the second file of a patch fails after the first one would have applied',
    files: { 'first.txt': 'one\n', 'second.txt': 'two\n' },
    patch: patch('*** Update File: first.txt', '@@', '-one', '+ONE', '*** Update File: second.txt', '@@', '-absent', '+x'),
    error: 'Failed to find expected lines in second.txt (hunk 1):\nabsent',
  },
  {
    name: 'creates nothing when a later section of the patch fails',
    files: { 'keep.txt': 'k\n' },
    patch: patch('*** Add File: created.txt', '+hello', '*** Update File: missing.txt', '@@', '-old', '+new'),
    error: 'Failed to read file to update missing.txt: No such file or directory',
  },
  {
    name: 'deletes nothing when a later section of the patch fails',
    files: { 'doomed.txt': 'd\n', 'other.txt': 'o\n' },
    patch: patch('*** Delete File: doomed.txt', '*** Delete File: ghost.txt'),
    error: 'Failed to delete file ghost.txt: No such file or directory',
  },
  {
    name: 'moves nothing when a later section of the patch fails',
    files: { 'src.txt': 's\n', 'b.txt': 'b\n' },
    patch: patch('*** Update File: src.txt', '*** Move to: moved/dst.txt', '@@', '-s', '+S', '*** Update File: b.txt', '@@ nothing here', '-b', '+B'),
    error: "Failed to find context 'nothing here' in b.txt (hunk 1)",
  },
];
