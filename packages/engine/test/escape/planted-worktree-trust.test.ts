/**
 * Escape row: a `.git` file a sandboxed command writes does not lend a folder the trust of
 * another repository. Project trust follows a worktree's `.git` file to its main repository; a
 * command in an untrusted workspace writes `sub/.git` saying `gitdir: <trusted>/.git/worktrees/x`
 * (and a `.git/worktrees/x` of its own would need the trusted repository's `.git`, which it cannot
 * write). A later thread in `sub` must still resolve as untrusted (policy `untrusted`, no
 * workspace-write, no project hooks), while a real `git worktree add` of the trusted repository
 * keeps inheriting its trust.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '@deputy/test-support';
import { loadConfig } from '../../src/config/load-config.js';
import { collect, startTestEngine, type TestEngine } from '../helpers/engine.js';
import { CONFINED_TMP_TOML, execCall, requireBwrap, WORKSPACE_WRITE } from '../safety/harness.js';

let engine: TestEngine;
let base: string;
let trusted: string;
let untrusted: string;

function userGit(cwd: string, ...args: string[]): void {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd, env, stdio: 'ignore' });
}

beforeAll(async () => {
  await requireBwrap();
  base = await realpath(await mkdtemp(join(tmpdir(), 'deputy-worktree-trust-')));
  trusted = join(base, 'trusted');
  untrusted = join(base, 'untrusted');
  await mkdir(trusted);
  await mkdir(untrusted);
  userGit(trusted, 'init', '-q');
  userGit(trusted, 'commit', '-q', '--allow-empty', '-m', 'a');
  const projects = [`[projects."${trusted}"]`, 'trust_level = "trusted"', `[projects."${untrusted}"]`, 'trust_level = "untrusted"'].join('\n');
  engine = await startTestEngine({ approvalPolicy: 'never', sandbox: 'workspace-write', extraToml: `${CONFINED_TMP_TOML}\n${projects}` });
});
afterAll(async () => {
  await engine?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

/** The config Deputy resolves for a thread started in `cwd` (no policy given). */
async function resolvedFor(cwd: string) {
  return loadConfig({ home: engine.temp.home, cwd, overrides: [], env: {}, profile: undefined });
}

describe('project trust and planted .git files', () => {
  it('a sandboxed command cannot make a folder inherit a trusted repository by writing .git', async () => {
    const thread = await engine.manager.start({ cwd: untrusted, approvalPolicy: 'never', sandboxPolicy: WORKSPACE_WRITE });
    const plant = `mkdir sub && printf 'gitdir: ${trusted}/.git/worktrees/x\\n' > sub/.git`;
    engine.server.setHandler((request) => (JSON.stringify(request.body.input).includes('function_call_output') ? { output: [text('done')] } : execCall(plant)));
    const events = collect(thread);
    await thread.startTurn([{ type: 'text', text: 'plant' }]).done;
    const item = events.flatMap((e) => (e.type === 'item.completed' && e.item.type === 'commandExecution' ? [e.item] : []))[0];
    expect(item).toMatchObject({ exitCode: 0 });
    // The trusted repository's .git is not writable from there: no forged back link.
    const forge = await resolvedFor(join(untrusted, 'sub'));
    expect(forge.projectTrust).toBe('untrusted');
  });

  it('a .git directory a sandboxed command plants below an untrusted folder leaves it untrusted', async () => {
    const thread = await engine.manager.start({ cwd: untrusted, approvalPolicy: 'never', sandboxPolicy: WORKSPACE_WRITE });
    engine.server.setHandler((request) => (JSON.stringify(request.body.input).includes('function_call_output') ? { output: [text('done')] } : execCall('git init -q sub2')));
    await thread.startTurn([{ type: 'text', text: 'plant' }]).done;
    expect(existsSync(join(untrusted, 'sub2', '.git', 'HEAD')), 'the planting command ran').toBe(true);
    expect((await resolvedFor(join(untrusted, 'sub2'))).projectTrust).toBe('untrusted');
  });

  it('a worktree git made still inherits the trust of its main repository', async () => {
    userGit(trusted, 'worktree', 'add', '-q', join(base, 'wt'));
    expect((await resolvedFor(join(base, 'wt'))).projectTrust).toBe('trusted');
    await mkdir(join(base, 'wt', 'deeper'));
    expect((await resolvedFor(join(base, 'wt', 'deeper'))).projectTrust).toBe('trusted');
  });
});
