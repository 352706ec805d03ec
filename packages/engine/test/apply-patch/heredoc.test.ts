/**
 * Table-driven tests of extractHeredocPatch: the invocation forms it recognises (with and without
 * `cd`, quoted and unquoted delimiters, several shells) and the look-alikes it must leave alone.
 */
import { describe, expect, it } from 'vitest';
import { extractHeredocPatch } from '../../src/tools/apply-patch/heredoc.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';

const PATCH = '*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch';

/** `apply_patch <<'PATCH'` script with an optional prefix and suffix. */
function script(prefix = '', suffix = '', opener = "<<'PATCH'", closer = 'PATCH'): string {
  return `${prefix}apply_patch ${opener}\n${PATCH}\n${closer}${suffix}`;
}

const MATCHES: Array<[string, string[] | string, { patch: string; workdir?: string }]> = [
  ['a direct ["apply_patch", patch] argv', ['apply_patch', PATCH], { patch: PATCH }],
  ['a direct ["applypatch", patch] argv', ['applypatch', PATCH], { patch: PATCH }],
  ['bash -lc with a single-quoted delimiter', ['bash', '-lc', script()], { patch: PATCH }],
  ['bash -c (non-login shell)', ['bash', '-c', script()], { patch: PATCH }],
  ['sh and zsh given by absolute path', ['/bin/zsh', '-lc', script()], { patch: PATCH }],
  ['a double-quoted delimiter', ['bash', '-lc', script('', '', '<<"PATCH"')], { patch: PATCH }],
  ['an unquoted EOF delimiter', ['bash', '-lc', script('', '', '<<EOF', 'EOF')], { patch: PATCH }],
  ['applypatch as the command name', ['bash', '-lc', `applypatch <<'EOF'\n${PATCH}\nEOF`], { patch: PATCH }],
  ['a heredoc followed by trailing newlines', ['bash', '-lc', `${script()}\n\n`], { patch: PATCH }],
  ['<<- with tab-indented body and delimiter', ['bash', '-lc', `apply_patch <<-'EOF'\n\t${PATCH.replace(/\n/g, '\n\t')}\n\tEOF`], { patch: PATCH }],
  ['a leading cd with a plain directory', ['bash', '-lc', script('cd foo && ')], { patch: PATCH, workdir: 'foo' }],
  ['a leading cd with a single-quoted path containing spaces', ['bash', '-lc', script("cd 'foo bar' && ")], { patch: PATCH, workdir: 'foo bar' }],
  ['a leading cd with a double-quoted path containing spaces', ['bash', '-lc', script('cd "foo bar" && ')], { patch: PATCH, workdir: 'foo bar' }],
  ['PowerShell -NoProfile -Command', ['pwsh', '-NoProfile', '-Command', script()], { patch: PATCH }],
  ['powershell.exe -Command', ['powershell.exe', '-Command', script()], { patch: PATCH }],
  ['cmd.exe /c with a leading cd', ['cmd.exe', '/c', script('cd foo && ')], { patch: PATCH, workdir: 'foo' }],
  [
    'the shell snapshot wrapper around bash -lc',
    ['/bin/bash', '-c', '. "$0" && exec "$@"', '/tmp/snap.sh', '/bin/bash', '-lc', script()],
    { patch: PATCH },
  ],
  ['a bare script string', script('cd src && '), { patch: PATCH, workdir: 'src' }],
];

const NON_MATCHES: Array<[string, string[] | string]> = [
  ['an ordinary command', ['bash', '-lc', 'ls -la']],
  ['a cd joined with ;', ['bash', '-lc', script('cd foo; ')]],
  ['a cd joined with ||', ['bash', '-lc', script('cd bar || ')]],
  ['a cd piped into apply_patch', ['bash', '-lc', script('cd bar | ')]],
  ['an echo before apply_patch', ['bash', '-lc', script('echo foo && ')]],
  ['two cds before apply_patch', ['bash', '-lc', script('cd foo && cd bar && ')]],
  ['cd with two arguments', ['bash', '-lc', script('cd foo bar && ')]],
  ['a command after the heredoc', ['bash', '-lc', script('cd bar && ', '\necho done')]],
  ['a command on the delimiter line', ['bash', '-lc', script('', ' && echo done')]],
  ['apply_patch with an extra argument', ['bash', '-lc', "apply_patch foo <<'PATCH'\n*** Begin Patch\n*** End Patch\nPATCH"]],
  ['an echo then cd && apply_patch', ['bash', '-lc', script('echo foo; cd bar && ')]],
  ['a heredoc that never ends', ['bash', '-lc', `apply_patch <<'PATCH'\n${PATCH}\n`]],
  ['a cd with a variable expansion', ['bash', '-lc', script('cd "$HOME" && ')]],
  ['an unknown shell flag', ['bash', '-x', script()]],
  ['a raw patch as the only argument', [PATCH]],
  ['apply_patch with two arguments', ['apply_patch', PATCH, 'extra']],
];

describe('extractHeredocPatch', () => {
  it.each(MATCHES)('recognises %s', (_name, input, expected) => {
    const found = extractHeredocPatch(input);
    expect(found).toEqual(expected);
    expect(parsePatch(found?.patch ?? '').hunks).toEqual([{ type: 'add', path: 'foo', contents: 'hi\n' }]);
  });

  it.each(NON_MATCHES)('returns null for %s', (_name, input) => {
    expect(extractHeredocPatch(input)).toBeNull();
  });
});
