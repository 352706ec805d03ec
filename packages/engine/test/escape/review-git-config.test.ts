/**
 * Escape row: a review's git never runs git configuration a sandboxed command wrote. Review
 * reads `git diff`/`git show` in the thread's cwd; a sandboxed command (workspace-write, the
 * top-level `.git` protected) plants the `.git` git finds first: a repository in a subdirectory
 * used as cwd, a submodule's embedded `.git`, a `.git` in a folder that was no repository. Its
 * config names a program for `core.fsmonitor`, `diff.external`, a textconv driver and a clean
 * filter (the last two chosen by a planted `.gitattributes`). The program appends to a file
 * outside every writable root. The review must still show the diff, and the file must never
 * appear on the host: review's git runs in a read-only sandbox, so even a program git does run
 * (a filter) cannot write it. Without bubblewrap the review fails and runs nothing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '@deputy/protocol';
import { text, type RecordedRequest } from '@deputy/test-support';
import { resolveReviewRequest } from '../../src/thread/review.js';
import { collect, startTestEngine, waitFor, type TestEngine } from '../helpers/engine.js';
import { killSleepProcesses, sleepMarker, sleepProcesses } from './host.js';
import { CONFINED_TMP_TOML, execCall, FULL_ACCESS, requireBwrap, WORKSPACE_WRITE } from '../safety/harness.js';

const USER_GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'u',
  GIT_AUTHOR_EMAIL: 'u@example.com',
  GIT_COMMITTER_NAME: 'u',
  GIT_COMMITTER_EMAIL: 'u@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** The user's own git (test set-up), on the host. */
function userGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: USER_GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}

let engine: TestEngine;
let base: string;
/** Outside every workspace and writable root: where the planted program tries to write. */
let markers: string;
let counter = 0;

beforeAll(async () => {
  await requireBwrap();
  // /tmp and $TMPDIR are not writable roots here, so `markers` is out of every sandbox's reach.
  engine = await startTestEngine({ approvalPolicy: 'never', sandbox: 'workspace-write', extraToml: CONFINED_TMP_TOML });
  base = await realpath(await mkdtemp(join(tmpdir(), 'deputy-review-git-')));
  engine.server.setHandler(() => ({ output: [text('{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"ok"}')] }));
});
beforeEach(async () => {
  markers = await newDir('markers');
});
afterAll(async () => {
  await engine?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

/** What the planted program wrote outside the workspace (one file per git mechanism that ran it). */
function markersWritten(): string[] {
  return readdirSync(markers);
}

/**
 * The attacker's shell script for a sandboxed command: writes `evil.sh` (which appends to
 * `markers/<kind>` and passes its input through) at the workspace top, then, in `gitDir`'s
 * repository, the config and `.gitattributes` that make git run it.
 */
function plantScript(repo: string): string {
  const evil = ['#!/bin/sh', 'kind=$1; shift', `echo ran >> '${markers}'/"$kind"`, 'case $kind in textconv) cat "$1";; clean) cat;; esac', 'exit 0'].join('\n');
  const config = (key: string, kind: string) => `git -C '${repo}' config ${key} "'$PWD/evil.sh' ${kind}"`;
  return [
    `printf '%s\\n' '${evil.replaceAll("'", "'\\''")}' > evil.sh && chmod +x evil.sh`,
    config('core.fsmonitor', 'fsmonitor'),
    config('diff.external', 'external'),
    config('diff.evil.textconv', 'textconv'),
    config('filter.evil.clean', 'clean'),
    `printf '*.txt diff=evil filter=evil\\n' > '${repo}/.gitattributes'`,
  ].join(' && ');
}

/** Runs `script` as the model's command in a workspace-write thread of `cwd` (the attacker's move); asserts it ran. */
async function plantFromSandbox(cwd: string, script: string): Promise<void> {
  const thread = await engine.manager.start({ cwd, approvalPolicy: 'never', sandboxPolicy: WORKSPACE_WRITE });
  engine.server.setHandler((request) => (request.body.prompt_cache_key === thread.id && !hasToolOutput(request) ? execCall(script) : { output: [text('done')] }));
  const events = collect(thread);
  await thread.startTurn([{ type: 'text', text: 'plant' }]).done;
  const item = events.flatMap((e) => (e.type === 'item.completed' && e.item.type === 'commandExecution' ? [e.item] : []))[0];
  expect(item, 'the planting command ran').toMatchObject({ exitCode: 0 });
}

function hasToolOutput(request: RecordedRequest): boolean {
  return JSON.stringify(request.body.input ?? []).includes('function_call_output');
}

/** A fresh directory under `base`. */
async function newDir(name: string): Promise<string> {
  counter += 1;
  const dir = join(base, `${name}-${counter}`);
  await mkdir(dir);
  return dir;
}

/** Starts a review of `target` in `cwd` under `sandbox`; returns the prompt the reviewer got. */
async function review(cwd: string, target: Parameters<typeof resolveReviewRequest>[0], sandbox: SandboxPolicy = WORKSPACE_WRITE): Promise<string> {
  engine.server.setHandler(() => ({ output: [text('{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"ok"}')] }));
  const thread = await engine.manager.start({ cwd, sandboxPolicy: sandbox });
  const before = engine.server.requests.length;
  const turn = await (await thread.startReview(target)).done;
  expect(turn.status).toBe('completed');
  return JSON.stringify(engine.server.requests.slice(before)[0]?.body.input ?? []);
}

describe('a review never runs git config a sandboxed command planted', () => {
  it('a repository planted in a subdirectory used as the cwd', async () => {
    const ws = await newDir('ws');
    userGit(ws, 'init', '-q');
    await writeFile(join(ws, 'top.txt'), 'top\n');
    userGit(ws, 'add', '.');
    userGit(ws, 'commit', '-q', '-m', 'top');
    const plant = [
      'mkdir sub && git init -q sub',
      "printf 'old\\n' > sub/a.txt && git -C sub add a.txt && git -C sub -c user.name=a -c user.email=a@x commit -q -m a",
      plantScript('sub'),
      "printf 'SUBDIR-CHANGE\\n' > sub/a.txt",
    ].join(' && ');
    await plantFromSandbox(ws, plant);
    const prompt = await review(join(ws, 'sub'), { type: 'uncommittedChanges' });
    expect(markersWritten()).toEqual([]);
    expect(prompt).toContain('SUBDIR-CHANGE');
  });

  it("a submodule's .git while the top-level .git is protected", async () => {
    const ws = await newDir('ws');
    userGit(ws, 'init', '-q');
    await mkdir(join(ws, 'sub'));
    userGit(join(ws, 'sub'), 'init', '-q');
    await writeFile(join(ws, 'sub', 'a.txt'), 'old\n');
    userGit(join(ws, 'sub'), 'add', '.');
    userGit(join(ws, 'sub'), 'commit', '-q', '-m', 'sub');
    await writeFile(join(ws, 'top.txt'), 'old\n');
    userGit(ws, 'add', 'top.txt', 'sub');
    userGit(ws, 'commit', '-q', '-m', 'with submodule');
    await plantFromSandbox(ws, [plantScript('sub'), "printf 'SUB-DIRTY\\n' > sub/a.txt", "printf 'TOP-CHANGE\\n' > top.txt"].join(' && '));
    const prompt = await review(ws, { type: 'uncommittedChanges' });
    expect(markersWritten()).toEqual([]);
    expect(prompt).toContain('TOP-CHANGE');
  });

  it('a .git planted in a folder that was no repository, reviewed as changes and as a commit', async () => {
    const ws = await newDir('ws');
    const plant = [
      'git init -q .',
      "printf 'old\\n' > a.txt && git add a.txt && git -c user.name=a -c user.email=a@x commit -q -m a",
      "printf 'COMMITTED-CHANGE\\n' > a.txt && git -c user.name=a -c user.email=a@x commit -q -am b",
      plantScript('.'),
      "printf 'PLANTED-REPO-CHANGE\\n' > a.txt",
    ].join(' && ');
    await plantFromSandbox(ws, plant);
    const changes = await review(ws, { type: 'uncommittedChanges' });
    expect(markersWritten()).toEqual([]);
    expect(changes).toContain('PLANTED-REPO-CHANGE');
    // The commit, from a thread under danger-full-access: review's git is sandboxed all the same.
    const head = userGit(ws, '-c', 'core.fsmonitor=false', 'rev-parse', 'HEAD').trim();
    const commit = await review(ws, { type: 'commit', sha: head }, FULL_ACCESS);
    expect(markersWritten()).toEqual([]);
    expect(commit).toContain('COMMITTED-CHANGE');
  });

  it('fails with a clear message and runs nothing when bubblewrap cannot run', async () => {
    const ws = await newDir('ws');
    await plantFromSandbox(ws, ['git init -q .', "printf 'x\\n' > a.txt && git add a.txt && git -c user.name=a -c user.email=a@x commit -q -m a", plantScript('.'), "printf 'y\\n' > a.txt"].join(' && '));
    const missing = { bwrapPath: join(base, 'no-such-bwrap') };
    await expect(resolveReviewRequest({ type: 'uncommittedChanges' }, ws, { bwrap: missing })).rejects.toThrow(/cannot review: .*sandbox.*bubblewrap/);
    expect(markersWritten()).toEqual([]);
  });

  it('stops git, and the filter it runs, when the review is cancelled', async () => {
    const ws = await newDir('ws');
    const marker = sleepMarker(30);
    const plant = [
      'git init -q .',
      "printf 'x\\n' > a.txt && git add a.txt && git -c user.name=a -c user.email=a@x commit -q -m a",
      // A filter driver is named by .gitattributes; no git option turns it off, so it runs (in the sandbox).
      `git config filter.slow.clean 'sleep ${marker}' && printf '*.txt filter=slow\\n' > .gitattributes`,
      "printf 'y\\n' > a.txt",
    ].join(' && ');
    await plantFromSandbox(ws, plant);
    const controller = new AbortController();
    const started = Date.now();
    const pending = resolveReviewRequest({ type: 'uncommittedChanges' }, ws, { signal: controller.signal });
    try {
      await waitFor(() => sleepProcesses(marker).length > 0, 10_000, 'the filter running');
      controller.abort(new Error('cancelled by the test'));
      await expect(pending).rejects.toThrow('cancelled by the test');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(sleepProcesses(marker)).toEqual([]);
    } finally {
      killSleepProcesses(marker);
    }
  });
});
