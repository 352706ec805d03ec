/**
 * The facts the front doors report from `@deputy/engine/facts`: the sandbox's grants (one list
 * of protected names), the script of an argv, the sides of a recorded diff, whole seconds, and
 * the AGENTS.md files of a workspace, and the `-c`/`-p` flags of a command line. The entry must
 * load without the rest of the engine.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configArgOptions,
  diffHunks,
  diffSideText,
  findRepositoryRoot,
  instructionSources,
  overrideSyntaxError,
  PROTECTED_DIR_NAMES,
  sandboxGrants,
  scriptOf,
  wholeSeconds,
  workspaceDirs,
} from '../../src/facts.js';
import { formatGitDiff } from '../../src/tools/apply-patch/git-diff.js';

const SRC = new URL('../../src/', import.meta.url);

/** The engine modules a module loads as values, transitively (relative imports only). */
function valueImports(module: string, seen = new Set<string>()): Set<string> {
  if (seen.has(module)) return seen;
  seen.add(module);
  const text = readFileSync(new URL(module, SRC), 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+'(\.[^']+)'/gm)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(module), match[1] as string)).replace(/\.js$/, '.ts');
    valueImports(target, seen);
  }
  return seen;
}

describe('the facts entry', () => {
  it('loads only the fact modules, not the rest of the engine', () => {
    expect([...valueImports('facts.ts')].sort()).toEqual([
      'config/canonical-json.ts',
      'config/config-args.ts',
      'config/workspace.ts',
      'events/timestamps.ts',
      'exec/sandbox-grants.ts',
      'exec/shell.ts',
      'facts.ts',
      'tools/apply-patch/diff-sides.ts',
    ]);
  });
});

describe('the config flags', () => {
  const parse = (args: string[]) => parseArgs({ args, strict: true, allowPositionals: false, options: configArgOptions() }).values;

  it('parses repeated -c/--config in order and -p/--profile', () => {
    expect(parse(['-c', 'a=1', '--config', 'b.c="x"', '-p', 'fast'])).toEqual({ config: ['a=1', 'b.c="x"'], profile: 'fast' });
    expect(parse(['--profile', 'slow'])).toEqual({ config: [], profile: 'slow' });
  });

  it('gives each parse its own empty override list', () => {
    parse([]).config.push('leaked=1');
    expect(parse([]).config).toEqual([]);
  });

  it('accepts key=value overrides and explains the others', () => {
    expect(overrideSyntaxError('model=gpt-5')).toBeNull();
    expect(overrideSyntaxError('a.b=')).toBeNull();
    expect(overrideSyntaxError('novalue')).toBe('-c novalue: expected key=value, e.g. -c model_reasoning_effort=high');
    expect(overrideSyntaxError('=x')).toBe('-c =x: expected key=value, e.g. -c model_reasoning_effort=high');
  });
});

describe('sandboxGrants', () => {
  it('grants nothing to report for danger-full-access', () => {
    expect(sandboxGrants({ type: 'danger-full-access' })).toBeNull();
  });

  it('grants only reading under read-only', () => {
    expect(sandboxGrants({ type: 'read-only', networkAccess: true })).toEqual({ writableRoots: [], readOnlySubpaths: [], networkAccess: true });
  });

  it('lists the workspace, /tmp, $TMPDIR and the extra roots, with .git, .deputy and .codex read-only', () => {
    const grants = sandboxGrants({ type: 'workspace-write', writableRoots: ['/extra'], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false });
    expect(grants).toEqual({
      writableRoots: [{ kind: 'workspace' }, { kind: 'slashTmp' }, { kind: 'tmpdirEnv' }, { kind: 'path', path: '/extra' }],
      readOnlySubpaths: ['.git', '.deputy', '.codex'],
      networkAccess: false,
    });
    expect(grants?.readOnlySubpaths).toBe(PROTECTED_DIR_NAMES);
  });

  it('leaves out the excluded temporary directories', () => {
    const grants = sandboxGrants({ type: 'workspace-write', writableRoots: [], networkAccess: true, excludeTmpdirEnvVar: true, excludeSlashTmp: true });
    expect(grants?.writableRoots).toEqual([{ kind: 'workspace' }]);
  });
});

describe('scriptOf', () => {
  it.each([
    [['/bin/bash', '-lc', 'echo hi && ls'], 'echo hi && ls'],
    [['sh', '-c', 'true'], 'true'],
    [['/usr/bin/fish', '-lc', 'ls'], 'ls'],
    [['ls', '-la', 'my dir'], "ls -la 'my dir'"],
    [['bash', '-lc', 'echo', 'extra'], 'bash -lc echo extra'],
    [['env', 'bash', '-lc', 'x'], 'env bash -lc x'],
  ])('gives the script of %j as %j', (argv, script) => {
    expect(scriptOf(argv)).toBe(script);
  });
});

describe('diff sides', () => {
  const add = formatGitDiff({ oldPath: null, newPath: 'a.txt', oldContent: null, newContent: 'hello\nworld\n' });
  const del = formatGitDiff({ oldPath: 'b.txt', newPath: null, oldContent: 'a\nb', newContent: null });
  const update = formatGitDiff({ oldPath: 'c.txt', newPath: 'c.txt', oldContent: 'old\n', newContent: 'new\n' });

  it('reads a created file from the new side and a deleted one from the old side', () => {
    expect(diffSideText(add, 'new')).toBe('hello\nworld\n');
    expect(diffSideText(add, 'old')).toBe('');
    expect(diffSideText(del, 'old')).toBe('a\nb');
  });

  it('honours "\\ No newline at end of file" only after a line of its side', () => {
    expect(diffSideText('@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n', 'new')).toBe('a\nb');
    expect(diffSideText('@@ -1 +1 @@\n+a\n-b\n\\ No newline at end of file\n', 'new')).toBe('a\n');
  });

  it('drops the header of a diff, and keeps a diff without hunks whole', () => {
    expect(diffHunks(update)).toBe('@@ -1 +1 @@\n-old\n+new\n');
    expect(diffHunks('diff --git a/x b/y\nrename from x\nrename to y\n')).toBe('diff --git a/x b/y\nrename from x\nrename to y\n');
  });
});

describe('wholeSeconds', () => {
  it('rounds milliseconds down to whole seconds', () => {
    expect(wholeSeconds(1_795_973_847_999)).toBe(1_795_973_847);
    expect(wholeSeconds(999)).toBe(0);
  });
});

describe('the workspace of a cwd', () => {
  let base: string;

  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'deputy-facts-'));
    await mkdir(path.join(base, 'repo', '.git'), { recursive: true });
    await mkdir(path.join(base, 'repo', 'pkg', 'src'), { recursive: true });
    await writeFile(path.join(base, 'repo', 'AGENTS.md'), 'root rules\n');
    await writeFile(path.join(base, 'repo', 'pkg', 'src', 'AGENTS.md'), 'src rules\n');
    await mkdir(path.join(base, 'repo', 'pkg', 'AGENTS.md'));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('walks from the repository root down to the cwd', () => {
    const cwd = path.join(base, 'repo', 'pkg', 'src');
    expect(findRepositoryRoot(cwd)).toBe(path.join(base, 'repo'));
    expect(workspaceDirs(cwd)).toEqual([path.join(base, 'repo'), path.join(base, 'repo', 'pkg'), cwd]);
  });

  it('lists the AGENTS.md files that are files, root first', () => {
    expect(instructionSources(path.join(base, 'repo', 'pkg', 'src'))).toEqual([path.join(base, 'repo', 'AGENTS.md'), path.join(base, 'repo', 'pkg', 'src', 'AGENTS.md')]);
  });

  it('stays at the cwd outside a repository', () => {
    expect(workspaceDirs(base)).toEqual([base]);
    expect(instructionSources(base)).toEqual([]);
  });
});
