/**
 * The official Codex TypeScript SDK (`@openai/codex-sdk` 0.130.0) drives `deputy exec` unchanged:
 * `codexPathOverride` points at a launcher for the built CLI, which the SDK spawns as
 * `exec --experimental-json ...` with the prompt on stdin, reading the JSONL events back. The
 * model is the repo's scripted Responses-API server; assertions are on the events and on the
 * host (files written, processes gone).
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Codex, type ThreadEvent, type ThreadOptions } from '@openai/codex-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { customToolCall, functionCall, lastUserText, makeTempHome, startScriptedModelServer, text, waitFor, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { CLI_ENTRY, ensureCliBuilt } from './cli-process.js';

let server: ScriptedModelServer;
let temp: TempHome;
let codex: Codex;
let threadOptions: ThreadOptions;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** A launcher the SDK spawns in place of `codex`: records its PID, then runs the built CLI. */
async function writeLauncher(dir: string): Promise<string> {
  const path = join(dir, 'deputy-launcher.sh');
  await writeFile(path, `#!/bin/sh\necho $$ >> "${join(dir, 'launcher.pids')}"\nexec "${process.execPath}" "${CLI_ENTRY}" "$@"\n`);
  await chmod(path, 0o755);
  return path;
}

beforeEach(async () => {
  temp = await makeTempHome('deputy-sdk-');
  onTestFinished(() => temp.cleanup());
  server.requests.length = 0;
  onTestFinished(() => expect(server.pendingSteps()).toBe(0));
  await writeFile(
    join(temp.home, 'config.toml'),
    ['model = "gpt-5.2-codex"', 'model_provider = "mock"', '[model_providers.mock]', 'name = "mock"', `base_url = "${server.url}"`, 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0', ''].join('\n'),
  );
  // HOME is the temp home, so the unsandboxed login shell does not read the user's profile.
  const env: Record<string, string> = { DEPUTY_HOME: temp.home, HOME: temp.home, NO_COLOR: '1' };
  for (const key of ['PATH', 'SHELL', 'LANG', 'TZ']) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
  codex = new Codex({ codexPathOverride: await writeLauncher(temp.home), env });
  threadOptions = { workingDirectory: temp.cwd, skipGitRepoCheck: true, sandboxMode: 'danger-full-access', approvalPolicy: 'never' };
});

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('@openai/codex-sdk drives deputy exec', () => {
  it('runs a tool turn: the command runs on the host and comes back as a command_execution item', async () => {
    server.enqueue({ output: [functionCall('exec_command', { cmd: 'echo made > made.txt && cat made.txt' })] }, { output: [text('I made the file.')] });
    const thread = codex.startThread(threadOptions);
    const turn = await thread.run('Make a file');
    expect(turn.finalResponse).toBe('I made the file.');
    expect(turn.items.map((i) => i.type)).toEqual(['command_execution', 'agent_message']);
    expect(turn.items[0]).toMatchObject({ type: 'command_execution', aggregated_output: 'made\n', exit_code: 0, status: 'completed' });
    expect(turn.usage).toEqual({ input_tokens: 200, cached_input_tokens: 0, output_tokens: 40, reasoning_output_tokens: 0 });
    expect(await readFile(join(temp.cwd, 'made.txt'), 'utf8')).toBe('made\n');
    expect(thread.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(lastUserText(server.requests[0]!)).toBe('Make a file');
  }, 60_000);

  it('resumes a thread: a second turn by id carries the first one', async () => {
    server.enqueue({ output: [text('Noted: PAPAYA.')] }, { output: [text('The word was PAPAYA.')] });
    const first = codex.startThread(threadOptions);
    await first.run('Remember the word PAPAYA');
    const id = first.id!;
    const resumed = codex.resumeThread(id, threadOptions);
    const turn = await resumed.run('What was the word?');
    expect(turn.finalResponse).toBe('The word was PAPAYA.');
    expect(resumed.id).toBe(id);
    const input = JSON.stringify(server.requests[1]!.body.input);
    expect(input).toContain('Remember the word PAPAYA');
    expect(input).toContain('Noted: PAPAYA.');
  }, 60_000);

  it('streams a turn with a file change: started and completed file_change events, and the file on disk', async () => {
    const patch = ['*** Begin Patch', '*** Add File: hello.txt', '+hello from a patch', '*** End Patch'].join('\n');
    server.enqueue({ output: [customToolCall('apply_patch', patch)] }, { output: [text('Added hello.txt.')] });
    const thread = codex.startThread(threadOptions);
    const { events } = await thread.runStreamed('Add a file');
    const seen: ThreadEvent[] = [];
    for await (const event of events) seen.push(event);
    expect(seen.map((e) => e.type)).toEqual(['thread.started', 'turn.started', 'item.started', 'item.completed', 'item.completed', 'turn.completed']);
    const change = { type: 'file_change', changes: [{ path: join(temp.cwd, 'hello.txt'), kind: 'add' }] };
    expect(seen[2]).toMatchObject({ type: 'item.started', item: { ...change, id: 'item_0', status: 'in_progress' } });
    expect(seen[3]).toMatchObject({ type: 'item.completed', item: { ...change, id: 'item_0', status: 'completed' } });
    expect(seen[4]).toMatchObject({ type: 'item.completed', item: { type: 'agent_message', text: 'Added hello.txt.' } });
    expect(await readFile(join(temp.cwd, 'hello.txt'), 'utf8')).toBe('hello from a patch\n');
  }, 60_000);

  it('sends an output schema to the model and returns the structured answer', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    server.enqueue({ output: [text('{"answer":"forty-two"}')] });
    const turn = await codex.startThread(threadOptions).run('Answer in JSON', { outputSchema: schema });
    expect(JSON.parse(turn.finalResponse)).toEqual({ answer: 'forty-two' });
    const format = (server.requests[0]!.body as { text?: { format?: { type: string; schema: unknown } } }).text?.format;
    expect(format).toMatchObject({ type: 'json_schema', schema });
  }, 60_000);

  it('aborts a turn with an AbortSignal: the run rejects and deputy and its command are gone', async () => {
    const pidFile = join(temp.cwd, 'cmd.pid');
    server.enqueue({ output: [functionCall('exec_command', { cmd: `echo $$ > ${pidFile}; sleep 60` })] });
    const controller = new AbortController();
    const thread = codex.startThread(threadOptions);
    const { events } = await thread.runStreamed('Run something long', { signal: controller.signal });
    const seen: string[] = [];
    const consumed = (async () => {
      for await (const event of events) {
        seen.push(event.type);
        if (event.type !== 'item.started') continue;
        // Abort once the command is running on the host.
        await waitFor(() => existsSync(pidFile), 10_000);
        controller.abort();
      }
    })();
    await expect(consumed).rejects.toThrow(/abort/i);
    // Lines already in the pipe when the signal fired may still be read.
    expect(seen.slice(0, 3)).toEqual(['thread.started', 'turn.started', 'item.started']);
    expect(seen).not.toContain('turn.completed');
    const launcherPids = (await readFile(join(temp.home, 'launcher.pids'), 'utf8')).trim().split('\n').map(Number);
    await waitFor(() => launcherPids.every((pid) => !isAlive(pid)), 15_000);
    const commandPid = Number((await readFile(pidFile, 'utf8')).trim());
    await waitFor(() => !isAlive(commandPid), 15_000);
  }, 60_000);
});
