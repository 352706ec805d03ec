/**
 * Crash safety end to end: a `deputy exec` child is killed with SIGKILL in the middle of a turn,
 * then `deputy exec resume` in a new process continues the thread. The cut turn reads back as
 * interrupted with the items it completed, and the next model request is valid (every tool call
 * has an output). Ctrl-C (SIGINT) interrupts the turn cleanly instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedApprovals, EngineRuntime, loadConfig, ThreadManager } from '@deputy/engine';
import {
  functionCall,
  functionCalls,
  functionOutputs,
  lastUserText,
  makeTempHome,
  startScriptedModelServer,
  text,
  waitFor,
  type RecordedRequest,
  type ScriptedModelServer,
  type TempHome,
} from '@deputy/test-support';
import { ensureCliBuilt, runCli, startCli, type CliProcess } from './cli-process.js';

let server: ScriptedModelServer | null = null;
let temp: TempHome | null = null;
const processes: CliProcess[] = [];
const groups: number[] = [];

beforeAll(() => ensureCliBuilt(), 120_000);
afterEach(async () => {
  for (const cli of processes.splice(0)) cli.kill();
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await server?.close();
  await temp?.cleanup();
  server = null;
  temp = null;
});

async function setup(): Promise<{ server: ScriptedModelServer; temp: TempHome }> {
  server = await startScriptedModelServer();
  temp = await makeTempHome('deputy-kill-');
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${server.url}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 60000',
  ].join('\n');
  await writeFile(join(temp.home, 'config.toml'), toml);
  return { server, temp };
}

/** Reads a thread through a ThreadManager of this test process (same home). */
async function readThread(home: string, cwd: string, threadId: string) {
  const config = await loadConfig({ home, cwd, overrides: [], env: {}, profile: undefined });
  const runtime = await EngineRuntime.create({ config, approvals: fixedApprovals('denied'), source: 'exec' });
  const manager = await ThreadManager.open(runtime);
  try {
    return await manager.read(threadId);
  } finally {
    await manager.close();
  }
}

function unanswered(request: RecordedRequest): string[] {
  const answered = new Set(functionOutputs(request).map((o) => o.call_id));
  return functionCalls(request)
    .map((c) => c.call_id)
    .filter((id) => !answered.has(id));
}

/** Waits until the CLI has announced its thread id on stderr. */
async function threadIdOf(cli: CliProcess): Promise<string> {
  const match = await waitFor(() => /deputy: thread (\S+)/.exec(cli.stderr()), 10_000, () => `a thread id on stderr:\n${cli.stderr()}`);
  return match[1]!;
}

describe('kill -9 mid-turn', () => {
  it('leaves a thread that a new process resumes, with the cut turn interrupted and its items kept', async () => {
    const { server, temp } = await setup();
    const call = functionCall('exec_command', { cmd: 'echo first-step-done' });
    server.enqueue(
      { output: [call] },
      { fault: 'stall', after: 5, output: [text('this answer is cut by the kill')] },
      { output: [text('picked up where we left off')] },
    );
    const cli = startCli(['exec', 'do two steps'], { home: temp.home, cwd: temp.cwd });
    processes.push(cli);
    const threadId = await threadIdOf(cli);
    await server.waitForRequests(2, 10_000);
    process.kill(cli.pid, 'SIGKILL');
    expect((await cli.exited()).signal).toBe('SIGKILL');

    const resumed = await runCli(['exec', 'resume', threadId, 'continue'], { home: temp.home, cwd: temp.cwd });
    expect(resumed.stderr).not.toMatch(/\n\s+at /);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('picked up where we left off\n');

    const request = server.requests[2]!;
    expect(lastUserText(request)).toBe('continue');
    expect(unanswered(request)).toEqual([]);
    expect(functionOutputs(request).find((o) => o.call_id === call.callId)?.output).toContain('first-step-done');
    expect(JSON.stringify(request.body.input)).not.toContain('cut by the kill');

    const snapshot = await readThread(temp.home, temp.cwd, threadId);
    expect(snapshot.turns).toHaveLength(2);
    const [cut, next] = snapshot.turns;
    expect(cut!.info.status).toBe('interrupted');
    // It never completed: completedAt stays null (docs/app-server.md "Limits", kill -9).
    expect(cut!.info.completedAtMs).toBeNull();
    expect(cut!.items.map((i) => i.type)).toEqual(['userMessage', 'commandExecution']);
    expect(next!.info.status).toBe('completed');
    expect(next!.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
  });

  it('answers a tool call cut mid-command as aborted so the resumed request is valid', async () => {
    const { server, temp } = await setup();
    const pidFile = join(temp.cwd, 'shell.pid');
    const call = functionCall('exec_command', { cmd: `echo $$ > ${pidFile}; sleep 60`, yield_time_ms: 30_000 });
    server.enqueue({ output: [call] }, { output: [text('resumed fine')] });
    const cli = startCli(['exec', 'run something long'], { home: temp.home, cwd: temp.cwd });
    processes.push(cli);
    const threadId = await threadIdOf(cli);
    const pid = await waitFor(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0), 10_000, 'the command to start');
    groups.push(pid);
    process.kill(cli.pid, 'SIGKILL');
    await cli.exited();

    const resumed = await runCli(['exec', 'resume', '--last', 'status?'], { home: temp.home, cwd: temp.cwd });
    expect(resumed.code).toBe(0);
    const request = server.requests[1]!;
    expect(unanswered(request)).toEqual([]);
    expect(functionOutputs(request).find((o) => o.call_id === call.callId)?.output).toMatch(/aborted/);
    const snapshot = await readThread(temp.home, temp.cwd, threadId);
    expect(snapshot.turns.map((t) => t.info.status)).toEqual(['interrupted', 'completed']);
  });
});

describe('Ctrl-C', () => {
  it('interrupts the turn, exits 1 and leaves the turn marked interrupted', async () => {
    const { server, temp } = await setup();
    server.enqueue({ fault: 'stall', after: 5 }, { output: [text('after the interrupt')] });
    const cli = startCli(['exec', 'take your time'], { home: temp.home, cwd: temp.cwd });
    processes.push(cli);
    const threadId = await threadIdOf(cli);
    await server.waitForRequests(1, 10_000);
    process.kill(cli.pid, 'SIGINT');
    const { code } = await cli.exited();
    expect(code).toBe(1);
    expect(cli.stderr()).toMatch(/turn interrupted/);
    expect(cli.stdout()).toBe('');
    const snapshot = await readThread(temp.home, temp.cwd, threadId);
    expect(snapshot.turns.map((t) => t.info.status)).toEqual(['interrupted']);
    const resumed = await runCli(['exec', 'resume', threadId, 'go on'], { home: temp.home, cwd: temp.cwd });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('after the interrupt\n');
  });
});
