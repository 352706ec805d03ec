/**
 * End-to-end over stdio with the built server: framing (one JSON object per line, nothing else on
 * stdout, no `jsonrpc` member), exit 0 on stdin EOF, and every malformed input of
 * docs/app-server.md "Envelope and errors" dropped and every -32600 row of its error table
 * answered, with the server still serving afterwards.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, waitFor, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from './support/server-process.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess | undefined;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await model.close();
  await temp.cleanup();
});

/** Parsed stdout lines. */
function lines(proc: ServerProcess): Array<Record<string, unknown>> {
  return proc
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Waits for the first stdout message `match` accepts; a timeout shows both streams. */
function waitForLine(proc: ServerProcess, match: (m: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  return waitFor(() => lines(proc).find(match), 10_000, () => `${what}; stdout:\n${proc.stdout()}\nstderr:\n${proc.stderr()}`);
}

function send(proc: ServerProcess, text: string): void {
  proc.child.stdin.write(`${text}\n`);
}

const INIT = JSON.stringify({ method: 'initialize', id: 'init', params: { clientInfo: { name: 'e2e', version: '1' } } });

describe('stdio', () => {
  it('serves a turn with one JSON object per line, nothing else on stdout, and exits 0 on EOF', async () => {
    server = await spawnServer(temp, ['stdio://']);
    send(server, INIT);
    send(server, JSON.stringify({ method: 'thread/start', id: 1, params: {} }));
    const started = await waitForLine(server, (m) => m.id === 1, 'thread/start');
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    send(server, JSON.stringify({ method: 'turn/start', id: 2, params: { threadId, input: [{ type: 'text', text: 'hello over stdio' }] } }));
    await waitForLine(server, (m) => m.method === 'turn/completed', 'turn/completed');
    const raw = server.stdout();
    expect(raw.endsWith('\n')).toBe(true);
    for (const line of raw.split('\n').filter((l) => l !== '')) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line).not.toContain('"jsonrpc"');
    }
    const agent = lines(server).find((m) => m.method === 'item/completed' && (m.params as { item: { type: string } }).item.type === 'agentMessage');
    expect((agent?.params as { item: { text: string } }).item.text).toBe('ECHO: hello over stdio');
    const before = Date.now();
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - before).toBeLessThan(3_000);
  });

  it('drops malformed input silently with a log line and keeps serving', async () => {
    server = await spawnServer(temp, ['stdio://']);
    const dropped = [
      'this is not json',
      '',
      '   ',
      '{"method":"initialize","id":"a"}{"method":"initialize","id":"b"}',
      '[{"method":"initialize","id":"batch","params":{"clientInfo":{"name":"x","version":"1"}}}]',
      '{"neither":"request nor response"}',
      '{"method":"thread/list","id":null,"params":{}}',
      '{"method":"thread/list","id":1.5,"params":{}}',
      '{"method":"thread/list","id":{"x":1},"params":{}}',
      '{"method":"no/such/notification"}',
      '{"id":4242,"result":{"decision":"accept"}}',
    ];
    for (const line of dropped) send(server, line);
    send(server, INIT);
    await waitForLine(server, (m) => m.id === 'init', 'initialize response');
    send(server, JSON.stringify({ method: 'thread/loaded/list', id: 'after', params: {} }));
    await waitForLine(server, (m) => m.id === 'after', 'a response after the malformed lines');
    const responses = lines(server).filter((m) => 'id' in m);
    expect(responses.map((m) => m.id)).toEqual(['init', 'after']);
    expect(server.stderr()).toMatch(/dropped an invalid message/);
    expect(server.stderr()).toMatch(/dropped an unknown notification/);
    expect(server.stderr()).toMatch(/dropped a response to an unknown request id/);
  });

  it('answers every client error with -32600 and the reference text', async () => {
    server = await spawnServer(temp, ['stdio://']);
    const expectError = async (id: string, message: string | RegExp): Promise<void> => {
      const response = await waitForLine(server as ServerProcess, (m) => m.id === id, id);
      const error = response.error as { code: number; message: string };
      expect(error.code).toBe(-32600);
      if (typeof message === 'string') expect(error.message).toBe(message);
      else expect(error.message).toMatch(message);
    };
    send(server, JSON.stringify({ method: 'thread/list', id: 'before-init', params: {} }));
    await expectError('before-init', 'Not initialized');
    send(server, JSON.stringify({ method: 'initialize', id: 'no-params' }));
    await expectError('no-params', 'Invalid request: missing field `params`');
    send(server, INIT);
    await waitForLine(server, (m) => m.id === 'init', 'initialize');
    send(server, INIT.replace('"init"', '"again"'));
    await expectError('again', 'Already initialized');
    send(server, JSON.stringify({ method: 'not/a/method', id: 'unknown', params: {} }));
    await expectError('unknown', /^Invalid request: unknown variant `not\/a\/method`, expected one of `initialize`/);
    send(server, JSON.stringify({ method: 'thread/read', id: 'bad', params: { threadId: 42 } }));
    await expectError('bad', /^Invalid request: invalid type: integer `42`, expected a string/);
    send(server, JSON.stringify({ method: 'model/list', id: 'missing', params: null }));
    await expectError('missing', 'Invalid request: missing field `params`');
    send(server, JSON.stringify({ method: 'collaborationMode/list', id: 'gated', params: {} }));
    await expectError('gated', 'collaborationMode/list requires experimentalApi capability');
    send(server, JSON.stringify({ method: 'thread/loaded/list', id: 'dup', params: {} }));
    send(server, JSON.stringify({ method: 'thread/loaded/list', id: 'dup', params: {} }));
    await waitForLine(server, (m) => m.id === 'dup' && lines(server as ServerProcess).filter((x) => x.id === 'dup').length === 2, 'both duplicate ids answered');
  });
});
