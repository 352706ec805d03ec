/**
 * Unit tests of the patch parser: the hunk structures it builds for each grammar form, and the
 * leniencies it shares with (or adds to) the reference.
 */
import { describe, expect, it } from 'vitest';
import { PatchParseError } from '../../src/tools/apply-patch/errors.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';
import { patch } from './corpus-helpers.js';

describe('parsePatch', () => {
  it('builds add, delete and update hunks with move paths and chunk contexts', () => {
    const parsed = parsePatch(
      patch(
        '*** Add File: path/add.py', '+abc', '+def',
        '*** Delete File: path/delete.py',
        '*** Update File: path/update.py', '*** Move to: path/update2.py', '@@ def f():', '-    pass', '+    return 123',
      ),
    );
    expect(parsed.hunks).toEqual([
      { type: 'add', path: 'path/add.py', contents: 'abc\ndef\n' },
      { type: 'delete', path: 'path/delete.py' },
      {
        type: 'update',
        path: 'path/update.py',
        movePath: 'path/update2.py',
        chunks: [
          {
            contexts: ['def f():'],
            lines: [
              { kind: 'remove', text: '    pass' },
              { kind: 'add', text: '    return 123' },
            ],
            oldLines: ['    pass'],
            newLines: ['    return 123'],
            isEndOfFile: false,
          },
        ],
      },
    ]);
  });

  it('keeps every consecutive @@ context line, outermost first', () => {
    const parsed = parsePatch(patch('*** Update File: a.py', '@@ class A:', '@@ \t def m(self):', ' x', '-y', '+z'));
    const hunk = parsed.hunks[0];
    expect(hunk?.type === 'update' ? hunk.chunks[0]?.contexts : null).toEqual(['class A:', '\t def m(self):']);
  });

  it('marks a chunk ending in *** End of File and stops the chunk there', () => {
    const parsed = parsePatch(patch('*** Update File: f', '@@', '+line', '*** End of File', '*** Delete File: g'));
    expect(parsed.hunks).toEqual([
      {
        type: 'update',
        path: 'f',
        movePath: null,
        chunks: [{ contexts: [], lines: [{ kind: 'add', text: 'line' }], oldLines: [], newLines: ['line'], isEndOfFile: true }],
      },
      { type: 'delete', path: 'g' },
    ]);
  });

  it('ends an update section at the next section header', () => {
    const parsed = parsePatch(patch('*** Update File: file.py', '@@', '+line', '*** Add File: other.py', '+content'));
    expect(parsed.hunks.map((h) => h.type)).toEqual(['update', 'add']);
    expect(parsed.hunks[1]).toEqual({ type: 'add', path: 'other.py', contents: 'content\n' });
  });

  it('returns the patch text without the heredoc wrapper', () => {
    const inner = patch('*** Add File: foo', '+hi');
    for (const opener of ['<<EOF', "<<'EOF'", '<<"EOF"', "apply_patch <<'EOF'"]) {
      expect(parsePatch(`${opener}\n${inner}\nEOF\n`).text).toBe(inner);
    }
  });

  it('reports the envelope error of the inner patch when a heredoc wraps an incomplete one', () => {
    expect(() => parsePatch("<<'EOF'\n*** Begin Patch\n*** Update File: file2.py\nEOF\n")).toThrow(
      "Invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it('throws PatchParseError carrying the line number and the bare reason', () => {
    let caught: unknown;
    try {
      parsePatch(patch('*** Add File: ok', '+fine', '*** Nope: x'));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PatchParseError);
    expect((caught as PatchParseError).code).toBe('patch_parse_error');
    expect((caught as PatchParseError).lineNumber).toBe(4);
    expect((caught as PatchParseError).reason).toMatch(/^'\*\*\* Nope: x' is not a valid hunk header/);
  });

  it('reads the text after a unified-diff @@ header as context and drops its line numbers', () => {
    const parsed = parsePatch(patch('*** Update File: f', '@@ -10,3 +10,4 @@ function main() {', '-a', '+b'));
    const hunk = parsed.hunks[0];
    expect(hunk?.type === 'update' ? hunk.chunks[0]?.contexts : null).toEqual(['function main() {']);
  });

  it('trims stray spaces around file paths in headers', () => {
    const parsed = parsePatch(patch('*** Update File:  a.txt ', '*** Move to:  b.txt', '@@', '-x', '+y'));
    expect(parsed.hunks[0]).toMatchObject({ path: 'a.txt', movePath: 'b.txt' });
  });

  it('rejects an empty input with the first-line message', () => {
    expect(() => parsePatch('   \n')).toThrow("The first line of the patch must be '*** Begin Patch'");
  });

  it('treats a lone *** Begin Patch as missing its end marker', () => {
    expect(() => parsePatch('*** Begin Patch')).toThrow("The last line of the patch must be '*** End Patch'");
  });

  it('parses an envelope without sections into an empty hunk list', () => {
    expect(parsePatch(patch()).hunks).toEqual([]);
  });
});
