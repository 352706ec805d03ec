/**
 * `deputy exec` approvals: on a terminal the CLI asks and obeys the answer; without one it denies
 * and names the flags that run without asking. Driven through the built CLI against the scripted
 * model, with a real PTY for the interactive case.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pty from '@lydell/node-pty';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { functionCall, functionOutputs, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { CLI_ENTRY, ensureCliBuilt, runCli } from './cli-process.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  await ensureCliBuilt();
  server = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

async function homeAskingForEverything(): Promise<TempHome> {
  const temp = await makeTempHome('deputy-cli-approval-');
  onTestFinished(() => temp.cleanup());
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "untrusted"',
    'sandbox_mode = "danger-full-access"',
    '[model_providers.mock]',
    `base_url = "${server.url}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
  ].join('\n');
  await writeFile(join(temp.home, 'config.toml'), toml);
  return temp;
}

describe('deputy exec approvals', () => {
  it('denies without a terminal, says how to run without asking, and tells the model', async () => {
    const temp = await homeAskingForEverything();
    server.enqueue({ output: [functionCall('exec_command', { cmd: 'touch marker' })] }, { output: [text('ok, not done')] });
    const before = server.requests.length;
    const result = await runCli(['exec', 'make a marker'], { home: temp.home, cwd: temp.cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('--ask-for-approval never');
    expect(result.stderr).toContain('--full-auto');
    expect(existsSync(join(temp.cwd, 'marker'))).toBe(false);
    expect(functionOutputs(server.requests[before + 1]!)[0]?.output).toBe('rejected by user');
  });

  it('asks on a terminal and runs the command when the answer is yes', async () => {
    const temp = await homeAskingForEverything();
    server.enqueue({ output: [functionCall('exec_command', { cmd: 'touch marker' })] }, { output: [text('marker made')] });
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DEPUTY_HOME: temp.home, NO_COLOR: '1' };
    const term = pty.spawn(process.execPath, [CLI_ENTRY, 'exec', '--skip-git-repo-check', 'make a marker'], { cwd: temp.cwd, env, cols: 120, rows: 40 });
    onTestFinished(() => {
      try {
        process.kill(term.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    let screen = '';
    let answered = false;
    const exit = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    term.onData((data) => {
      screen += data;
      if (!answered && screen.includes('Allow?')) {
        answered = true;
        term.write('y\r');
      }
    });
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit; screen:\n${screen}`)), 20_000));
    const code = await Promise.race([exit, timeout]);
    expect(screen).toContain('touch marker');
    expect(code).toBe(0);
    expect(existsSync(join(temp.cwd, 'marker'))).toBe(true);
    expect(screen).toContain('marker made');
  });
});
