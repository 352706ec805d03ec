/**
 * Runs one `codex exec` scenario against an exec-compatible binary (the reference Codex 0.130.0
 * or `deputy`) and the repo's scripted Responses-API model server, and normalises what it
 * printed so two implementations can be compared: the thread id, the temp folders and the
 * reference's start-up noise are replaced by placeholders. Shared by the fixture capture
 * (capture.ts, run by scripts/capture-codex-exec.mjs) and the compatibility test.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mockProviderConfigToml, startScriptedModelServer, type ScriptedModelServer, type Step } from '@deputy/test-support';

/** Where a scenario runs: the temp folders its arguments may name. */
export interface ScenarioContext {
  cwd: string;
  home: string;
  /** A scratch folder outside cwd (schema files, -o output). */
  scratch: string;
  /** The thread id the previous run printed (`thread.started`), for `resume`. */
  previousThreadId: string;
}

/** One run of the binary within a scenario. */
export interface ScenarioRun {
  /** Model responses queued for this run. */
  steps: () => Step[];
  /** The arguments after the binary (the scenario's `exec ...`). */
  args: (ctx: ScenarioContext) => string[];
  /** Written to stdin, then closed (closed at once when absent). */
  stdin?: string;
}

/** A scenario: optional earlier runs (e.g. the turn a `resume` continues), then the captured run. */
export interface ExecScenario {
  name: string;
  /** Files created in cwd first (path relative to cwd → content). */
  files?: Record<string, string>;
  /** Files created in scratch first (name → content), e.g. an output schema. */
  scratchFiles?: Record<string, string>;
  /** `git init` the cwd first (codex exec refuses to run outside a repository without --skip-git-repo-check). */
  git?: boolean;
  before?: ScenarioRun[];
  run: ScenarioRun;
}

/** What the captured run left behind, normalised. */
export interface ScenarioResult {
  exitCode: number | null;
  /** stdout lines (JSONL when `--json`), normalised. */
  stdout: string[];
  /** stderr lines the reference and Deputy both print (see `stderrLines`). */
  stderr: string[];
  /** Files in scratch after the run (name → content), e.g. the `-o` file. */
  scratch: Record<string, string>;
  /** Files in cwd named by the scenario's `files` or created by the run (path → content, null when deleted). */
  cwdFiles: Record<string, string | null>;
}

/** How to start the binary under test. */
export interface ExecTarget {
  command: string;
  /** Arguments before the scenario's own (e.g. the CLI entry for node). */
  prefix: string[];
  /** Environment entries that point it at its home folder. */
  homeEnv: (home: string) => Record<string, string>;
}

/** Passed through; HOME is an empty folder of the scenario, so login shells do not read the user's profile. */
const PASS_ENV = ['PATH', 'SHELL', 'LANG', 'TZ', 'USER'];

/** Runs `scenario` with `target`; every process is bounded in time and killed by PID. */
export async function runScenario(scenario: ExecScenario, target: ExecTarget, timeoutMs = 30_000): Promise<ScenarioResult> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'deputy-exec-compat-')));
  const server = await startScriptedModelServer();
  try {
    const ctx: ScenarioContext = { cwd: join(root, 'work'), home: join(root, 'home'), scratch: join(root, 'scratch'), previousThreadId: '' };
    await Promise.all([mkdir(ctx.cwd), mkdir(ctx.home), mkdir(ctx.scratch), mkdir(join(root, 'user-home'))]);
    await writeFile(join(ctx.home, 'config.toml'), mockProviderConfigToml(server.url, { model: 'gpt-5.2-codex' }));
    for (const [path, content] of Object.entries(scenario.files ?? {})) {
      await mkdir(dirname(join(ctx.cwd, path)), { recursive: true });
      await writeFile(join(ctx.cwd, path), content);
    }
    for (const [name, content] of Object.entries(scenario.scratchFiles ?? {})) await writeFile(join(ctx.scratch, name), content);
    if (scenario.git) spawnSync('git', ['init', '-q', ctx.cwd], { stdio: 'ignore' });
    for (const run of scenario.before ?? []) {
      const earlier = await runOnce(run, ctx, target, server, timeoutMs);
      ctx.previousThreadId = threadIdOf(earlier.stdout, earlier.stderr) ?? '';
    }
    const { code, stdout, stderr } = await runOnce(scenario.run, ctx, target, server, timeoutMs);
    const normalise = (text: string) => normaliseText(text, ctx, threadIdOf(stdout, stderr));
    const scratch: Record<string, string> = {};
    for (const name of readdirSync(ctx.scratch).filter((n) => !(n in (scenario.scratchFiles ?? {})))) scratch[name] = normalise(await readFile(join(ctx.scratch, name), 'utf8'));
    const cwdFiles: Record<string, string | null> = {};
    const names = new Set([...Object.keys(scenario.files ?? {}), ...readdirSync(ctx.cwd).filter((n) => n !== '.git')]);
    for (const name of [...names].sort()) cwdFiles[name] = existsSync(join(ctx.cwd, name)) ? await readFile(join(ctx.cwd, name), 'utf8') : null;
    return {
      exitCode: code,
      stdout: normalise(stdout).split('\n').filter((l) => l !== ''),
      stderr: stderrLines(normalise(stderr)),
      scratch,
      cwdFiles,
    };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The thread id from a `thread.started` line, else from Deputy's human stderr line. */
function threadIdOf(stdout: string, stderr: string): string | undefined {
  return /"thread_id":"([^"]+)"/.exec(stdout)?.[1] ?? /session id: (\S+)/.exec(stderr)?.[1] ?? /deputy: thread (\S+)/.exec(stderr)?.[1];
}

function normaliseText(text: string, ctx: ScenarioContext, threadId: string | undefined): string {
  let out = text.split(ctx.scratch).join('<SCRATCH>').split(ctx.cwd).join('<CWD>').split(ctx.home).join('<HOME>');
  if (threadId) out = out.split(threadId).join('<THREAD_ID>');
  return out;
}

/**
 * The stderr lines that are part of the contract: errors the user must see. The reference's
 * start-up warnings about its helper binaries and its "Reading additional input" notice, and
 * Deputy's progress lines, are left out.
 */
export function stderrLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => !/^WARNING: proceeding, even though we could not update PATH/.test(line))
    .filter((line) => !/^Reading (additional input|prompt) from stdin/.test(line))
    .filter((line) => !/^deputy: /.test(line));
}

function runOnce(run: ScenarioRun, ctx: ScenarioContext, target: ExecTarget, server: ScriptedModelServer, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  server.enqueue(...run.steps());
  const env: Record<string, string> = { RUST_LOG: 'error', NO_COLOR: '1' };
  for (const key of PASS_ENV) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
  env.HOME = join(dirname(ctx.home), 'user-home');
  Object.assign(env, target.homeEnv(ctx.home));
  const child = spawn(target.command, [...target.prefix, ...run.args(ctx)], { cwd: ctx.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {});
  child.stdin.end(run.stdin ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`${run.args(ctx).join(' ')} did not exit within ${timeoutMs} ms\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
