/**
 * The bundle's loader (`bundle/main.js`) and V8's code cache: a copy of the built bundle answers
 * `initialize` on stdio with its chunks compiled from the cache, and equally when the cache is
 * missing, rejected (bytes V8 does not accept) or turned off; a missing or rejected cache is
 * written again as the process exits, so the next start uses it. Real child processes on copies
 * of the bundle under a temp directory, each killed by PID if it outlives its deadline.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt, MAIN_JS } from './support/server-process.js';

let dir: string;
let main: string;
let cacheDir: string;

beforeAll(async () => {
  await ensureBuilt();
}, BUILD_TIMEOUT_MS);

beforeEach(() => {
  // The app directory's package.json sits above the bundle (the server reads its version there).
  dir = mkdtempSync(path.join(tmpdir(), 'deputy-code-cache-'));
  const appDir = path.dirname(path.dirname(MAIN_JS));
  cpSync(path.join(appDir, 'package.json'), path.join(dir, 'package.json'));
  cpSync(path.dirname(MAIN_JS), path.join(dir, 'bundle'), { recursive: true });
  main = path.join(dir, 'bundle', 'main.js');
  cacheDir = path.join(dir, 'bundle', 'code-cache');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the copied bundle, sends `initialize`, ends stdin once it is answered, and waits for the exit. */
function initializeOnce(env: Record<string, string> = {}): Promise<Run> {
  const home = path.join(dir, 'home');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, '--listen', 'stdio://'], {
      cwd: dir,
      env: { ...process.env, DEPUTY_HOME: home, DEPUTY_CODE_CACHE_DEBUG: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'code-cache-test', title: null, version: '0' }, capabilities: null } };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}

function expectInitialized(run: Run): void {
  expect(run.code, run.stderr).toBe(0);
  const reply = run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id?: number; result?: { userAgent?: string } })
    .find((message) => message.id === 1);
  expect(reply?.result?.userAgent, run.stdout).toMatch(/deputy\//);
}

/** `[from the cache, chunks loaded]` as the loader reports them on stderr. */
function cacheUse(run: Run): [number, number] {
  const match = /deputy code cache: (\d+) of (\d+) chunks from the cache/.exec(run.stderr);
  expect(match, run.stderr).not.toBeNull();
  return [Number(match?.[1]), Number(match?.[2])];
}

describe('the bundle code cache', () => {
  it('compiles every chunk it loads from the cache the build wrote', async () => {
    const run = await initializeOnce();
    expectInitialized(run);
    const [cached, loaded] = cacheUse(run);
    expect(loaded).toBeGreaterThan(1);
    expect(cached).toBe(loaded);
  }, 30_000);

  it('answers without the cache, writes it as it exits, and the next start uses it', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const first = await initializeOnce();
    expectInitialized(first);
    const [cached, loaded] = cacheUse(first);
    expect(cached).toBe(0);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.cache'))).toHaveLength(loaded);
    const second = await initializeOnce();
    expectInitialized(second);
    expect(cacheUse(second)).toEqual([loaded, loaded]);
  }, 40_000);

  it('answers when V8 rejects the cache (another Node, corrupt files) and replaces it', async () => {
    const names = readdirSync(cacheDir);
    expect(names.length).toBeGreaterThan(0);
    const junk = Buffer.alloc(4096, 0x5a);
    for (const name of names) writeFileSync(path.join(cacheDir, name), junk);
    const run = await initializeOnce();
    expectInitialized(run);
    const [cached, loaded] = cacheUse(run);
    expect(cached).toBe(0);
    // Every chunk it loaded has a real cache again (the build's cache may name more chunks).
    expect(names.filter((name) => !readFileSync(path.join(cacheDir, name)).equals(junk))).toHaveLength(loaded);
  }, 30_000);

  it('reads and writes no cache with DEPUTY_CODE_CACHE=0', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const run = await initializeOnce({ DEPUTY_CODE_CACHE: '0' });
    expectInitialized(run);
    expect(run.stderr).not.toContain('deputy code cache:');
    expect(existsSync(cacheDir)).toBe(false);
  }, 30_000);
});
