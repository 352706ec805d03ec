/**
 * Approval prompt spoofing, from the attacker's side: the scripted model asks to run, with
 * escalation out of the sandbox, a command whose text holds a carriage return, ANSI cursor moves
 * and erase-line, a bidi override and a zero-width space, so that a raw print would redraw the
 * prompt as a harmless `npm test`. The built `deputy exec` runs in a real terminal (tmux), and the
 * test reads the screen as a person would (capture-pane): the question must show the escaped
 * forms and the hidden part, and after "y" the host holds what that shown command does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { functionCall, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer } from '@deputy/test-support';
import { CLI_ENTRY, ensureCliBuilt } from '../cli-process.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  await ensureCliBuilt();
  server = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** A tmux server of this test's own (its socket in a temp dir), with one window running `argv`. */
async function startTmux(argv: string[], cwd: string, env: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'deputy-tmux-'));
  const socket = join(dir, 'sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 });
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  // The window stays after the CLI exits (the shell prints its exit code and sleeps), so the
  // screen can still be read; kill-server ends it.
  const script = '"$@"; echo "[exit $?]"; sleep 120';
  const started = tmux('new-session', '-d', '-s', 'deputy', '-x', '200', '-y', '50', '-c', cwd, 'env', '-i', ...envArgs, 'sh', '-c', script, 'sh', ...argv);
  if (started.status !== 0) throw new Error(`tmux did not start: ${started.stderr}`);
  onTestFinished(async () => {
    tmux('kill-server');
    await rm(dir, { recursive: true, force: true });
  });
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'deputy').stdout;
  const waitFor = async (needle: string, timeoutMs = 30_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const shown = screen();
      if (shown.includes(needle)) return shown;
      if (Date.now() > deadline) throw new Error(`no "${needle}" on the screen:\n${shown}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { screen, waitFor, type: (...keys: string[]) => tmux('send-keys', '-t', 'deputy', ...keys) };
}

describe('deputy exec approval prompt on a real terminal', () => {
  it('shows a command with CR, ANSI, bidi and zero-width characters escaped, and runs exactly that', async () => {
    const temp = await makeTempHome('deputy-cli-spoof-');
    onTestFinished(() => temp.cleanup());
    const toml = [
      'model = "gpt-5.2-codex"',
      'model_provider = "mock"',
      'approval_policy = "on-request"',
      'sandbox_mode = "workspace-write"',
      '[model_providers.mock]',
      `base_url = "${server.url}"`,
      'request_max_retries = 0',
      'stream_max_retries = 0',
    ].join('\n');
    await writeFile(join(temp.home, 'config.toml'), toml);
    // Printed raw, the CR and the erase-line would leave only `npm test` on the line.
    const cmd = 'touch pwned # \u202e\u200b\r\x1b[2K\x1b[1G\x1b[1Anpm test';
    const justification = 'run the tests\r\x1b[2Kreason: routine';
    server.enqueue(
      { output: [functionCall('exec_command', { cmd, sandbox_permissions: 'require_escalated', justification })] },
      { output: [text('tests ran')] },
    );
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: temp.home, DEPUTY_HOME: temp.home, SHELL: '/bin/bash', NO_COLOR: '1', TERM: 'xterm-256color' };
    const term = await startTmux([process.execPath, CLI_ENTRY, 'exec', '--skip-git-repo-check', 'run the tests'], temp.cwd, env);

    const asked = await term.waitFor('Allow?');
    const lines = asked.split('\n');
    expect(lines).toContain(String.raw`? Run: /bin/bash -lc 'touch pwned # \u{202e}\u{200b}\x0d\x1b[2K\x1b[1G\x1b[1Anpm test'`);
    expect(lines).toContain(String.raw`  reason: run the tests\x0d\x1b[2Kreason: routine`);
    expect(existsSync(join(temp.cwd, 'pwned'))).toBe(false);

    term.type('y', 'Enter');
    const done = await term.waitFor('[exit ');
    expect(done).toContain('[exit 0]');
    // The command that ran is the one shown: its visible first part made the file.
    expect(existsSync(join(temp.cwd, 'pwned'))).toBe(true);
    expect(done.split('\n')).toContain(String.raw`$ /bin/bash -lc 'touch pwned # \u{202e}\u{200b}\x0d\x1b[2K\x1b[1G\x1b[1Anpm test' (in ${temp.cwd})`);
  }, 60_000);
});
