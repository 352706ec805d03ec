/** The loose scan that lists every command a script might run, for forbidden/prompt rules and the destructive check only. */
import { describe, expect, it } from 'vitest';
import { scanShellScript } from '../../src/approvals/shell-scan.js';

/** Marks a word that holds a command substitution (its value is unknown). */
const SUBST = '\u0000';

describe('scanShellScript', () => {
  it.each([
    ['rm -rf d > /dev/null', [['rm', '-rf', 'd']]],
    ['rm -rf d 2>&1 >>log </dev/null', [['rm', '-rf', 'd']]],
    ['rm -rf d &>/dev/null &', [['rm', '-rf', 'd']]],
    ['ls 2>&1 | grep x && (cd a; rm -rf b) || true', [['ls'], ['grep', 'x'], ['cd', 'a'], ['rm', '-rf', 'b'], ['true']]],
    ['echo $(rm -rf d)', [['rm', '-rf', 'd'], ['echo', SUBST]]],
    ['echo "x$(rm -rf d)y" z', [['rm', '-rf', 'd'], ['echo', `x${SUBST}y`, 'z']]],
    ['echo `rm -rf d`', [['rm', '-rf', 'd'], ['echo', SUBST]]],
    ['diff <(rm -rf a) f', [['rm', '-rf', 'a'], ['diff', SUBST, 'f']]],
    ['x=$(rm -rf d)', [['rm', '-rf', 'd'], [`x=${SUBST}`]]],
    ["$'\\x72m' -rf d", [['rm', '-rf', 'd']]],
    ["r''m -rf d; \\rm x", [['rm', '-rf', 'd'], ['rm', 'x']]],
    ["echo 'a && rm' \"b; rm\"", [['echo', 'a && rm', 'b; rm']]],
    ['ls # ; rm -rf d', [['ls']]],
    ['a\\\nb', [['ab']]],
  ] as [string, string[][]][])('scans %j', (script, expected) => {
    expect(scanShellScript(script)).toEqual(expected);
  });

  it('skips a quoted heredoc body, which is data', () => {
    expect(scanShellScript("cat <<'EOF' > f\nrm -rf d\nEOF\nls")).toEqual([['cat'], ['ls']]);
    expect(scanShellScript('cat <<-"END"\n\trm -rf d\n\tEND\npwd')).toEqual([['cat'], ['pwd']]);
  });

  it('looks for substitutions in an unquoted heredoc body, which the shell expands', () => {
    expect(scanShellScript('cat <<EOF\nrm -rf plain\n$(rm -rf d)\nEOF\nls')).toEqual([['cat'], ['rm', '-rf', 'd'], ['ls']]);
  });

  it('keeps the reserved words in front of a command (the normaliser strips them)', () => {
    expect(scanShellScript('if rm -rf d; then echo; fi')).toEqual([['if', 'rm', '-rf', 'd'], ['then', 'echo'], ['fi']]);
  });

  it('never throws on unterminated quotes or substitutions', () => {
    expect(scanShellScript('echo "$(rm -rf d')).toEqual([['rm', '-rf', 'd'], ['echo', SUBST]]);
    expect(scanShellScript("echo 'open")).toEqual([['echo', 'open']]);
    expect(scanShellScript('ls )) ((')).toEqual([['ls']]);
  });
});
