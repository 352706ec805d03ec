/**
 * Contract tests of `command/exec`, `command/exec/write`, `/resize`, `/terminate` and the
 * `command/exec/outputDelta` notifications (docs/app-server.md, "Methods served"): real
 * processes under the harness's server cwd, on pipes and on a PTY, each bounded by a short timeout.
 * The sandbox rows (`sandboxPolicy`) are in the escape suite, test/escape/process-sandbox.test.ts,
 * which also runs as an unprivileged uid.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonRpcResponse } from '@deputy/protocol';
import { listenWebSocket } from '@deputy/rpc';
import { waitFor } from '@deputy/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHarness, type Harness } from './support/harness.js';
import { isAlive } from './support/host.js';
import type { WireClient } from './support/wire-client.js';

let h: Harness;
let client: WireClient;
beforeEach(async () => {
  h = await startHarness();
  client = await h.connect();
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');
/** A response's result, or its error when it failed. */
const resultOf = (response: JsonRpcResponse): unknown => ('result' in response ? response.result : response.error);
const FULL_ACCESS = { type: 'dangerFullAccess' };

/** The decoded bytes streamed so far for `processId` on `stream`. */
function streamed(c: WireClient, processId: string, stream = 'stdout'): string {
  return c
    .notifications('command/exec/outputDelta')
    .filter((n) => n.params.processId === processId && n.params.stream === stream)
    .map((n) => Buffer.from(n.params.deltaBase64 as string, 'base64').toString('utf8'))
    .join('');
}

/** Waits until the stream of `processId` contains `text`. */
function waitForOutput(c: WireClient, processId: string, text: string, stream = 'stdout'): Promise<true> {
  return c.waitUntil(() => streamed(c, processId, stream).includes(text) || undefined, `${JSON.stringify(text)} on ${processId}`);
}



describe('command/exec buffered', () => {
  it('returns stdout, stderr and the exit code', async () => {
    const result = await client.call('command/exec', { command: ['sh', '-c', 'printf out; printf err >&2; exit 3'] });
    expect(result).toEqual({ exitCode: 3, stdout: 'out', stderr: 'err' });
    expect(client.notifications('command/exec/outputDelta')).toEqual([]);
    // A command killed by a signal reports -1, as the reference does.
    expect(await client.call('command/exec', { command: ['sh', '-c', 'kill -9 $$'] })).toEqual({ exitCode: -1, stdout: '', stderr: '' });
  });

  it('runs in the server cwd by default, resolves a relative cwd against it, and merges env (null unsets)', async () => {
    mkdirSync(join(h.temp.cwd, 'sub'));
    const script = 'pwd -P; printf "%s|%s\\n" "$DEPUTY_TEST_VAR" "${HOME-unset}"';
    const plain = await client.call<{ stdout: string }>('command/exec', { command: ['sh', '-c', script] });
    expect(plain.stdout.split('\n')[0]).toBe(realpathSync(h.temp.cwd));
    const result = await client.call<{ stdout: string; exitCode: number }>('command/exec', {
      command: ['sh', '-c', script],
      cwd: 'sub',
      env: { DEPUTY_TEST_VAR: 'set by the client', HOME: null },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${realpathSync(join(h.temp.cwd, 'sub'))}\nset by the client|unset\n`);
  });

  it('kills a command at its timeout and reports exit code 124', async () => {
    const started = Date.now();
    const result = await client.call('command/exec', { command: ['sleep', '20'], timeoutMs: 200 });
    expect(result).toEqual({ exitCode: 124, stdout: '', stderr: '' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('cuts each stream silently at outputBytesCap, and at 1 MiB by default', async () => {
    const capped = await client.call<{ stdout: string; stderr: string; exitCode: number }>('command/exec', {
      command: ['sh', '-c', 'head -c 5000 /dev/zero | tr "\\0" a; head -c 3000 /dev/zero | tr "\\0" b >&2'],
      outputBytesCap: 100,
    });
    expect(capped).toEqual({ exitCode: 0, stdout: 'a'.repeat(100), stderr: 'b'.repeat(100) });
    const big = await client.call<{ stdout: string }>('command/exec', { command: ['sh', '-c', 'head -c 1500000 /dev/zero | tr "\\0" c'] });
    expect(big.stdout.length).toBe(1024 * 1024);
    const uncapped = await client.call<{ stdout: string }>('command/exec', {
      command: ['sh', '-c', 'head -c 1500000 /dev/zero | tr "\\0" c'],
      disableOutputCap: true,
    });
    expect(uncapped.stdout.length).toBe(1_500_000);
  });

  it('fails to spawn a missing binary with -32603 and the OS text', async () => {
    const response = await client.request('command/exec', { command: ['deputy-no-such-binary-xyz'] });
    expect(response.error).toEqual({ code: -32603, message: 'failed to spawn command: No such file or directory (os error 2)' });
    const onPty = await client.request('command/exec', { command: ['deputy-no-such-binary-xyz'], processId: 'missing', tty: true });
    expect(onPty.error).toEqual({ code: -32603, message: 'failed to spawn command: No such file or directory (os error 2)' });
    const nul = await client.request('command/exec', { command: ['echo', 'a\u0000b'] });
    expect(nul.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^failed to spawn command: .*null bytes/) });
    // The id of a command that never started is free again.
    expect(await client.call('command/exec', { command: ['true'], processId: 'missing', tty: true })).toMatchObject({ exitCode: 0 });
  });

  it('refuses invalid params with the reference messages and keeps serving', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ command: [] }, -32600, 'command must not be empty'],
      [{ command: ['true'], sandboxPolicy: FULL_ACCESS, permissionProfile: { type: 'disabled' } }, -32600, '`permissionProfile` cannot be combined with `sandboxPolicy`'],
      [{ command: ['true'], size: { rows: 5, cols: 5 } }, -32602, 'command/exec size requires tty: true'],
      [{ command: ['true'], outputBytesCap: 5, disableOutputCap: true }, -32602, 'command/exec cannot set both outputBytesCap and disableOutputCap'],
      [{ command: ['true'], timeoutMs: 5, disableTimeout: true }, -32602, 'command/exec cannot set both timeoutMs and disableTimeout'],
      [{ command: ['true'], timeoutMs: -1 }, -32602, 'command/exec timeoutMs must be non-negative, got -1'],
      [{ command: ['true'], processId: 'z', tty: true, size: { rows: 0, cols: 5 } }, -32602, 'command/exec size rows and cols must be greater than 0'],
      [{ command: ['true'], tty: true }, -32600, 'command/exec tty or streaming requires a client-supplied processId'],
      [{ command: ['true'], streamStdin: true }, -32600, 'command/exec tty or streaming requires a client-supplied processId'],
      [{ command: ['true'], streamStdoutStderr: true }, -32600, 'command/exec tty or streaming requires a client-supplied processId'],
    ];
    for (const [params, code, message] of cases) {
      const response = await client.request('command/exec', params);
      expect(response.error, JSON.stringify(params)).toEqual({ code, message });
    }
    expect(await client.call('command/exec', { command: ['true'] })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });
});

describe('command/exec streaming', () => {
  it('streams base64 deltas to the caller only, then answers with empty streams', async () => {
    const other = await h.connect();
    const response = await client.request('command/exec', {
      command: ['sh', '-c', 'printf hello; printf oops >&2; exit 2'],
      processId: 'p1',
      streamStdoutStderr: true,
    });
    expect(resultOf(response)).toEqual({ exitCode: 2, stdout: '', stderr: '' });
    expect(streamed(client, 'p1', 'stdout')).toBe('hello');
    expect(streamed(client, 'p1', 'stderr')).toBe('oops');
    const deltas = client.notifications('command/exec/outputDelta');
    expect(deltas.every((d) => d.params.capReached === false)).toBe(true);
    // Every delta precedes the result.
    const resultIndex = client.received.findIndex((m) => 'id' in m && m.id === response.id);
    const lastDelta = client.received.findLastIndex((m) => 'method' in m && m.method === 'command/exec/outputDelta');
    expect(lastDelta).toBeLessThan(resultIndex);
    expect(other.notifications('command/exec/outputDelta')).toEqual([]);
  });

  it('marks the delta that reaches the cap and sends nothing after it', async () => {
    const result = await client.call('command/exec', {
      command: ['sh', '-c', 'printf hello; sleep 0.1; printf world'],
      processId: 'cap',
      streamStdoutStderr: true,
      outputBytesCap: 4,
    });
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const stdout = client.notifications('command/exec/outputDelta').filter((n) => n.params.stream === 'stdout');
    expect(stdout.map((n) => n.params)).toEqual([{ processId: 'cap', stream: 'stdout', deltaBase64: b64('hell'), capReached: true }]);
  });

  it('sends each delta only after the previous one was written, so a client that stops reading gets every byte', async () => {
    // A small outbound queue: without that wait, the deltas would pile up past it and cost the connection.
    const slow = await startHarness({ outboundSoftLimit: 4, outboundHardLimit: 8 });
    const listener = await listenWebSocket({ host: '127.0.0.1', port: 0 });
    void slow.server.serve(listener, 'ws');
    const ws = new WebSocket(listener.url);
    const received: Array<{ id?: number; method?: string; params?: { deltaBase64: string }; result?: unknown }> = [];
    ws.on('message', (data) => received.push(JSON.parse(data.toString()) as (typeof received)[number]));
    const answered = async (id: number): Promise<void> => {
      await waitFor(() => received.some((m) => m.id === id), 15_000, `response ${id}`);
    };
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.send(JSON.stringify({ method: 'initialize', id: 0, params: { clientInfo: { name: 'slow', version: '1' } } }));
      await answered(0);
      ws.send(JSON.stringify({ method: 'initialized' }));
      const size = 16 * 1024 * 1024;
      const command = ['sh', '-c', `head -c ${size} /dev/zero`];
      ws.send(JSON.stringify({ method: 'command/exec', id: 1, params: { command, processId: 'big', streamStdoutStderr: true, disableOutputCap: true } }));
      ws.pause();
      await new Promise((resolve) => setTimeout(resolve, 500));
      ws.resume();
      await answered(1);
      expect(received.find((m) => m.id === 1)?.result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      const deltas = received.filter((m) => m.method === 'command/exec/outputDelta');
      expect(deltas.reduce((total, m) => total + Buffer.from(m.params?.deltaBase64 ?? '', 'base64').length, 0)).toBe(size);
    } finally {
      ws.close();
      await listener.close();
      await slow.close();
    }
  });

  it('writes stdin from command/exec/write and ends it with closeStdin', async () => {
    const pending = client.request('command/exec', { command: ['cat'], processId: 'cat', streamStdin: true, streamStdoutStderr: true });
    expect(await client.call('command/exec/write', { processId: 'cat', deltaBase64: b64('first line\n') })).toEqual({});
    await waitForOutput(client, 'cat', 'first line\n');
    expect(await client.call('command/exec/write', { processId: 'cat', deltaBase64: b64('last'), closeStdin: true })).toEqual({});
    expect(resultOf(await pending)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(streamed(client, 'cat')).toBe('first line\nlast');
  });

  it('keeps piped stdin output for the result when only stdin streams, and refuses writes it cannot take', async () => {
    const pending = client.request('command/exec', { command: ['sh', '-c', 'cat; sleep 0.3'], processId: 'in', streamStdin: true });
    await client.call('command/exec/write', { processId: 'in', deltaBase64: b64('abc'), closeStdin: true });
    const late = await client.request('command/exec/write', { processId: 'in', deltaBase64: b64('more') });
    expect(late.error).toEqual({ code: -32600, message: 'stdin is already closed' });
    const empty = await client.request('command/exec/write', { processId: 'in' });
    expect(empty.error).toEqual({ code: -32602, message: 'command/exec/write requires deltaBase64 or closeStdin' });
    const bad = await client.request('command/exec/write', { processId: 'in', deltaBase64: 'a!==' });
    expect(bad.error).toEqual({ code: -32602, message: 'invalid deltaBase64: Invalid symbol 33, offset 1.' });
    const resize = await client.request('command/exec/resize', { processId: 'in', size: { rows: 10, cols: 10 } });
    expect(resize.error).toEqual({ code: -32600, message: 'failed to resize PTY: process is not attached to a PTY' });
    expect(resultOf(await pending)).toEqual({ exitCode: 0, stdout: 'abc', stderr: '' });

    const noStdin = client.request('command/exec', { command: ['sleep', '5'], processId: 'no-stdin', streamStdoutStderr: true });
    const refused = await client.request('command/exec/write', { processId: 'no-stdin', deltaBase64: b64('x') });
    expect(refused.error).toEqual({ code: -32600, message: 'stdin streaming is not enabled for this command/exec' });
    await client.call('command/exec/terminate', { processId: 'no-stdin' });
    expect(resultOf(await noStdin)).toMatchObject({ exitCode: -1 });
  });

  it('runs a tty command on a PTY with the requested size, resizes it, and reports PTY output on stdout', async () => {
    const pending = client.request('command/exec', {
      command: ['sh', '-c', 'stty size; read line; stty size; echo "got $line"'],
      processId: 'tty',
      tty: true,
      size: { rows: 10, cols: 40 },
    });
    await waitForOutput(client, 'tty', '10 40\r\n');
    expect(await client.call('command/exec/resize', { processId: 'tty', size: { rows: 30, cols: 100 } })).toEqual({});
    const zero = await client.request('command/exec/resize', { processId: 'tty', size: { rows: 0, cols: 100 } });
    expect(zero.error).toEqual({ code: -32602, message: 'command/exec size rows and cols must be greater than 0' });
    await client.call('command/exec/write', { processId: 'tty', deltaBase64: b64('typed\r') });
    expect(resultOf(await pending)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(streamed(client, 'tty')).toContain('30 100\r\ngot typed\r\n');
    expect(streamed(client, 'tty', 'stderr')).toBe('');
  });
});

describe('command/exec process ids', () => {
  it('terminates a running command; the original request then resolves with exit code -1', async () => {
    const pending = client.request('command/exec', { command: ['sh', '-c', 'echo ready; exec sleep 30'], processId: 'long', streamStdoutStderr: true, disableTimeout: true });
    await waitForOutput(client, 'long', 'ready');
    expect(await client.call('command/exec/terminate', { processId: 'long' })).toEqual({});
    expect(resultOf(await pending)).toEqual({ exitCode: -1, stdout: '', stderr: '' });
    const after = await client.request('command/exec/terminate', { processId: 'long' });
    expect(after.error).toEqual({ code: -32600, message: 'no active command/exec for process id "long"' });
  });

  it('answers unknown ids with -32600 and refuses a duplicate active id on the same connection only', async () => {
    for (const [method, params] of [
      ['command/exec/write', { processId: 'nope', deltaBase64: b64('x') }],
      ['command/exec/resize', { processId: 'nope', size: { rows: 1, cols: 1 } }],
      ['command/exec/terminate', { processId: 'nope' }],
    ] as const) {
      const response = await client.request(method, params);
      expect(response.error, method).toEqual({ code: -32600, message: 'no active command/exec for process id "nope"' });
    }
    const first = client.request('command/exec', { command: ['sh', '-c', 'echo up; exec sleep 30'], processId: 'dup', streamStdoutStderr: true });
    await waitForOutput(client, 'dup', 'up');
    const duplicate = await client.request('command/exec', { command: ['true'], processId: 'dup' });
    expect(duplicate.error).toEqual({ code: -32600, message: 'duplicate active command/exec process id: "dup"' });
    // Ids are scoped to the connection: another client may use the same one, and cannot reach ours.
    const other = await h.connect();
    const foreign = await other.request('command/exec/terminate', { processId: 'dup' });
    expect(foreign.error).toEqual({ code: -32600, message: 'no active command/exec for process id "dup"' });
    expect(await other.call('command/exec', { command: ['true'], processId: 'dup' })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    await client.call('command/exec/terminate', { processId: 'dup' });
    expect(resultOf(await first)).toMatchObject({ exitCode: -1 });
  });

  it('kills the process when its connection closes', async () => {
    const owner = await h.connect();
    void owner.request('command/exec', { command: ['sh', '-c', 'echo $$; exec sleep 30'], processId: 'orphan', streamStdoutStderr: true }).catch(() => undefined);
    await waitForOutput(owner, 'orphan', '\n');
    const pid = Number(streamed(owner, 'orphan').trim());
    expect(isAlive(pid)).toBe(true);
    await owner.close();
    await waitFor(() => !isAlive(pid), 10_000, `process ${pid} to die`);
    // The server still serves the other connection.
    expect(await client.call('command/exec', { command: ['true'] })).toMatchObject({ exitCode: 0 });
  });
});
