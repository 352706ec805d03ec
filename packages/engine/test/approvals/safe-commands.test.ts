/**
 * Which commands count as read-only (known safe) or destructive, including shell-wrapper scripts.
 * The probe rows come from the security issue (rows 6 and 9): assignments, wrappers, abbreviated
 * long options and value-taking options must not pass as read-only, and must not hide `rm -rf`.
 */
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
  // Options that choose the repository, the config, the exec path or a pager are never listed.
  [['git', '-C', 'repo', 'status'], false],
  [['git', '-Crepo', 'status'], false],
  [['git', '--git-dir=D', '--work-tree=.', 'status'], false],
  [['git', '--git-dir', 'D', 'status'], false],
  [['git', '--work-tree', '.', 'status'], false],
  [['git', '--bare', 'log'], false],
  [['git', '--namespace=x', 'log'], false],
  [['git', '--config-env=core.pager=EVIL', 'log'], false],
  [['git', '--super-prefix=x/', 'status'], false],
  [['git', '--list-cmds=main', 'status'], false],
  [['git', '-p', 'log'], false],
  [['git', '--paginate', 'log'], false],
  [['git', '--exec-path', '/tmp', 'status'], false],
  [['git', 'log', '--textconv'], false],
  [['git', 'log', '--ext-diff', '-p'], false],
  [['git', 'grep', '--open-files-in-pager=sh', 'x'], false],
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

/** The attack probes of issue row 6, as `bash -lc` scripts: none of them may run without asking. */
const PROBES = [
  'A=/cat touch pwn',
  'sort --out=pwn f.txt',
  'seq 1 3 | sort -S 1K --compress-prog=sh',
  'A=/cat rm -rf dir',
  'command touch x',
  'env touch x',
  'nice touch x',
  'timeout 5 touch x',
  'LD_PRELOAD=/tmp/x.so cat f',
  'PAGER=sh git log',
  'A=/usr/bin/cat touch pwn',
];

/** Scripts through the whole parse → unwrap → option allow-list path. */
const SCRIPT_TABLE: [string, boolean][] = [
  // abbreviated or unlisted long options
  ['sort --output=o f', false],
  ['sort --outp=o f', false],
  ['sort --compress-program=sh f', false],
  ['sort --temporary-directory=/tmp f', false],
  ['sort --reverse --key=2 f', true],
  ['sort --rev f', false],
  ['ls --all', true],
  ['ls --al', false],
  ['ls --color=auto -l', true],
  ['ls --all=x', false],
  ['git log --outp=/tmp/x', false],
  ['git log --output=/tmp/x', false],
  ['git diff --ext-diff', false],
  ['git diff --textconv', false],
  ['git show --show-signature HEAD', false],
  ['git log --format=%H -n 3', true],
  ['git --no-pager diff --stat', true],
  ['git -p log', false],
  ['git --paginate log', false],
  ['git -c core.pager=sh log', false],
  ['git --config-env=core.pager=X log', false],
  ['git status --porcelain=v2 -uno', true],
  ['git branch -av', true],
  ['git branch -d x', false],
  ['git branch --list "feat*"', true],
  ['git branch --merged main', true],
  ['git branch newname', false],
  // clusters and value-taking options
  ['ls -la', true],
  ['ls -laZ1', true],
  ['ls -lay', false],
  ['sort -rn f', true],
  ['sort -ro out f', false],
  ['sort -S 1K f', true],
  ['sort -S1K -o out f', false],
  ['sort -k 2,2 -t , f', true],
  ['head -n 5 f', true],
  ['head -5 f', true],
  ['head -n5 -q f', true],
  ['tail -f log', true],
  ['tail --follow=name log', true],
  ['grep -e PAT -f pats.txt f', true],
  ['grep -rnC2 TODO src', true],
  ['grep --colour=never -E "a|b" f', true],
  ['cut -d, -f1 f', true],
  ['wc --files0-from=list', true],
  ['rg -n -g "*.ts" needle src', true],
  ['rg --pre=sh needle', false],
  ['rg -zn needle', false],
  ['rg --search-zip needle', false],
  ['file -z a.gz', false],
  ['file -p a', false],
  ['file -b --mime-type a', true],
  ['uniq -c in.txt', true],
  ['uniq in.txt out.txt', false],
  ['seq -5 5', true],
  ['seq -w 1 10', true],
  ['echo --output=x -z', true],
  ['nl -ba f', true],
  ['base64 -d f', true],
  ['base64 --output=x f', false],
  ['find . -name "*.ts" -type f -print0', true],
  ['find . -newermt 2024-01-01 -ls', true],
  ['find . -name "-exec" -print', true],
  ['find . -exec touch x ;', false],
  ['find . -execdir touch x +', false],
  ['find . -okdir touch x ;', false],
  ['find . -delete', false],
  ['find . -fprintf out %p', false],
  ['find . -fls out', false],
  ['find . -unknownpred', false],
  ['sed -n 5p f', true],
  ['sed -n 1w f', false],
  ['command -v ls', true],
  ['command -V ls', true],
  // assignments and wrappers
  ['FOO=1 ls', false],
  ['LC_ALL=C sort f', false],
  ['env A=1 ls', false],
  ['env -i ls -la', true],
  ['env -u HOME cat f', true],
  ['env - ls', true],
  ['env -S "touch x" ls', false],
  ['env --split-string="touch x"', false],
  ['env -C /tmp ls', false],
  ['env', false],
  ['command ls -la', true],
  ['command -p cat f', true],
  ['command sort -o x f', false],
  ['exec cat f', true],
  ['exec -a name cat f', true],
  ['nice -n 5 grep x f', true],
  ['nice -5 cat f', true],
  ['nice --adjustment=5 cat f', true],
  ['nice --adj=5 cat f', false],
  ['nice', false],
  ['timeout 5 cat f', true],
  ['timeout -s KILL -k 1 5 ls', true],
  ['timeout 5', false],
  ['timeout 5 sort -o x f', false],
  ['time -p ls', true],
  ['time -o out ls', false],
  ['nohup cat f', false],
  ['sudo cat f', false],
  ['xargs cat', false],
  ['stdbuf -o0 cat f', false],
  ['command env nice timeout 5 cat f', true],
  ['command env A=1 cat f', false],
  // executables by path and expansions
  ['/bin/cat f', true],
  ['/usr/bin/cat f', true],
  ['/usr/local/bin/rg x', true],
  ['./cat f', false],
  ['/tmp/x/cat f', false],
  ['/usr/bin/../../tmp/cat f', false],
  ['bin/cat f', false],
  ['c?t f', false],
  ['ca* f', false],
  ['[c]at f', false],
  ['{cat,touch} f', false],
  ['~/bin/cat f', false],
  ['cat *.txt', true],
  ['ls *', true],
  ['grep -n x *', true],
  ['cat "*"', true],
  ['cat ./*.txt', true],
  ['sort *', false],
  ['sort -S 1K {--compress-program=sh,f}', false],
  ['sort ./*', true],
  ['uniq *', false],
  ['find * -print', false],
  ['rg x *', false],
  ['timeout {5,touch,x} cat', false],
  ['nice -n {1,2} cat f', false],
];

describe('the issue probes (row 6)', () => {
  it.each(PROBES)('does not trust %j', (script) => {
    expect(isKnownSafeCommand(bash(script))).toBe(false);
  });

  it('does not trust an assignment or wrapper in a direct argv either', () => {
    expect(isKnownSafeCommand(['A=/cat', 'touch', 'pwn'])).toBe(false);
    expect(isKnownSafeCommand(['env', 'touch', 'x'])).toBe(false);
    expect(isKnownSafeCommand(['sort', '--out=pwn', 'f.txt'])).toBe(false);
  });

  it('does not trust the script of a shell outside the system directories', () => {
    expect(isKnownSafeCommand(['/tmp/evil/bash', '-lc', 'ls'])).toBe(false);
    expect(isKnownSafeCommand(['/usr/bin/bash', '-lc', 'ls'])).toBe(true);
  });
});

describe('isKnownSafeCommand on scripts', () => {
  it.each(SCRIPT_TABLE)('classifies %j as safe=%s', (script, expected) => {
    expect(isKnownSafeCommand(bash(script))).toBe(expected);
  });
});

describe('isKnownSafeCommand', () => {
  it.each(SAFE_TABLE)('classifies %j as safe=%s', (argv, expected) => {
    expect(isKnownSafeCommand(argv)).toBe(expected);
  });

  it('does not count git as safe with allowGit false, wherever it stands', () => {
    const strict = { allowGit: false };
    expect(isKnownSafeCommand(['git', 'status'], strict)).toBe(false);
    expect(isKnownSafeCommand(bash('ls && git log --oneline'), strict)).toBe(false);
    expect(isKnownSafeCommand(bash('cd D && git status'), strict)).toBe(false);
    expect(isKnownSafeCommand(['timeout', '5', 'git', 'status'], strict)).toBe(false);
    expect(isKnownSafeCommand(bash('cd D && git status'))).toBe(true);
    expect(isKnownSafeCommand(bash('ls && cat f | wc -l'), strict)).toBe(true);
  });

  it.each(['GIT_DIR=D git status', 'GIT_CONFIG_PARAMETERS="\'core.fsmonitor\'=\'touch x\'" git status', 'GIT_WORK_TREE=. GIT_DIR=D git log'])(
    'does not trust the environment assignment in %s',
    (script) => {
      expect(isKnownSafeCommand(bash(script))).toBe(false);
    },
  );

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
    [bash('A=/cat rm -rf d'), true],
    [bash('command rm -rf d'), true],
    [bash('env rm -rf d'), true],
    [bash('env -i A=1 rm -rf d'), true],
    [bash('env -S "rm -rf d"'), true],
    [bash('sudo -u x rm -rf d'), true],
    [bash('nice -n 5 timeout 3 rm -rf d'), true],
    [bash('exec /bin/rm -rf d'), true],
    [bash('/bin/rm -rf d'), true],
    [bash('/usr/bin/rm -rf d'), true],
    [bash('rm -rf d > /dev/null'), true],
    [bash('rm -rf d 2>&1 | tee log'), true],
    [bash('echo $(rm -rf d)'), true],
    [bash('echo "`rm -rf d`"'), true],
    [bash('(cd x && rm -rf d)'), true],
    [bash('if true; then rm -rf d; fi'), true],
    [bash("sh -c 'rm -rf d'"), true],
    [bash('eval rm -rf d'), true],
    [bash('echo d | xargs rm -rf'), true],
    [bash('find . -name d -exec rm -rf {} +'), true],
    [bash("$'\\x72m' -rf d"), true],
    [bash('git -C x reset --hard > /dev/null'), true],
    [bash('command -v rm'), false],
    [bash('echo "rm -rf d" > notes.txt'), false],
    [bash("cat <<'EOF' > script.sh\nrm -rf d\nEOF"), false],
    [['sudo', 'env', 'rm', '-rf', 'd'], true],
  ] as [string[], boolean][])('classifies %j as dangerous=%s', (argv, expected) => {
    expect(commandMightBeDangerous(argv)).toBe(expected);
  });
});
