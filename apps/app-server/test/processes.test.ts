/**
 * Client-run processes over the app-server (docs/extensions.md "Client-run processes"):
 * `process/spawn` with streamed output, stdin, a PTY resize, `process/kill`, the output cap, and the
 * processes of a connection killed when it closes (checked on the host by PID). Every message is
 * checked against 0.130 (the harness) and, for the methods this feature uses, 0.171. The sandbox
 * rows are in the escape suite (test/escape/process-sandbox.test.ts), which also runs as an
 * unprivileged uid.
 */
import { waitFor } from '@deputy/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { harnessPerTest, type Harness } from './support/harness.js';
import { isAlive } from './support/host.js';
import { serverMessageProblems } from '../../../packages/protocol/test/support/reference-schema.js';
import type { Received, WireClient } from './support/wire-client.js';

const harness = harnessPerTest();
let h: Harness;
let client: WireClient;
const clients: WireClient[] = [];

async function setUp(): Promise<void> {
  h = await harness();
  client = await connect();
}

async function connect(): Promise<WireClient> {
  const c = await h.connect({ capabilities: { experimentalApi: true } });
  clients.push(c);
  return c;
}

afterEach(() => {
  const owned = new Set(['process/outputDelta', 'process/exited']);
  const problems = clients.flatMap((c) => c.received.filter((m) => 'method' in m && owned.has(m.method)).flatMap((m) => serverMessageProblems(m, '0.171')));
  clients.length = 0;
  expect(problems).toEqual([]);
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** The decoded bytes streamed so far for `handle` on `stream`. */
function streamed(c: WireClient, handle: string, stream = 'stdout'): string {
  return c
    .notifications('process/outputDelta')
    .filter((n) => n.params.processHandle === handle && n.params.stream === stream)
    .map((n) => Buffer.from(n.params.deltaBase64 as string, 'base64').toString('utf8'))
    .join('');
}

function waitForOutput(c: WireClient, handle: string, text: string): Promise<true> {
  return c.waitUntil(() => streamed(c, handle).includes(text) || undefined, `${JSON.stringify(text)} on ${handle}`);
}

function exited(c: WireClient, handle: string): Promise<Received> {
  return c.waitForNotification('process/exited', (p) => p.processHandle === handle);
}


describe('process/spawn', () => {
  it('answers once started, streams the output after its response, then reports the exit', async () => {
    await setUp();
    const response = await client.request('process/spawn', {
      command: ['sh', '-c', 'printf out; printf err >&2; exit 3'],
      processHandle: 'p1',
      cwd: h.temp.cwd,
      streamStdoutStderr: true,
    });
    expect(response).toMatchObject({ result: {} });
    const end = await exited(client, 'p1');
    expect(end.params).toEqual({ processHandle: 'p1', exitCode: 3, stdout: '', stderr: '', stdoutCapReached: false, stderrCapReached: false });
    expect(streamed(client, 'p1')).toBe('out');
    expect(streamed(client, 'p1', 'stderr')).toBe('err');
    const methods = client.received.map((m) => ('method' in m ? m.method : 'response'));
    expect(methods.indexOf('response', methods.indexOf('initialize'))).toBeLessThan(methods.indexOf('process/outputDelta'));
  });

  it('buffers output into process/exited when not streamed, capped per stream', async () => {
    await setUp();
    await client.call('process/spawn', { command: ['sh', '-c', 'printf 0123456789'], processHandle: 'cap', cwd: h.temp.cwd, outputBytesCap: 4 });
    const end = await exited(client, 'cap');
    expect(end.params).toMatchObject({ exitCode: 0, stdout: '0123', stdoutCapReached: true, stderrCapReached: false });
  });

  it('marks the last streamed chunk of a capped stream with capReached', async () => {
    await setUp();
    await client.call('process/spawn', { command: ['sh', '-c', 'printf 0123456789'], processHandle: 'scap', cwd: h.temp.cwd, outputBytesCap: 4, streamStdoutStderr: true });
    await exited(client, 'scap');
    expect(streamed(client, 'scap')).toBe('0123');
    expect(client.notifications('process/outputDelta').at(-1)?.params.capReached).toBe(true);
  });

  it('takes stdin, resizes its PTY and is killed by process/kill', async () => {
    await setUp();
    const script = 'stty size; read line; echo "got $line"; read again; stty size; exec sleep 30';
    await client.call('process/spawn', { command: ['sh', '-c', script], processHandle: 'tty', cwd: h.temp.cwd, tty: true, size: { rows: 20, cols: 70 }, timeoutMs: null });
    await waitForOutput(client, 'tty', '20 70');
    await client.call('process/writeStdin', { processHandle: 'tty', deltaBase64: b64('hello\n') });
    await waitForOutput(client, 'tty', 'got hello');
    await client.call('process/resizePty', { processHandle: 'tty', size: { rows: 33, cols: 101 } });
    await client.call('process/writeStdin', { processHandle: 'tty', deltaBase64: b64('go\n') });
    await waitForOutput(client, 'tty', '33 101');
    await client.call('process/kill', { processHandle: 'tty' });
    expect((await exited(client, 'tty')).params).toMatchObject({ exitCode: -1 });
    const gone = await client.request('process/kill', { processHandle: 'tty' });
    expect(gone.error).toEqual({ code: -32600, message: 'no active process for process handle "tty"' });
  });

  it('refuses bad requests precisely and keeps serving', async () => {
    await setUp();
    expect((await client.request('process/spawn', { command: [], processHandle: 'x', cwd: h.temp.cwd })).error).toMatchObject({ code: -32600, message: 'command must not be empty' });
    expect((await client.request('process/spawn', { command: ['true'], processHandle: 'x', cwd: h.temp.cwd, size: { rows: 1, cols: 1 } })).error).toMatchObject({
      code: -32602,
      message: 'process/spawn size requires tty: true',
    });
    expect((await client.request('process/spawn', { command: ['true'], processHandle: 'x', cwd: 'relative' })).error).toMatchObject({ code: -32600 });
    expect((await client.request('process/writeStdin', { processHandle: 'x' })).error).toMatchObject({ message: 'process/writeStdin requires deltaBase64 or closeStdin' });
    const spawn = await client.request('process/spawn', { command: ['/no/such/program'], processHandle: 'missing', cwd: h.temp.cwd });
    expect(spawn.error).toMatchObject({ code: -32603, message: expect.stringContaining('failed to spawn process') });
    await client.call('process/spawn', { command: ['sh', '-c', 'exec sleep 30'], processHandle: 'dup', cwd: h.temp.cwd, timeoutMs: null });
    expect((await client.request('process/spawn', { command: ['true'], processHandle: 'dup', cwd: h.temp.cwd })).error).toEqual({ code: -32600, message: 'duplicate active process handle: "dup"' });
    // Handles are per connection: another client can neither see nor kill it.
    const other = await connect();
    expect((await other.request('process/kill', { processHandle: 'dup' })).error).toMatchObject({ code: -32600 });
    await client.call('process/kill', { processHandle: 'dup' });
    await exited(client, 'dup');
  });

  it('kills the processes of a connection that closes', async () => {
    await setUp();
    const owner = await connect();
    await owner.call('process/spawn', { command: ['sh', '-c', 'echo $$; exec sleep 30'], processHandle: 'orphan', cwd: h.temp.cwd, streamStdoutStderr: true, timeoutMs: null });
    await waitForOutput(owner, 'orphan', '\n');
    const pid = Number(streamed(owner, 'orphan').trim());
    expect(isAlive(pid)).toBe(true);
    await owner.close();
    await waitFor(() => !isAlive(pid), 10_000, `process ${pid} to die`);
    await client.call('process/spawn', { command: ['true'], processHandle: 'after', cwd: h.temp.cwd });
    expect((await exited(client, 'after')).params).toMatchObject({ exitCode: 0 });
  });
});
