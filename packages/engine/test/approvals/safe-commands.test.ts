/** Which commands count as read-only (known safe) or destructive, including shell-wrapper scripts. */
import { describe, expect, it } from 'vitest';
import { commandMightBeDangerous, isKnownSafeCommand } from '../../src/approvals/safe-commands.js';

const bash = (script: string): string[] => ['bash', '-lc', script];

/** [argv, expected] — each row is one classification the approval policy relies on. */
const SAFE_TABLE: [string[], boolean][] = [
  [['ls'], true],
  [['ls', '-la', 'src'], true],
  [['/bin/ls', '-1'], true],
  [['cat', 'README.md'], true],
  [['pwd'], true],
  [['head', '-n', '20', 'a.txt'], true],
  [['tail', '-n', '5', 'a.txt'], true],
  [['wc', '-l', 'a.txt'], true],
  [['grep', '-rn', 'TODO', 'src'], true],
  [['echo', 'hi'], true],
  [['true'], true],
  [['false'], true],
  [['which', 'node'], true],
  [['whoami'], true],
  [['nl', '-ba', 'a.txt'], true],
  [['cut', '-d:', '-f1', '/etc/passwd'], true],
  [['tr', 'a-z', 'A-Z'], true],
  [['stat', 'a.txt'], true],
  [['file', 'a.bin'], true],
  [['file', '-C', '-m', 'magic'], false],
  [['sort', '-u', 'a.txt'], true],
  [['sort', '-o', 'out.txt', 'a.txt'], false],
  [['sort', '--output=out.txt', 'a.txt'], false],
  [['sort', '-ro', 'out.txt', 'a.txt'], false],
  [['uniq', '-c', 'a.txt'], true],
  [['uniq', 'in.txt', 'out.txt'], false],
  [['uniq', '-f', '2', 'in.txt'], true],
  [['rg', '-n', 'needle', 'src'], true],
  [['rg', '--pre', 'sh', 'needle'], false],
  [['rg', '--pre=./evil', 'needle'], false],
  [['rg', '--search-zip', 'needle'], false],
  [['rg', '-z', 'needle'], false],
  [['rg', '--hostname-bin=./evil', 'needle'], false],
  [['find', '.', '-name', '*.ts'], true],
  [['find', '.', '-delete'], false],
  [['find', '.', '-name', 'x', '-exec', 'rm', '{}', ';'], false],
  [['find', '.', '-fprint', '/tmp/out'], false],
  [['sed', '-n', '10p', 'a.txt'], true],
  [['sed', '-n', '1,5p', 'a.txt'], true],
  [['sed', '-i', 's/a/b/', 'a.txt'], false],
  [['sed', '-n', 'xp', 'a.txt'], false],
  [['base64', 'a.bin'], true],
  [['base64', '-o', 'out', 'a.bin'], false],
  [['git', 'status'], true],
  [['git', 'log', '--oneline', '-5'], true],
  [['git', 'diff', 'HEAD~1'], true],
  [['git', 'show', 'HEAD'], true],
  [['git', 'branch'], true],
  [['git', 'branch', '--show-current'], true],
  [['git', '-C', 'repo', 'status'], true],
  [['git', 'branch', 'new-feature'], false],
  [['git', 'branch', '-d', 'old'], false],
  [['git', 'push'], false],
  [['git', 'commit', '-m', 'x'], false],
  [['git', 'checkout', 'status'], false],
  [['git', 'log', '--output=/tmp/x'], false],
  [['git', 'diff', '--ext-diff'], false],
  [['git', '-c', 'core.pager=evil', 'log'], false],
  [['git', '-ccore.pager=evil', 'status'], false],
  [['git', '--exec-path=/tmp', 'status'], false],
  [['touch', 'x'], false],
  [['rm', 'x'], false],
  [['cargo', 'check'], false],
  [['python3', '-c', 'print(1)'], false],
  [[], false],
];

const SHELL_TABLE: [string[], boolean][] = [
  [bash('ls'), true],
  [bash('ls -la && pwd'), true],
  [bash("echo 'hi there' ; ls"), true],
  [bash('ls | wc -l'), true],
  [bash('grep -rn "TODO" src || true'), true],
  [bash('git log -5 && git status'), true],
  [bash("sed -n '1,5p' a.txt"), true],
  [['zsh', '-lc', 'ls'], true],
  [['sh', '-c', 'cat a.txt | head -n 3'], true],
  [['/bin/bash', '-lc', 'pwd'], true],
  [bash('ls && rm -rf x'), false],
  [bash('echo hi > f'), false],
  [bash('cat < secret'), false],
  [bash('echo $(rm -rf x)'), false],
  [bash('echo `rm -rf x`'), false],
  [bash('echo "$HOME"'), false],
  [bash('(ls)'), false],
  [bash('ls &'), false],
  [bash('ls &&'), false],
  [bash('&& ls'), false],
  [bash('ls ;; pwd'), false],
  [bash('ls | | wc'), false],
  [bash('find . -delete'), false],
  [bash('git push'), false],
  [bash('ls # harmless?'), false],
  [bash('ls\nrm -rf x'), false],
  [bash("'git status'"), false],
  [bash('FOO=1 ls'), false],
  [['bash', '-lc', 'git', 'status'], false],
  [['bash', '-x', 'ls'], false],
  [['fish', '-c', 'ls'], false],
];

describe('isKnownSafeCommand', () => {
  it.each(SAFE_TABLE)('classifies %j as safe=%s', (argv, expected) => {
    expect(isKnownSafeCommand(argv)).toBe(expected);
  });

  it.each(SHELL_TABLE)('classifies the shell wrapper %j as safe=%s', (argv, expected) => {
    expect(isKnownSafeCommand(argv)).toBe(expected);
  });
});

describe('commandMightBeDangerous', () => {
  it.each([
    [['rm', '-rf', 'x'], true],
    [['rm', '-f', 'x'], true],
    [['rm', 'x', '--force'], true],
    [['sudo', 'rm', '-rf', '/'], true],
    [['git', 'reset', '--hard'], true],
    [['/usr/bin/git', 'rm', 'a.txt'], true],
    [bash('ls && git reset --hard'), true],
    [['rm', 'x'], false],
    [['git', 'status'], false],
    [['ls', '-f'], false],
    [bash('echo rm -rf x'), false],
  ] as [string[], boolean][])('classifies %j as dangerous=%s', (argv, expected) => {
    expect(commandMightBeDangerous(argv)).toBe(expected);
  });
});
