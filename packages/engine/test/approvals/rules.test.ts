/** The rules file: reading Codex execpolicy syntax tolerantly, matching (also inside `bash -lc`), remembering to disk, proposing prefixes. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBannedPrefix, PrefixRules, proposePrefixRule } from '../../src/approvals/rules.js';
import { formatPrefixRule, parseRules } from '../../src/approvals/rules-syntax.js';

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-rules-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const rulesFile = (): string => path.join(home, 'rules', 'default.rules');

describe('rules file syntax', () => {
  it('formats an allow rule the way the reference writes it', () => {
    expect(formatPrefixRule(['git', 'push'])).toBe('prefix_rule(pattern=["git", "push"], decision="allow")');
    expect(formatPrefixRule(['echo', 'say "hi"'])).toBe('prefix_rule(pattern=["echo", "say \\"hi\\""], decision="allow")');
  });

  it('reads multi-line calls, alternatives, comments and every decision', () => {
    const parsed = parseRules(
      [
        '# team rules',
        'prefix_rule(',
        '    pattern = ["git", ["status", "log"]],',
        "    decision = 'prompt',",
        '    justification = "look first",',
        ')',
        'prefix_rule(pattern=["rm"], decision="forbidden")',
        'prefix_rule(pattern=["npm", "test"])  # allow by default',
        'network_rule(host="example.com", protocol="https", decision="allow")',
      ].join('\n'),
      'default.rules',
    );
    expect(parsed.warnings).toEqual([]);
    expect(parsed.rules).toEqual([
      { pattern: ['git', ['status', 'log']], decision: 'prompt', justification: 'look first' },
      { pattern: ['rm'], decision: 'forbidden', justification: null },
      { pattern: ['npm', 'test'], decision: 'allow', justification: null },
    ]);
  });

  it('skips calls it cannot read, reports them with their line, and keeps the rest', () => {
    const parsed = parseRules(
      [
        'prefix_rule(pattern=["ls"], decision="allow")',
        'prefix_rule(pattern=["oops", decision="allow")',
        'prefix_rule(pattern=[], decision="allow")',
        'prefix_rule(pattern=["x"], decision="maybe")',
        'something_else(1)',
        'prefix_rule(pattern=["unterminated], decision="allow")',
        'prefix_rule(pattern=["pwd"], decision="allow")',
      ].join('\n'),
      'r.rules',
    );
    expect(parsed.rules.map((r) => r.pattern)).toEqual([['ls'], ['pwd']]);
    expect(parsed.warnings).toHaveLength(5);
    expect(parsed.warnings[0]).toMatch(/^r\.rules:2: /);
    expect(parsed.warnings[1]).toMatch(/^r\.rules:3: prefix_rule needs a non-empty pattern list/);
    expect(parsed.warnings[2]).toMatch(/^r\.rules:4: decision must be "allow", "prompt" or "forbidden", got "maybe"/);
    expect(parsed.warnings[3]).toMatch(/^r\.rules:5: /);
    expect(parsed.warnings[4]).toMatch(/^r\.rules:6: /);
  });
});

describe('PrefixRules', () => {
  it('loads no rules when the file does not exist', async () => {
    const rules = await PrefixRules.load(home);
    expect(rules.matches(['git', 'push'])).toBe(false);
    expect(rules.warnings).toEqual([]);
    expect(rules.filePath).toBe(rulesFile());
  });

  it('round-trips remembered rules through the file, creating it with mode 0600', async () => {
    const rules = await PrefixRules.load(home);
    await rules.remember(['git', 'push']);
    await rules.remember(['npm', 'run', 'build']);
    await rules.remember(['git', 'push']);
    expect(rules.matches(['git', 'push', 'origin', 'main'])).toBe(true);

    const text = await fs.readFile(rulesFile(), 'utf8');
    expect(text).toBe('prefix_rule(pattern=["git", "push"], decision="allow")\nprefix_rule(pattern=["npm", "run", "build"], decision="allow")\n');
    expect((await fs.stat(rulesFile())).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(rulesFile()))).mode & 0o777).toBe(0o700);

    const reloaded = await PrefixRules.load(home);
    expect(reloaded.matches(['git', 'push'])).toBe(true);
    expect(reloaded.matches(['npm', 'run', 'build', '--prod'])).toBe(true);
    expect(reloaded.matches(['npm', 'run', 'test'])).toBe(false);
    expect(reloaded.matches(['git'])).toBe(false);
  });

  it('appends after a last line that lacks a newline, keeping hand-written rules', async () => {
    await fs.mkdir(path.dirname(rulesFile()), { recursive: true });
    await fs.writeFile(rulesFile(), '# mine\nprefix_rule(pattern=["make"], decision="allow")');
    const rules = await PrefixRules.load(home);
    await rules.remember(['cargo', 'test']);
    expect(await fs.readFile(rulesFile(), 'utf8')).toBe(
      '# mine\nprefix_rule(pattern=["make"], decision="allow")\nprefix_rule(pattern=["cargo", "test"], decision="allow")\n',
    );
  });

  it('reports unreadable lines as warnings and still applies the others', async () => {
    await fs.mkdir(path.dirname(rulesFile()), { recursive: true });
    await fs.writeFile(rulesFile(), 'prefix_rule(pattern=["make"]\nprefix_rule(pattern=["cargo"], decision="allow")\n');
    const rules = await PrefixRules.load(home);
    expect(rules.matches(['cargo', 'build'])).toBe(true);
    expect(rules.warnings).toHaveLength(1);
    expect(rules.warnings[0]).toContain(`${rulesFile()}:1:`);
  });

  it('matches the commands inside a bash -lc script, all of them for allow', () => {
    const rules = PrefixRules.fromText('prefix_rule(pattern=["git", "push"], decision="allow")\nprefix_rule(pattern=["make"], decision="allow")');
    expect(rules.matches(['bash', '-lc', 'git push origin main'])).toBe(true);
    expect(rules.matches(['bash', '-lc', 'make && git push'])).toBe(true);
    expect(rules.matches(['bash', '-lc', 'make && rm -rf x'])).toBe(false);
    expect(rules.matches(['bash', '-lc', 'git push > log.txt'])).toBe(false);
  });

  it('picks the strictest decision among matching rules', () => {
    const rules = PrefixRules.fromText(
      'prefix_rule(pattern=["git"], decision="allow")\nprefix_rule(pattern=["git", "push"], decision="prompt")\nprefix_rule(pattern=["git", "push", "--force"], decision="forbidden")',
    );
    expect(rules.evaluate(['git', 'status'])).toBe('allow');
    expect(rules.evaluate(['git', 'push'])).toBe('prompt');
    expect(rules.evaluate(['git', 'push', '--force'])).toBe('forbidden');
    expect(rules.evaluate(['bash', '-lc', 'git status && git push --force'])).toBe('forbidden');
    expect(rules.evaluate(['ls'])).toBeNull();
  });

  it('refuses to remember a prefix that would allow arbitrary code', async () => {
    const rules = await PrefixRules.load(home);
    await expect(rules.remember(['python3', '-c'])).rejects.toThrow(/arbitrary code/);
    await expect(rules.remember([])).rejects.toThrow();
  });

  it.each([['nice'], ['command'], ['timeout', '5'], ['A=1'], ['sudo', 'python3'], ['/usr/bin/python3'], ['env', '-i'], ['exec']])(
    'treats the wrapper-only or interpreter prefix %j as banned',
    (...prefix) => {
      expect(isBannedPrefix(prefix)).toBe(true);
    },
  );
});

describe('forbidden and prompt rules see through assignments, wrappers and paths (issue row 9)', () => {
  const rules = PrefixRules.fromText(
    [
      'prefix_rule(pattern=["rm"], decision="forbidden")',
      'prefix_rule(pattern=["git", "push"], decision="prompt")',
      'prefix_rule(pattern=["npm", "test"], decision="allow")',
      'prefix_rule(pattern=["ls"], decision="allow")',
    ].join('\n'),
  );
  const bash = (script: string): string[] => ['/bin/bash', '-lc', script];

  it.each([
    'rm -rf d',
    'A=/cat rm -rf d',
    'command rm -rf d',
    'env rm -rf d',
    'env -i FOO=1 rm -rf d',
    'sudo -u x rm -rf d',
    '/bin/rm -rf d',
    '/usr/bin/rm -rf d',
    'nice -n 5 rm -rf d',
    'timeout 5 rm -rf d',
    'exec rm -rf d',
    'nohup rm -rf d',
    'echo d | xargs rm -rf',
    'rm -rf d > /dev/null',
    'ls && rm -rf d 2>&1',
    'echo $(rm -rf d)',
    'echo `rm -rf d`',
    '(rm -rf d)',
    "sh -c 'rm -rf d'",
    'eval rm -rf d',
    'find . -exec rm -rf {} +',
    'if true; then rm -rf d; fi',
    "$'\\x72m' -rf d",
  ])('forbids %j', (script) => {
    expect(rules.evaluate(bash(script))).toBe('forbidden');
  });

  it.each(['A=1 git push', 'command git push origin', 'git push > log.txt', 'env git push'])('prompts for %j', (script) => {
    expect(rules.evaluate(bash(script))).toBe('prompt');
  });

  it('matches allow rules only on the command as written', () => {
    expect(rules.evaluate(bash('npm test'))).toBe('allow');
    expect(rules.evaluate(bash('ls && npm test -- --watch'))).toBe('allow');
    expect(rules.evaluate(bash('LD_PRELOAD=/tmp/x.so npm test'))).toBeNull();
    expect(rules.evaluate(bash('env npm test'))).toBeNull();
    expect(rules.evaluate(bash('command npm test'))).toBeNull();
    expect(rules.evaluate(bash('npm test > out.txt'))).toBeNull();
    expect(rules.evaluate(bash('npm test && command rm -rf d'))).toBe('forbidden');
  });

  it('does not forbid what only mentions rm', () => {
    expect(rules.evaluate(bash('echo rm -rf d'))).toBeNull();
    expect(rules.evaluate(bash('command -v rm'))).toBeNull();
    expect(rules.evaluate(bash('grep rm notes.txt > hits.txt'))).toBeNull();
  });
});

describe('proposePrefixRule', () => {
  it('uses the model prefix when it covers the command and is not banned', () => {
    expect(proposePrefixRule(['npm', 'run', 'build'], ['npm', 'run'])).toEqual(['npm', 'run']);
    expect(proposePrefixRule(['bash', '-lc', 'cd app && npm test'], ['npm', 'test'])).toEqual(['npm', 'test']);
  });

  it('falls back to the command when the model prefix is banned or does not fit', () => {
    expect(proposePrefixRule(['python3', '-c', 'print(1)'], ['python3'])).toEqual(['python3', '-c', 'print(1)']);
    expect(proposePrefixRule(['npm', 'test'], ['yarn'])).toEqual(['npm', 'test']);
    expect(proposePrefixRule(['bash', '-lc', 'ls && touch a'])).toEqual(['touch', 'a']);
    expect(proposePrefixRule(['git'])).toBeNull();
  });
});
