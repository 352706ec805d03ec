/** Unit tests of seekSequence: each matching level, its order, the end-of-file rule and the edge cases. */
import { describe, expect, it } from 'vitest';
import { foldPunctuation, seekSequence } from '../../src/tools/apply-patch/seek-sequence.js';

describe('seekSequence', () => {
  it('finds an exact match', () => {
    expect(seekSequence(['foo', 'bar', 'baz'], ['bar', 'baz'], 0, false)).toBe(1);
  });

  it('ignores trailing whitespace when no exact match exists', () => {
    expect(seekSequence(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false)).toBe(0);
  });

  it('ignores leading and trailing whitespace as a later resort', () => {
    expect(seekSequence(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false)).toBe(0);
  });

  it('folds typographic punctuation only after the whitespace levels fail', () => {
    const lines = ['say \u201chi\u201d \u2014 it\u2019s\u00a0fine'];
    expect(seekSequence(lines, [`say "hi" - it's fine`], 0, false)).toBe(0);
  });

  it('prefers a stricter level at a later position over a looser one earlier', () => {
    expect(seekSequence(['  x', 'x'], ['x'], 0, false)).toBe(1);
  });

  it('does not match lines that differ in their letters', () => {
    expect(seekSequence(['hello world'], ['hello wrold'], 0, false)).toBeNull();
  });

  it('starts searching at the given index', () => {
    expect(seekSequence(['a', 'b', 'a'], ['a'], 1, false)).toBe(2);
  });

  it('tries the end of the file first for an end-of-file pattern', () => {
    expect(seekSequence(['x', 'y', 'x'], ['x'], 0, true)).toBe(2);
  });

  it('falls back to the normal search when the end of the file does not match', () => {
    expect(seekSequence(['x', 'y', 'z'], ['x'], 0, true)).toBe(0);
  });

  it('returns the start index for an empty pattern', () => {
    expect(seekSequence(['a'], [], 1, false)).toBe(1);
  });

  it('returns null when the pattern is longer than the file', () => {
    expect(seekSequence(['just one line'], ['too', 'many', 'lines'], 0, false)).toBeNull();
  });
});

describe('foldPunctuation', () => {
  it('maps dashes, curly quotes and odd spaces to ASCII', () => {
    expect(foldPunctuation('\u2010\u2011\u2012\u2013\u2014\u2015\u2212')).toBe('-------');
    expect(foldPunctuation('\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f')).toBe(`''''""""`);
    expect(foldPunctuation('a\u00a0b\u2002c\u2009d\u202fe\u205ff\u3000g')).toBe('a b c d e f g');
  });
});
