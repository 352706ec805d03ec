/**
 * The installable package: `scripts/package.mjs` (what `pnpm package` runs after the build)
 * writes deputy-<version>.tgz; `npm i -g --prefix <scratch>` installs it the way a user would,
 * letting npm fetch the native dependencies from the registry (a prebuilt binary, or a compile
 * against the machine's Node headers); then the installed `deputy` runs `exec` with the offline
 * demo model, and answers `initialize` as `mcp-server` and as `app-server` (through
 * @deputy/client), from a folder outside the repository. The install is bounded in time; every
 * process is killed by PID.
 *
 * better-sqlite3's install script downloads its prebuilt binary from GitHub releases, which not
 * every CI machine can reach (it then compiles SQLite, minutes on a small machine). The test
 * serves that download from a binary mirror on 127.0.0.1 (prebuild-install's
 * `npm_config_better_sqlite3_binary_host`), holding the binary the workspace built for this very
 * version and Node ABI. Every package still comes from the npm registry.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@deputy/client';
import { REPO_ROOT, ensureCliBuilt } from './cli-process.js';

const INSTALL_TIMEOUT_MS = 300_000;

let scratch: string;
let tarball: string;
let deputyBin: string;
let home: string;
let elsewhere: string;
let mirror: Server | undefined;

/**
 * A prebuild-install binary mirror for better-sqlite3: any `.tar.gz` request gets a tarball of
 * `build/Release/better_sqlite3.node` as the workspace built it. Returns the mirror's URL.
 */
async function startBinaryMirror(dir: string): Promise<string> {
  const pkgDir = dirname(createRequire(join(REPO_ROOT, 'packages/engine/package.json')).resolve('better-sqlite3/package.json'));
  const staged = join(dir, 'prebuilt');
  await mkdir(join(staged, 'build', 'Release'), { recursive: true });
  await copyFile(join(pkgDir, 'build', 'Release', 'better_sqlite3.node'), join(staged, 'build', 'Release', 'better_sqlite3.node'));
  const archive = join(dir, 'prebuilt.tar.gz');
  execFileSync('tar', ['czf', archive, '-C', staged, 'build']);
  const body = readFileSync(archive);
  const server = createServer((req, res) => {
    if (req.url?.endsWith('.tar.gz')) res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
    else res.writeHead(404).end();
  });
  mirror = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the binary mirror has no port');
  return `http://127.0.0.1:${address.port}`;
}

/** A clean environment for the installed CLI: no repo on the way, its own home. */
function cleanEnv(): Record<string, string> {
  // HOME is the scratch folder too: nothing of the user's (profile, ~/.deputy) is read.
  const env: Record<string, string> = { DEPUTY_HOME: home, HOME: scratch, NO_COLOR: '1' };
  for (const key of ['PATH', 'SHELL', 'TMPDIR', 'LANG', 'TZ']) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
  return env;
}

beforeAll(async () => {
  await ensureCliBuilt();
  scratch = await mkdtemp(join(tmpdir(), 'deputy-package-'));
  home = join(scratch, 'home');
  elsewhere = join(scratch, 'elsewhere');
  await Promise.all([mkdir(home), mkdir(elsewhere)]);
  tarball = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/package.mjs'), '--out', join(scratch, 'out')], { encoding: 'utf8', timeout: 120_000 }).trim();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), npm_config_better_sqlite3_binary_host: await startBinaryMirror(scratch) };
  // Compile native addons against the machine's Node headers when present (no header download), as the quick start does.
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
  // Asynchronous: the binary mirror in this process must keep answering while npm runs.
  await promisify(execFile)('npm', ['install', '--global', '--prefix', join(scratch, 'prefix'), '--no-audit', '--no-fund', '--loglevel=error', tarball], {
    cwd: elsewhere,
    env,
    timeout: INSTALL_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  deputyBin = join(scratch, 'prefix', 'bin', 'deputy');
}, INSTALL_TIMEOUT_MS + 150_000);

afterAll(async () => {
  await new Promise((resolve) => (mirror ? mirror.close(resolve) : resolve(undefined)));
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
  it('is one package: bundled code, native dependencies, bin, engines, README, licence; no workspace links or test support', () => {
    const list = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(list).toContain('package/lib/main.js');
    // The chunks' V8 code cache, written by a warm-up run of each server when the package was built.
    expect(list.filter((f) => f.startsWith('package/lib/code-cache/') && f.endsWith('.cache')).length).toBeGreaterThan(0);
    expect(list).toContain('package/README.md');
    expect(list).toContain('package/LICENSE');
    // The engine's addons ride along when the build made them (Linux with a C compiler).
    for (const addon of ['vfork-spawn.node', 'malloc-trim.node']) {
      if (existsSync(join(REPO_ROOT, 'packages/engine/dist/native', addon))) expect(list).toContain(`package/lib/${addon}`);
    }
    expect(list.filter((f) => /test|fixture/i.test(f))).toEqual([]);
    const manifest = JSON.parse(execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'deputy', bin: { deputy: 'lib/main.js' }, engines: { node: '>=20.3' }, license: 'SEE LICENSE IN LICENSE' });
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(['@lydell/node-pty', '@napi-rs/keyring', 'better-sqlite3']);
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:/);
    const installed = join(scratch, 'prefix', 'lib', 'node_modules', 'deputy', 'lib');
    for (const file of readdirSync(installed).filter((name) => name.endsWith('.js'))) {
      expect(readFileSync(join(installed, file), 'utf8'), file).not.toMatch(/(from ["']|require\(["'])@deputy\//);
    }
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
    const app = await connect({
      spawn: { command: deputyBin, args: ['app-server'], cwd: elsewhere, env: cleanEnv(), stderr: 'ignore' },
      clientInfo: { name: 'package-test', title: null, version: '1' },
      timeoutMs: 60_000,
    });
    expect(app.server.userAgent).toContain('package-test');
    await app.close();
    expect(app.child?.exitCode).toBe(0);
  }, 90_000);
});
