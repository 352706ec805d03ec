/**
 * The installable package: `scripts/package.mjs` (what `pnpm package` runs after the build)
 * writes deputy-<version>.tgz; `npm i -g --prefix <scratch>` installs it the way a user would,
 * letting npm fetch the native dependencies from the registry (a prebuilt binary, or a compile
 * against the machine's Node headers); then the installed `deputy` runs `exec` with the offline
 * demo model, and answers `initialize` as `mcp-server` and as `app-server`, from a folder
 * outside the repository. The install is bounded in time; every process is killed by PID.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, ensureCliBuilt } from './cli-process.js';

const INSTALL_TIMEOUT_MS = 600_000;

let scratch: string;
let tarball: string;
let deputyBin: string;
let home: string;
let elsewhere: string;

/** A clean environment for the installed CLI: no repo on the way, its own home. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = { DEPUTY_HOME: home, NO_COLOR: '1' };
  for (const key of ['PATH', 'HOME', 'SHELL', 'TMPDIR', 'LANG', 'TZ']) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
  return env;
}

beforeAll(async () => {
  await ensureCliBuilt();
  scratch = await mkdtemp(join(tmpdir(), 'deputy-package-'));
  home = join(scratch, 'home');
  elsewhere = join(scratch, 'elsewhere');
  await Promise.all([mkdir(home), mkdir(elsewhere)]);
  tarball = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/package.mjs'), '--out', join(scratch, 'out')], { encoding: 'utf8', timeout: 120_000 }).trim();
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  // Compile native addons against the machine's Node headers when present (no header download), as the quick start does.
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
  execFileSync('npm', ['install', '--global', '--prefix', join(scratch, 'prefix'), '--no-audit', '--no-fund', '--loglevel=error', tarball], {
    cwd: elsewhere,
    env,
    timeout: INSTALL_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  deputyBin = join(scratch, 'prefix', 'bin', 'deputy');
}, INSTALL_TIMEOUT_MS + 150_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Runs the installed `deputy` with `args` in the folder outside the repo; stdin is written then closed. */
function run(args: string[], stdin = '', timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(deputyBin, args, { cwd: elsewhere, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.on('error', () => {});
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`deputy ${args.join(' ')} did not exit within ${timeoutMs} ms\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Writes one JSON-RPC request line to a stdio server and returns the first JSON line that answers it. */
async function initializeOver(args: string[], request: Record<string, unknown>): Promise<Record<string, unknown>> {
  // stdin closes after the request: both servers answer, then exit at end of input.
  const { stdout, stderr } = await run(args, `${JSON.stringify(request)}\n`);
  const answer = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((m) => m.id === request.id);
  if (!answer) throw new Error(`no answer to initialize on stdout:\n${stdout}\nstderr:\n${stderr}`);
  return answer;
}

describe('the npm package', () => {
  it('is one package: bundled code, native dependencies, bin, engines, README; no workspace links or test support', () => {
    const list = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(list).toContain('package/lib/deputy.js');
    expect(list).toContain('package/README.md');
    expect(list.filter((f) => /test|fixture/i.test(f))).toEqual([]);
    const manifest = JSON.parse(execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'deputy', bin: { deputy: 'lib/deputy.js' }, engines: { node: '>=20.3' } });
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(['@lydell/node-pty', 'better-sqlite3']);
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:/);
    const installed = join(scratch, 'prefix', 'lib', 'node_modules', 'deputy', 'lib');
    for (const file of readdirSync(installed)) expect(readFileSync(join(installed, file), 'utf8'), file).not.toMatch(/from ["']@deputy\//);
  });

  it('runs deputy exec with the offline demo model from a folder outside the repo', async () => {
    await writeFile(join(elsewhere, 'installed-notes.txt'), 'hello');
    const result = await run(['exec', '--skip-git-repo-check', 'what is in this folder?']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/offline demo/);
    expect(result.stdout).toContain('installed-notes.txt');
    expect(readdirSync(join(home, 'sessions'), { recursive: true }).some((f) => String(f).endsWith('.jsonl'))).toBe(true);
  }, 90_000);

  it('answers initialize as mcp-server and as app-server', async () => {
    const mcp = await initializeOver(['mcp-server'], {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'package-test', version: '1' } },
    });
    expect(mcp).toMatchObject({ result: { serverInfo: { name: 'deputy-mcp-server' } } });
    const app = await initializeOver(['app-server'], { id: 1, method: 'initialize', params: { clientInfo: { name: 'package-test', title: null, version: '1' } } });
    expect(app.error).toBeUndefined();
    expect(app.result).toMatchObject({ userAgent: expect.any(String) });
  }, 90_000);
});
