/**
 * The model-facing layout, middle truncation, token estimate and the bounded output buffer.
 */
import { describe, expect, it } from 'vitest';
import {
  approxTokenCount,
  DEFAULT_MAX_OUTPUT_TOKENS,
  displayExitCode,
  formatExecOutput,
  generateChunkId,
  resolveMaxOutputTokens,
  truncateForModel,
} from '../../src/exec/format.js';
import { HeadTailBuffer } from '../../src/exec/head-tail-buffer.js';

const finished = {
  sessionId: null,
  exitCode: 0,
  signal: null,
  output: 'hello-from-shell',
  originalTokenCount: 5,
  wallTimeMs: 0,
  aborted: false,
  timedOut: false,
};

describe('formatExecOutput', () => {
  it('renders a finished command exactly like the reference', () => {
    expect(formatExecOutput(finished, '6d958e')).toBe(
      'Chunk ID: 6d958e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nhello-from-shell',
    );
  });

  it('renders a running command with its session id in place of the exit line', () => {
    const text = formatExecOutput({ ...finished, sessionId: 1007, exitCode: null, wallTimeMs: 1234.56789 }, 'abc123');
    expect(text).toBe(
      'Chunk ID: abc123\nWall time: 1.2346 seconds\nProcess running with session ID 1007\nOriginal token count: 5\nOutput:\nhello-from-shell',
    );
  });

  it('marks aborted and timed-out commands in the output', () => {
    const killed = { ...finished, exitCode: null, signal: 'SIGKILL', output: 'partial\n' };
    expect(formatExecOutput({ ...killed, aborted: true }, 'aaaaaa')).toMatch(/code 137\n[\s\S]*Output:\npartial\n\[command aborted\]$/);
    expect(formatExecOutput({ ...killed, output: '', timedOut: true }, 'aaaaaa')).toMatch(/Output:\n\[command timed out\]$/);
  });

  it('generates random six-hex-digit chunk ids', () => {
    const ids = new Set(Array.from({ length: 20 }, () => generateChunkId()));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{6}$/);
    expect(ids.size).toBeGreaterThan(1);
  });

  it('shows 128 + the signal number for signalled processes and -1 when nothing is known', () => {
    expect(displayExitCode({ exitCode: null, signal: 'SIGTERM' })).toBe(143);
    expect(displayExitCode({ exitCode: 2, signal: null })).toBe(2);
    expect(displayExitCode({ exitCode: null, signal: null })).toBe(-1);
  });
});

describe('truncateForModel', () => {
  it('returns text within the budget unchanged', () => {
    expect(truncateForModel('short\n', 10)).toBe('short\n');
    expect(truncateForModel('x'.repeat(40), 10)).toBe('x'.repeat(40));
  });

  it('keeps whole lines of head and tail and counts the removed tokens', () => {
    const text = Array.from({ length: 20 }, (_, i) => `${String(i + 1).padStart(3, '0')}\n`).join('');
    expect(truncateForModel(text, 16)).toBe(
      'Total output lines: 20\n\n001\n002\n003\n004\n005\n006\n007\n008\n…4 tokens truncated…\n013\n014\n015\n016\n017\n018\n019\n020\n',
    );
    // Off a line boundary, the cut moves to whole lines (giving up at most half of each side).
    const shifted = `xx${text}`;
    expect(truncateForModel(shifted, 16)).toBe(
      'Total output lines: 20\n\nxx001\n002\n003\n004\n005\n006\n007\n…5 tokens truncated…\n013\n014\n015\n016\n017\n018\n019\n020\n',
    );
  });

  it('cuts inside a line on character boundaries when there is no newline to snap to', () => {
    const text = `${'😀'.repeat(50)}${'a'.repeat(50)}`;
    const out = truncateForModel(text, 10);
    expect(out).not.toContain('\uFFFD');
    expect(out.startsWith('Total output lines: 1\n\n😀')).toBe(true);
    expect(out).toMatch(/…\d+ tokens truncated…\na+$/);
  });

  it('never keeps more than the byte budget of content', () => {
    const text = 'line of output\n'.repeat(10_000);
    const out = truncateForModel(text, 1000);
    const content = out.replace(/^Total output lines: \d+\n\n/, '').replace(/…\d+ tokens truncated…\n/, '');
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(4000);
  });

  it('uses the reference default budget and clamps huge budgets to 1 MiB', () => {
    expect(DEFAULT_MAX_OUTPUT_TOKENS).toBe(10_000);
    expect(resolveMaxOutputTokens(undefined)).toBe(10_000);
    expect(resolveMaxOutputTokens(Number.NaN)).toBe(10_000);
    expect(resolveMaxOutputTokens(10 ** 9)).toBe(262_144);
    expect(truncateForModel('y'.repeat(40_001))).toContain('tokens truncated');
  });

  it('approximates tokens as ceil(bytes / 4)', () => {
    expect(approxTokenCount('')).toBe(0);
    expect(approxTokenCount('hello-from-shell\n')).toBe(5);
    expect(approxTokenCount('é')).toBe(1);
  });
});

describe('HeadTailBuffer', () => {
  it('returns everything when under budget and empties on drain', () => {
    const buffer = new HeadTailBuffer(100);
    buffer.push('abc');
    buffer.push('def');
    expect(buffer.drain()).toEqual({ text: 'abcdef', totalBytes: 6, omittedBytes: 0 });
    expect(buffer.isEmpty).toBe(true);
    expect(buffer.drain().text).toBe('');
  });

  it('keeps the first and the most recent bytes and counts the dropped middle', () => {
    const buffer = new HeadTailBuffer(10);
    for (const chunk of ['HEAD-', 'middle-middle-', 'xx-TAIL']) buffer.push(chunk);
    expect(buffer.retainedBytes).toBe(10);
    const drained = buffer.drain();
    expect(drained.totalBytes).toBe(26);
    expect(drained.omittedBytes).toBe(16);
    expect(drained.text).toBe('HEAD-\n[… 16 bytes of output omitted …]\n-TAIL');
  });

  it('never splits a multi-byte character and keeps order after the head fills', () => {
    const buffer = new HeadTailBuffer(9);
    buffer.push('ab€');
    buffer.push('€');
    buffer.push('z');
    const drained = buffer.drain();
    expect(drained.text).not.toContain('\uFFFD');
    expect(drained.text.startsWith('ab')).toBe(true);
    expect(drained.text.endsWith('€z')).toBe(true);
    expect(drained.totalBytes).toBe(9);
  });
});
