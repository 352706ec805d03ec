/** Seeing through assignments and wrappers: strictly for the safe direction, loosely for forbidden rules and the destructive check. */
import { describe, expect, it } from 'vitest';
import {
  commandsForStrictCheck,
  isAssignmentWord,
  isTrustedExecutable,
  normalizedForms,
  unwrapHarmlessWrappers,
} from '../../src/approvals/command-normalize.js';

const words = (s: string): string[] => s.split(' ');

describe('isAssignmentWord and isTrustedExecutable', () => {
  it.each([['A=/cat', true], ['LD_PRELOAD=x', true], ['_x1=', true], ['a[0]=1', true], ['A+=x', true], ['=x', false], ['1A=x', false], ['--opt=x', false], ['cat', false]])(
    'assignment %j is %s',
    (word, expected) => {
      expect(isAssignmentWord(word)).toBe(expected);
    },
  );

  it.each([
    ['cat', true],
    ['/bin/cat', true],
    ['/usr/local/bin/rg', true],
    ['/usr/sbin/ip', true],
    ['./cat', false],
    ['/tmp/cat', false],
    ['/usr/bin/../../tmp/cat', false],
    ['bin/cat', false],
    ['c*t', false],
    ['{cat,rm}', false],
    ['~/cat', false],
    ['A=/cat', false],
    ['', false],
  ])('trusted executable %j is %s', (arg0, expected) => {
    expect(isTrustedExecutable(arg0)).toBe(expected);
  });
});

describe('unwrapHarmlessWrappers (safe direction)', () => {
  it.each([
    ['cat f', 'cat f'],
    ['command cat f', 'cat f'],
    ['command -p -- cat f', 'cat f'],
    ['exec -a x -cl cat f', 'cat f'],
    ['nice -n 5 cat f', 'cat f'],
    ['nice -5 cat f', 'cat f'],
    ['timeout -k 1 -s TERM 5 cat f', 'cat f'],
    ['time -p cat f', 'cat f'],
    ['env -i -u HOME cat f', 'cat f'],
    ['env - cat f', 'cat f'],
    ['command -v rm', 'command -v rm'],
    ['/usr/bin/nice /bin/cat f', '/bin/cat f'],
  ])('%j runs %j', (input, expected) => {
    expect(unwrapHarmlessWrappers(words(input))?.join(' ')).toBe(expected);
  });

  it.each([
    'A=/cat touch pwn',
    'env A=1 cat f',
    'env -S x cat',
    'env -C /tmp cat',
    'env',
    'nice',
    'timeout 5',
    'nice --adj=3 cat',
    'time -o out cat',
    'nohup cat f',
    'sudo cat f',
    'xargs cat',
    'stdbuf -o0 cat',
    './nice cat',
    'command A=1 cat',
  ])('gives up on %j', (input) => {
    expect(unwrapHarmlessWrappers(words(input))).toBeNull();
  });
});

describe('normalizedForms and commandsForStrictCheck (stricter direction)', () => {
  it('lists every form from the outside in', () => {
    expect(normalizedForms(words('sudo -u x env A=1 command nice -n 3 /bin/rm -rf d'))).toEqual([
      words('sudo -u x env A=1 command nice -n 3 /bin/rm -rf d'),
      words('env A=1 command nice -n 3 /bin/rm -rf d'),
      words('A=1 command nice -n 3 /bin/rm -rf d'),
      words('command nice -n 3 /bin/rm -rf d'),
      words('nice -n 3 /bin/rm -rf d'),
      words('/bin/rm -rf d'),
      words('rm -rf d'),
    ]);
  });

  it.each([
    ['A=/cat rm -rf d', 'rm -rf d'],
    ['then A=1 rm -rf d', 'rm -rf d'],
    ['env -i -C /tmp -u X rm -rf d', 'rm -rf d'],
    ['timeout -s KILL 5 rm -rf d', 'rm -rf d'],
    ['time -o out rm -rf d', 'rm -rf d'],
    ['nohup rm -rf d', 'rm -rf d'],
    ['stdbuf -o 0 rm -rf d', 'rm -rf d'],
    ['doas -u root rm -rf d', 'rm -rf d'],
    ['xargs -0 -n 1 rm -rf', 'rm -rf'],
    ['setsid -f rm -rf d', 'rm -rf d'],
    ['chroot / rm -rf d', 'rm -rf d'],
    ['builtin exec rm -rf d', 'rm -rf d'],
    ['busybox rm -rf d', 'rm -rf d'],
  ])('sees through %j to %j', (input, expected) => {
    expect(normalizedForms(words(input)).map((f) => f.join(' '))).toContain(expected);
  });

  it('splits env -S and does not follow command -v', () => {
    expect(normalizedForms(['env', '-S', 'rm -rf d'])).toContainEqual(['rm', '-rf', 'd']);
    expect(normalizedForms(['command', '-v', 'rm']).map((f) => f[0])).toEqual(['command']);
  });

  it('reports a wrapper or assignment with nothing after it as an empty form', () => {
    expect(normalizedForms(['nice'])).toContainEqual([]);
    expect(normalizedForms(['A=1'])).toContainEqual([]);
  });

  it('looks into scripts the strict parser refuses, nested shells, eval and find -exec', () => {
    const forms = (script: string) => commandsForStrictCheck(['bash', '-lc', script]).map((f) => f.join(' '));
    expect(forms('rm -rf d > /dev/null')).toContain('rm -rf d');
    expect(forms('echo $(A=1 /bin/rm -rf d)')).toContain('rm -rf d');
    expect(forms("sh -c 'command rm -rf d'")).toContain('rm -rf d');
    expect(forms('bash -e -o pipefail -c "rm -rf d"')).toContain('rm -rf d');
    expect(forms('eval "rm -rf d"')).toContain('rm -rf d');
    expect(forms('find . -exec rm -rf {} ;')).toContain('rm -rf {}');
  });

  it('does not list the outer bash -lc wrapper itself', () => {
    expect(commandsForStrictCheck(['/bin/bash', '-lc', 'ls'])).toEqual([['ls']]);
    expect(commandsForStrictCheck(['rm', '-rf', 'd'])).toEqual([['rm', '-rf', 'd']]);
  });
});
