/**
 * The servers' stderr logger: the level filter, the line format with compact JSON details, and
 * `DEPUTY_LOG` parsing.
 */
import { describe, expect, it } from 'vitest';
import { createStderrLogger, parseLogLevel } from '../src/logger.js';

describe('createStderrLogger', () => {
  it('writes one named line per event at the level and above, details as compact JSON', () => {
    const lines: string[] = [];
    const log = createStderrLogger({ name: 'deputy test', level: 'warn', write: (line) => void lines.push(line) });
    log.debug('d');
    log.info('i');
    log.warn('w', { id: 1 });
    log.error('e', {});
    expect(lines).toEqual(['deputy test warn: w {"id":1}\n', 'deputy test error: e\n']);
  });

  it('survives details that cannot be serialized', () => {
    const lines: string[] = [];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    createStderrLogger({ name: 'x', level: 'debug', write: (line) => void lines.push(line) }).debug('m', cyclic);
    expect(lines).toEqual(['x debug: m [details not serializable]\n']);
  });
});

describe('parseLogLevel', () => {
  it.each([
    ['debug', 'debug'],
    [' WARN ', 'warn'],
    ['Error', 'error'],
    ['loud', 'info'],
    ['', 'info'],
    [undefined, 'info'],
  ])('reads %j as %s', (value, level) => {
    expect(parseLogLevel(value)).toBe(level);
  });

  it('uses the given fallback for unknown values', () => {
    expect(parseLogLevel(undefined, 'warn')).toBe('warn');
  });
});
