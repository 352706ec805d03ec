/**
 * `deputy exec`'s codex exec flags beyond the JSONL stream (docs/exec.md), end to end against the
 * scripted model, asserting on the host and on what reached the model: `--add-dir` widens the
 * workspace-write sandbox, `--dangerously-bypass-approvals-and-sandbox` lifts it, `-i` attaches
 * an image, a piped stdin is appended to the prompt argument as a `<stdin>` block, and `-o`
 * writes the last message.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, lastUserText, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { ensureCliBuilt, runCli } from './cli-process.js';

let server: ScriptedModelServer;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** A home whose config points at the scripted server, with the given policies; `root` is a scratch folder outside both. */
async function home(onFinished: (fn: () => Promise<void>) => void, sandbox: string, approval: string): Promise<TempHome & { root: string }> {
  const t = await makeTempHome('deputy-exec-flags-');
  const root = await realpath(await mkdtemp(join(tmpdir(), 'deputy-exec-flags-scratch-')));
  onFinished(async () => {
    await t.cleanup();
    await rm(root, { recursive: true, force: true });
  });
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    `approval_policy = "${approval}"`,
    `sandbox_mode = "${sandbox}"`,
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${server.url}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    // Temp folders are writable in workspace-write by default; these tests need them not to be.
    '[sandbox_workspace_write]',
    'exclude_slash_tmp = true',
    'exclude_tmpdir_env_var = true',
  ].join('\n');
  await writeFile(join(t.home, 'config.toml'), toml);
  return { ...t, root };
}

// One test at a time: they share the scripted server's queue.
describe('deputy exec flags', () => {
  it('--add-dir makes another directory writable in the workspace-write sandbox, and only that one', async ({ onTestFinished }) => {
    const t = await home(onTestFinished, 'workspace-write', 'never');
    const added = join(t.root, 'added');
    const other = join(t.root, 'other');
    await Promise.all([mkdir(added), mkdir(other)]);
    server.enqueue(
      { output: [functionCall('exec_command', { cmd: `touch ${join(added, 'in-added.txt')}; touch ${join(other, 'in-other.txt')}` })] },
      { output: [text('tried both')] },
    );
    const result = await runCli(['exec', '--add-dir', added, 'write in both'], { home: t.home, cwd: t.cwd }, 30_000);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(added, 'in-added.txt'))).toBe(true);
    expect(existsSync(join(other, 'in-other.txt'))).toBe(false);
  }, 60_000);

  it('--dangerously-bypass-approvals-and-sandbox runs without asking and without the sandbox', async ({ onTestFinished }) => {
    const t = await home(onTestFinished, 'read-only', 'untrusted');
    const outside = join(t.root, 'outside.txt');
    server.enqueue({ output: [functionCall('exec_command', { cmd: `touch ${outside}`, yield_time_ms: 20_000 })] }, { output: [text('done')] });
    // HOME points at the scratch folder so the unsandboxed login shell does not read the user's profile.
    const result = await runCli(['exec', '--dangerously-bypass-approvals-and-sandbox', 'write outside'], { home: t.home, cwd: t.cwd, env: { HOME: t.root } }, 30_000);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(outside), result.stderr).toBe(true);
  }, 60_000);

  it('-i attaches an image, stdin is appended as a <stdin> block, -o writes the last message', async ({ onTestFinished }) => {
    const t = await home(onTestFinished, 'read-only', 'never');
    // A 1x1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await writeFile(join(t.cwd, 'dot.png'), png);
    server.enqueue({ output: [text('I see a dot.')] });
    const before = server.requests.length;
    const last = join(t.root, 'last.txt');
    const result = await runCli(['exec', '-o', last, 'Describe it', '-i', 'dot.png'], { home: t.home, cwd: t.cwd, stdin: 'extra context\n' }, 30_000);
    expect(result.code, result.stderr).toBe(0);
    const request = server.requests[before]!;
    expect(lastUserText(request)).toBe('Describe it\n\n<stdin>\nextra context\n</stdin>');
    expect(JSON.stringify(request.body.input)).toContain('input_image');
    expect(await readFile(last, 'utf8')).toBe('I see a dot.');
  }, 60_000);
});
