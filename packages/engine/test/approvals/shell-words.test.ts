/** The small shell reader that splits `bash -lc` scripts into plain commands, and refuses everything else. */
import { describe, expect, it } from 'vitest';
import { parsePlainShellScript, parsePlainShellWords, parseShellWrapperCommands, shellWrapperScript } from '../../src/approvals/shell-words.js';

describe('parsePlainShellScript', () => {
  it('splits a list of simple commands on every list operator', () => {
    expect(parsePlainShellScript("ls && pwd; echo 'hi there' | wc -l || true")).toEqual([
      ['ls'],
      ['pwd'],
      ['echo', 'hi there'],
      ['wc', '-l'],
      ['true'],
    ]);
  });

  it('joins quoted and unquoted parts of one word', () => {
    expect(parsePlainShellScript(`rg -n "foo" -g"*.py" '/usr'"/"local`)).toEqual([['rg', '-n', 'foo', '-g*.py', '/usr/local']]);
  });

  it('keeps empty quoted arguments and backslash escapes', () => {
    expect(parsePlainShellScript(`grep "" a\\ b "say \\"hi\\""`)).toEqual([['grep', '', 'a b', 'say "hi"']]);
  });

  it('joins lines continued with a backslash without inventing an empty word', () => {
    expect(parsePlainShellScript('ls \\\n  -la')).toEqual([['ls', '-la']]);
  });

  it('treats newlines as separators and allows a newline after an operator', () => {
    expect(parsePlainShellScript('ls &&\n  pwd\n\nwc')).toEqual([['ls'], ['pwd'], ['wc']]);
  });

  it.each(['ls > out', 'ls 2>&1', 'echo $HOME', 'echo "${USER}"', 'echo `id`', '(ls)', 'ls &', 'ls |& wc', "echo 'open", 'echo "open', 'ls ||', '; ls', '# only a comment'])(
    'refuses %j',
    (script) => {
      expect(parsePlainShellScript(script)).toBeNull();
    },
  );
});

describe('parsePlainShellWords', () => {
  it('marks words whose first character is an unquoted glob or brace', () => {
    const [words] = parsePlainShellWords(`cat * ?x [ab] {a,b} x* '*' "{a,b}" \\* ''* ~/f`) ?? [];
    expect(words?.map((w) => [w.text, w.expandsAtStart])).toEqual([
      ['cat', false],
      ['*', true],
      ['?x', true],
      ['[ab]', true],
      ['{a,b}', true],
      ['x*', false],
      ['*', false],
      ['{a,b}', false],
      ['*', false],
      ['*', true],
      ['~/f', false],
    ]);
  });
});

describe('shell wrappers', () => {
  it('recognises bash, zsh and sh with -c or -lc, by base name', () => {
    expect(shellWrapperScript(['/usr/bin/zsh', '-c', 'ls'])).toBe('ls');
    expect(shellWrapperScript(['sh', '-lc', 'pwd'])).toBe('pwd');
    expect(shellWrapperScript(['bash', '-lc', 'ls', 'extra'])).toBeNull();
    expect(shellWrapperScript(['python3', '-c', 'print()'])).toBeNull();
  });

  it('returns null for an empty script', () => {
    expect(parseShellWrapperCommands(['bash', '-lc', '   '])).toBeNull();
  });
});
