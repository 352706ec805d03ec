/**
 * The neutraliser of text shown for a decision: each class of hidden character comes out as a
 * visible escape, ordinary text (backslashes included) is left alone, and no two texts render
 * the same. Injectivity is checked two ways: on pairs built to collide, and by decoding the
 * rendering of many random strings back to the original.
 */
import { describe, expect, it } from 'vitest';
import { displayFormSchema, displayJson, displayLines, displayText } from '@deputy/protocol';

/** The inverse of displayText / displayLines: proves the rendering loses nothing. */
function decode(shown: string): string {
  return shown.replace(/\\x([0-9a-f]{2})|\\u\{([0-9a-f]+)\}/g, (_m, hex: string | undefined, wide: string | undefined) => {
    const code = parseInt(hex ?? wide ?? '', 16);
    // A lone surrogate cannot go through fromCodePoint's pairing, but it is a single code unit.
    return code >= 0xd800 && code <= 0xdfff ? String.fromCharCode(code) : String.fromCodePoint(code);
  });
}

/** Nothing a terminal would act on or hide is left in the rendering. */
const RAW_HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

describe('displayText', () => {
  it.each([
    ['carriage return', 'rm -rf ~\r/bin/bash -lc npm test', 'rm -rf ~\\x0d/bin/bash -lc npm test'],
    ['line feed', 'echo hi\nrm -rf ~', 'echo hi\\x0arm -rf ~'],
    ['tab', 'a\tb', 'a\\x09b'],
    ['NUL and BEL', 'a\0b\x07', 'a\\x00b\\x07'],
    ['an ANSI erase-line and cursor move', 'evil\x1b[2K\x1b[1Gnpm test', 'evil\\x1b[2K\\x1b[1Gnpm test'],
    ['DEL', 'a\x7fb', 'a\\x7fb'],
    ['the 8-bit CSI and another C1 control', 'a\u009b2Kb\u0085', 'a\\x9b2Kb\\x85'],
    ['a right-to-left override', 'echo \u202egnp.exe', 'echo \\u{202e}gnp.exe'],
    ['bidi isolates and marks', '\u2066a\u2069\u200e\u200f\u061c', '\\u{2066}a\\u{2069}\\u{200e}\\u{200f}\\u{61c}'],
    ['zero-width characters and the BOM', 'r\u200bm\u200c\u200d\u2060\ufeff', 'r\\u{200b}m\\u{200c}\\u{200d}\\u{2060}\\u{feff}'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u{2028}b\\u{2029}c'],
    ['a lone surrogate', 'a\ud800b\udfffc', 'a\\u{d800}b\\u{dfff}c'],
    ['a soft hyphen and a tag character', 'a\u00adb\u{e0041}', 'a\\xadb\\u{e0041}'],
    ['spaces that are not U+0020', 'rm\u00a0-rf\u3000x', 'rm\\xa0-rf\\u{3000}x'],
    ['a variation selector and a Hangul filler', 'a\ufe0fb\u3164', 'a\\u{fe0f}b\\u{3164}'],
    ['a private-use character', 'a\ue000', 'a\\u{e000}'],
  ])('shows %s as an escape', (_name, input, shown) => {
    expect(displayText(input)).toBe(shown);
    expect(displayText(input)).not.toMatch(RAW_HIDDEN);
  });

  it.each([
    "/bin/bash -lc 'npm test'",
    "printf '%s\\n' a b",
    "grep -E 'a\\|b' f.txt",
    'sed "s/\\\\/\\//g"',
    'find . -name \\*.ts',
    'échec 日本語 emoji 🎉 ok',
  ])('leaves ordinary text as it is: %s', (text) => {
    expect(displayText(text)).toBe(text);
  });

  it('shows a backslash before x or u as \\x5c, so a literal escape never looks like a hidden character', () => {
    expect(displayText("printf '\\x1b'")).toBe("printf '\\x5cx1b'");
    expect(displayText('echo \\u{202e}')).toBe('echo \\x5cu{202e}');
  });

  it.each([
    ['a real ESC and the four characters \\x1b', 'a\x1bb', 'a\\x1bb'],
    ['a real CR and the four characters \\x0d', 'a\rb', 'a\\x0db'],
    ['a real override and its escape spelled out', '\u202e', '\\u{202e}'],
    ['a backslash then ESC, and an escaped backslash then x1b', '\\\x1b', '\\x5cx1b'],
    ['two backslashes then x, and one backslash then x5cx', '\\\\x', '\\x5cx'],
    ['a real LF and printf\'s \\n', 'a\nb', 'a\\nb'],
    ['a zero-width space inside a word, and the word', 'r\u200bm', 'rm'],
    ['a no-break space, and a space', 'a\u00a0b', 'a b'],
  ])('renders %s differently', (_name, a, b) => {
    expect(a).not.toBe(b);
    expect(displayText(a)).not.toBe(displayText(b));
  });

  it('loses nothing: decoding the rendering of random strings gives them back', () => {
    const alphabet = ['a', 'x', 'u', '{', '}', '0', '1', 'b', 'f', '\\', '\n', '\r', '\t', '\x1b', '\x7f', '\u009b', '\u202e', '\u200b', '\ud800', '\udc00', '\u{1f389}', ' '];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]!).join('');
      expect(decode(displayText(text))).toBe(text);
      expect(decode(displayLines(text))).toBe(text);
    }
  });
});

describe('displayLines', () => {
  it('keeps line feeds and tabs but still escapes CR, ESC and bidi overrides', () => {
    expect(displayLines('line 1\n\tline 2\r\x1b[1A\u202eend')).toBe('line 1\n\tline 2\\x0d\\x1b[1A\\u{202e}end');
  });
});

describe('displayJson', () => {
  it('is JSON for the same value, with nothing raw a terminal would act on', () => {
    const value = { cmd: 'a\x1b[2K\rb', note: '\u202e\u200b\u0085\x7f\u2028', path: 'c:\\x1b', n: 1 };
    const shown = displayJson(value);
    expect(shown).not.toMatch(RAW_HIDDEN);
    expect(JSON.parse(shown)).toEqual(value);
  });

  it('shows different values differently, and nothing for undefined', () => {
    expect(displayJson({ a: '\x1b' })).not.toBe(displayJson({ a: '\\x1b' }));
    expect(displayJson({ a: '\u202e' })).not.toBe(displayJson({ a: '\\u202e' }));
    expect(displayJson(undefined)).toBe('');
  });
});

describe('displayFormSchema', () => {
  it('neutralises the titles and descriptions a form shows, and keeps names and values exact', () => {
    const bad = 'a\x1b[2K\u202eb';
    const shown = String.raw`a\x1b[2K\u{202e}b`;
    const schema = { type: 'object', title: bad, properties: { [bad]: { type: 'string', title: bad, enum: [bad], enumNames: [bad], default: bad } } };
    expect(displayFormSchema(schema)).toEqual({ type: 'object', title: shown, properties: { [bad]: { type: 'string', title: shown, enum: [bad], enumNames: [shown], default: bad } } });
  });
});
