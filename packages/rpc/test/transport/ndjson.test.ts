/** NDJSON framing: lines split across chunks, CRLF, multibyte characters, and the line-length cap. */
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/transport/ndjson.js';

const lines = (events: ReturnType<LineSplitter['push']>): string[] =>
  events.map((e) => (e.kind === 'line' ? e.text : `<overflow ${e.bytes}>`));

describe('LineSplitter', () => {
  it('emits one line per newline and keeps a partial line until its newline arrives', () => {
    const s = new LineSplitter();
    expect(lines(s.push('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(lines(s.push(':2}\n{"c":3}\n'))).toEqual(['{"b":2}', '{"c":3}']);
  });

  it('strips a CRLF line end even when the CR and LF arrive in different chunks', () => {
    const s = new LineSplitter();
    expect(lines(s.push('{"a":1}\r'))).toEqual([]);
    expect(lines(s.push('\n{"b":2}\r\n'))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reassembles a multibyte character split across chunks', () => {
    const bytes = Buffer.from('{"t":"日本🙂"}\n', 'utf8');
    const cut = bytes.indexOf(0xe6) + 1; // inside the three bytes of 日
    const emoji = bytes.indexOf(0xf0) + 2; // inside the four bytes of 🙂
    const s = new LineSplitter();
    expect(lines(s.push(bytes.subarray(0, cut)))).toEqual([]);
    expect(lines(s.push(bytes.subarray(cut, emoji)))).toEqual([]);
    expect(lines(s.push(bytes.subarray(emoji)))).toEqual(['{"t":"日本🙂"}']);
  });

  it('feeds byte by byte and still produces the same lines', () => {
    const bytes = Buffer.from('{"x":"é"}\r\n\n{"y":"🙂"}\n', 'utf8');
    const s = new LineSplitter();
    const out: string[] = [];
    for (const b of bytes) out.push(...lines(s.push(Uint8Array.of(b))));
    expect(out).toEqual(['{"x":"é"}', '{"y":"🙂"}']);
  });

  it('skips blank separator lines but passes whitespace-only lines to the decoder', () => {
    expect(lines(new LineSplitter().push('\n\r\n   \n'))).toEqual(['   ']);
  });

  it('accepts a long line that arrives in many chunks', () => {
    const body = `{"junk":"${'y'.repeat(3 * 1024 * 1024)}"}`;
    const s = new LineSplitter();
    const out: string[] = [];
    for (let i = 0; i < body.length; i += 65536) out.push(...lines(s.push(body.slice(i, i + 65536))));
    out.push(...lines(s.push('\n')));
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(body);
  });

  it('discards a line over the cap up to its newline, reports it, and carries on', () => {
    const s = new LineSplitter({ maxLineBytes: 10 });
    expect(lines(s.push('0123456789\n'))).toEqual(['0123456789']);
    expect(lines(s.push('0123456789\r\n'))).toEqual(['0123456789']);
    expect(lines(s.push('0123456'))).toEqual([]);
    expect(lines(s.push('789abcdef'))).toEqual([]);
    expect(lines(s.push('ghij\n{"ok":1}\n'))).toEqual(['<overflow 20>', '{"ok":1}']);
  });

  it('flushes an unterminated last line at end of input', () => {
    const s = new LineSplitter();
    expect(lines(s.push('{"a":1}\n{"b":2}'))).toEqual(['{"a":1}']);
    expect(lines(s.end())).toEqual(['{"b":2}']);
    expect(lines(s.end())).toEqual([]);
  });
});
