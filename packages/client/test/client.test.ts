/**
 * @deputy/client against the built app-server (spawned with a temp home and the scripted model
 * server): over stdio and ws, a thread and a turn whose command approval the callback answers,
 * notifications iterated per thread, a dynamic tool call answered by its handler, errors surfaced
 * as `RpcError`, a refused token, and a close
 * that leaves no process; request timeouts and aborts, timed requests, streams of a process the
 * caller spawned, `onServerRequest` for requests without a typed handler, and `validate: false`
 * driving the reference Codex app-server 0.130. Also runs examples/automation.mjs, the script of
 * docs/client.md.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  conversationTail,
  customToolCall,
  functionCall,
  functionOutputs,
  startScriptedModelServer,
  text,
  type ScriptedModelServer,
  mockProviderConfigToml,
  type StepHandler,
  type TempHome,
} from '@deputy/test-support';
import { connect, RequestTimeoutError, RpcError, type DeputyClient, type Notification } from '@deputy/client';
import { BUILD_TIMEOUT_MS, MAIN_JS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from '../../../apps/app-server/test/e2e/support/server-process.js';
import { requireCodexBinary } from '../../../apps/app-server/test/tui/codex-binary.js';

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
const REPO_DIR = path.resolve(PACKAGE_DIR, '../..');

/** `run: CMD` runs a command, `edit: A;B` runs `A` then `B` then adds `added.txt`; then `DONE`. */
const script: StepHandler = (request) => {
  const tail = conversationTail(request);
  const done = functionOutputs(request).length;
  const prompt = tail.kind === 'user' ? tail.text : '';
  const first = (request.body.input as Array<{ role?: string; content?: Array<{ text?: string }> }> | undefined)
    ?.filter((i) => i.role === 'user')
    .map((i) => i.content?.map((c) => c.text ?? '').join('') ?? '')
    .findLast((t) => /^(run|edit|tool):/.test(t));
  const ask = prompt || first || '';
  if (ask.startsWith('run:')) {
    if (done === 0) return { output: [functionCall('exec_command', { cmd: ask.slice(4).trim(), yield_time_ms: 30_000 })] };
    return { output: [text(`DONE after ${done}`)] };
  }
  if (ask.startsWith('edit:')) {
    const commands = ask.slice(5).split(';').map((c) => c.trim());
    if (done < commands.length) return { output: [functionCall('exec_command', { cmd: commands[done], yield_time_ms: 30_000 })] };
    if (done === commands.length) return { output: [customToolCall('apply_patch', '*** Begin Patch\n*** Add File: added.txt\n+from the script\n*** End Patch\n')] };
    return { output: [text(`DONE after ${done}`)] };
  }
  if (ask.startsWith('tool:')) {
    if (tail.kind === 'tool-output') return { output: [text(`TOOL_RESULT: ${tail.output.output}`)] };
    return { output: [functionCall('lookup', { order: ask.slice(5).trim() })] };
  }
  return { output: [text(`ECHO: ${ask}`)] };
};

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess | undefined;
let client: DeputyClient | undefined;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: script });
  temp = await makeE2eHome(model.url, { approvalPolicy: 'untrusted' });
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.stop();
  server = undefined;
  await model.close();
  await temp.cleanup();
});

function spawnOptions() {
  return {
    command: process.execPath,
    args: [MAIN_JS, '--listen', 'stdio://'],
    cwd: temp.cwd,
    env: { ...process.env, DEPUTY_HOME: temp.home, DEPUTY_LOG: 'warn' },
    stderr: 'ignore' as const,
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs a turn that asks for one command approval (answered by the client's handler) and returns its thread's notifications. */
async function approvedTurn(c: DeputyClient, file: string): Promise<{ threadId: string; seen: Notification[] }> {
  const { thread } = await c.request('thread/start', {});
  const events = c.notifications({ threadId: thread.id });
  const all = c.notifications();
  const { turn } = await c.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `run: touch ${file} && echo ok` }] });
  const seen: Notification[] = [];
  for await (const n of events) {
    seen.push(n);
    if (n.method === 'turn/completed' && n.params.turn.id === turn.id) break;
  }
  // The overall stream saw the thread's events too (and nothing is lost before it is read).
  const overall: string[] = [];
  for await (const n of all) {
    overall.push(n.method);
    if (n.method === 'turn/completed') break;
  }
  expect(overall).toContain('turn/started');
  return { threadId: thread.id, seen };
}

describe('@deputy/client', () => {
  it('drives a thread over stdio, answers a command approval by callback, and closes the process', async () => {
    const approvals: string[] = [];
    client = await connect({
      spawn: spawnOptions(),
      handlers: {
        'item/commandExecution/requestApproval': (params) => {
          approvals.push(params.command ?? '');
          return { decision: 'accept' };
        },
      },
    });
    expect(client.server.userAgent).toContain('deputy-client');
    const file = path.join(temp.cwd, 'via-stdio.txt');
    const { threadId, seen } = await approvedTurn(client, file);
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toContain('via-stdio.txt');
    expect(existsSync(file)).toBe(true);
    expect(seen.every((n) => !('threadId' in n.params) || n.params.threadId === threadId)).toBe(true);
    const methods = seen.map((n) => n.method);
    expect(methods).toContain('serverRequest/resolved');
    const agent = seen.find((n) => n.method === 'item/completed' && n.params.item.type === 'agentMessage');
    expect(agent?.method === 'item/completed' && agent.params.item.type === 'agentMessage' && agent.params.item.text).toBe('DONE after 1');

    const error = await client.request('thread/resume', { threadId: '00000000-0000-0000-0000-000000000000' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBeLessThan(0);
    await expect(client.request('thread/read', { threadId, includeTurns: false })).resolves.toMatchObject({ thread: { id: threadId } });

    const pid = client.pid as number;
    expect(isAlive(pid)).toBe(true);
    await client.close();
    client = undefined;
    expect(isAlive(pid)).toBe(false);
  });

  it('declines a command when the handler says so (the command never runs)', async () => {
    client = await connect({ spawn: spawnOptions(), handlers: { 'item/commandExecution/requestApproval': () => ({ decision: 'decline' }) } });
    const file = path.join(temp.cwd, 'declined.txt');
    const { seen } = await approvedTurn(client, file);
    expect(existsSync(file)).toBe(false);
    const command = seen.find((n) => n.method === 'item/completed' && n.params.item.type === 'commandExecution');
    expect(command?.method === 'item/completed' && command.params.item.type === 'commandExecution' && command.params.item.status).toBe('declined');
  });

  it('answers a dynamic tool call (item/tool/call) with the handler', async () => {
    const calls: unknown[] = [];
    client = await connect({
      spawn: spawnOptions(),
      experimentalApi: true,
      handlers: {
        'item/tool/call': (params) => {
          calls.push(params.arguments);
          return { contentItems: [{ type: 'inputText', text: `order ${(params.arguments as { order: string }).order} shipped` }], success: true };
        },
      },
    });
    const inputSchema = { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] };
    const { thread } = await client.request('thread/start', { dynamicTools: [{ name: 'lookup', description: 'Look up an order', inputSchema }] });
    const events = client.notifications({ threadId: thread.id });
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'tool: A-17' }] });
    let answer = '';
    for await (const n of events) {
      if (n.method === 'item/completed' && n.params.item.type === 'agentMessage') answer = n.params.item.text;
      if (n.method === 'turn/completed') break;
    }
    expect(calls).toEqual([{ order: 'A-17' }]);
    expect(answer).toContain('order A-17 shipped');
  });

  it('connects over ws and unix with a capability token, refuses a wrong one, and ends the iterators on close', async () => {
    const tokenFile = path.join(temp.home, 'ws-token');
    await writeFile(tokenFile, 'sesame-1234567890\n');
    const socket = path.join(temp.home, 'control', 'client.sock');
    server = await spawnServer(temp, ['ws://127.0.0.1:0', `unix://${socket}`], ['--ws-auth', 'capability-token', '--ws-token-file', tokenFile]);
    const url = server.urls[0] as string;
    await expect(connect({ ws: url, token: 'wrong' })).rejects.toThrow(/HTTP 401/);
    await expect(connect({ ws: url })).rejects.toThrow(/HTTP 401/);
    client = await connect({ ws: url, token: 'sesame-1234567890', handlers: { 'item/commandExecution/requestApproval': () => ({ decision: 'accept' }) } });
    const file = path.join(temp.cwd, 'via-ws.txt');
    await approvedTurn(client, file);
    expect(existsSync(file)).toBe(true);
    const pending = client.notifications();
    await client.close();
    client = undefined;
    const after: unknown[] = [];
    for await (const n of pending) after.push(n);
    expect(after).toEqual([]);
    // The server keeps serving other clients after this one left; the Unix socket takes the same token.
    await expect(connect({ unix: socket })).rejects.toThrow(/HTTP 401/);
    client = await connect({ unix: socket, token: 'sesame-1234567890' });
    expect((await client.request('thread/list', {})).data.length).toBeGreaterThan(0);
  });

  it('runs the automation example of docs/client.md against the scripted model', async () => {
    await promisify(execFile)('npx', ['tsc', '-b', 'packages/client'], { cwd: REPO_DIR });
    const notes = path.join(temp.cwd, 'notes.txt');
    await writeFile(notes, 'keep me\n');
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(PACKAGE_DIR, 'examples', 'automation.mjs'), 'edit: cat notes.txt; rm notes.txt'], {
      cwd: temp.cwd,
      env: { ...process.env, DEPUTY_HOME: temp.home, DEPUTY_LOG: 'warn', DEPUTY_SERVER: JSON.stringify([process.execPath, MAIN_JS, '--listen', 'stdio://']) },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/\$ .*cat notes\.txt'? -> completed/);
    expect(stdout).toMatch(/\$ .*rm notes\.txt'? -> declined/);
    expect(stdout).toContain('+from the script');
    expect(readFileSync(notes, 'utf8')).toBe('keep me\n');
    expect(readFileSync(path.join(temp.cwd, 'added.txt'), 'utf8')).toBe('from the script\n');
  });

  it('bounds a request with timeoutMs or a signal, and the server keeps serving', async () => {
    client = await connect({ spawn: spawnOptions(), timeoutMs: 30_000 });
    // command/exec answers when the command ends: 20 s from now.
    const slow = client.request('command/exec', { command: ['sleep', '20'] }, { timeoutMs: 300 });
    await expect(slow).rejects.toBeInstanceOf(RequestTimeoutError);
    const controller = new AbortController();
    const aborted = client.request('command/exec', { command: ['sleep', '20'] }, { signal: controller.signal });
    controller.abort(new Error('stop waiting'));
    await expect(aborted).rejects.toThrow('stop waiting');
    await expect(client.request('thread/list', {})).resolves.toMatchObject({ data: [] });
  });

  it('speaks over the streams of a process the caller spawned, answers other server requests with onServerRequest, and times requests', async () => {
    const child = spawn(process.execPath, [MAIN_JS, '--listen', 'stdio://'], { cwd: temp.cwd, env: { ...process.env, DEPUTY_HOME: temp.home, DEPUTY_LOG: 'warn' }, stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const asked: string[] = [];
      client = await connect({
        stdio: { input: child.stdout, output: child.stdin },
        validate: false,
        onServerRequest: ({ method }) => {
          asked.push(method);
          return { decision: 'accept' };
        },
      });
      expect(client.pid).toBeUndefined();
      const file = path.join(temp.cwd, 'via-fallback.txt');
      await approvedTurn(client, file);
      expect(asked).toEqual(['item/commandExecution/requestApproval']);
      expect(existsSync(file)).toBe(true);
      const timed = await client.requestTimed('thread/list', {});
      expect(timed.result.data).toHaveLength(1);
      expect(timed.ms).toBeGreaterThan(0);
      // The frame is the envelope around the result.
      expect(timed.bytes).toBeGreaterThan(Buffer.byteLength(JSON.stringify(timed.result)));
      await client.close();
      client = undefined;
      // The streams are the caller's: the process is still there until its stdin ends.
      expect(isAlive(child.pid as number)).toBe(true);
    } finally {
      child.stdin.end();
      const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
  });

  it('drives the reference codex app-server 0.130 with validate: false (a thread, a turn, raw notifications)', async () => {
    const bin = requireCodexBinary();
    await writeFile(path.join(temp.home, 'config.toml'), mockProviderConfigToml(model.url));
    client = await connect({
      spawn: { command: bin, args: ['app-server'], cwd: temp.cwd, env: { ...process.env, CODEX_HOME: temp.home, RUST_LOG: 'error' }, stderr: 'ignore' },
      validate: false,
      experimentalApi: true,
      timeoutMs: 30_000,
    });
    const { thread } = await client.request('thread/start', { cwd: temp.cwd });
    const events = client.notifications({ threadId: thread.id });
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello reference', text_elements: [] }] });
    const methods: string[] = [];
    let answer = '';
    for await (const n of events) {
      methods.push(n.method);
      if (n.method === 'item/completed' && n.params.item.type === 'agentMessage') answer = n.params.item.text;
      if (n.method === 'turn/completed') break;
    }
    expect(answer).toBe('ECHO: hello reference');
    expect(methods).toContain('turn/started');
    const timed = await client.requestTimed('thread/list', {});
    expect(timed.result.data.map((t) => t.id)).toContain(thread.id);
    expect(timed.bytes).toBeGreaterThan(0);
  });
});
