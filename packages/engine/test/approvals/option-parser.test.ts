/** The getopt-style reader behind the option allow-lists: full long names only, clusters, values. */
import { describe, expect, it } from 'vitest';
import { defineOptions, parseOptions } from '../../src/approvals/option-parser.js';

const SPEC = defineOptions({ flags: 'abc', valued: 'n', long: ['all'], longValued: ['lines'], longOptional: ['color'], numeric: 'option' });

describe('parseOptions', () => {
  it('reads clusters, a value in the rest of the cluster or the next word, and stops options at --', () => {
    expect(parseOptions(['-ab', '-cn5', '-n', '7', 'file', '--', '-x'], SPEC)).toEqual({
      options: [
        { name: '-a', value: null },
        { name: '-b', value: null },
        { name: '-c', value: null },
        { name: '-n', value: '5' },
        { name: '-n', value: '7' },
      ],
      positionals: ['file', '-x'],
      end: 7,
    });
  });

  it('reads long options with = or the next word, and optional values only with =', () => {
    expect(parseOptions(['--lines', '3', '--lines=4', '--color', '--color=never', '--all', 'f'], SPEC)?.positionals).toEqual(['f']);
  });

  it.each([['--al'], ['--line=3'], ['--all=yes'], ['-z'], ['-az'], ['-n'], ['--lines'], ['-5x']])('refuses %j', (arg) => {
    expect(parseOptions([arg], SPEC)).toBeNull();
  });

  it('treats -NUM as an option or a positional as the spec says', () => {
    expect(parseOptions(['-5'], SPEC)?.options).toEqual([{ name: '-#', value: '5' }]);
    expect(parseOptions(['-5', '5'], defineOptions({ numeric: 'positional' }))?.positionals).toEqual(['-5', '5']);
  });

  it('stops at the first positional for wrappers and tells where the command starts', () => {
    expect(parseOptions(['-n', '5', 'touch', '-a'], SPEC, { stopAtPositional: true })?.end).toBe(2);
    expect(parseOptions(['--', 'touch'], SPEC, { stopAtPositional: true })?.end).toBe(1);
  });

  it('accepts unknown options as flags when lenient', () => {
    expect(parseOptions(['--what', '-zq', 'rm'], SPEC, { stopAtPositional: true, lenient: true })?.end).toBe(2);
  });
});
