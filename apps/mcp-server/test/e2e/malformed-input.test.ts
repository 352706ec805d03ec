/**
 * Malformed input over stdio with the built server (docs/mcp-server.md "Results", the JSON-RPC
 * errors): every malformed input gets exactly one answer (or none, for blank lines and
 * notifications), methods the server does not offer get `-32601` with `data.method`, and the server
 * never exits because of bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { RawClient } from '../helpers/raw-client.js';

let harness: Harness;
let raw: RawClient;

beforeAll(async () => {
  harness = await startHarness();
  raw = new RawClient(harness.env(), [], harness.temp.cwd);
  await raw.initialize();
});

afterAll(async () => {
  await raw?.kill();
  await harness?.close();
});

/** Sends a line and returns the next message that was not there before. */
async function answerTo(line: string): Promise<Record<string, unknown>> {
  const before = raw.messages.length;
  raw.write(line);
  // A ping after the bad line proves the server is still alive and bounds the wait.
  const id = `probe-${before}`;
  raw.write({ jsonrpc: '2.0', id, method: 'ping' });
  await raw.response(id);
  const fresh = raw.messages.slice(before).filter((m) => m.id !== id);
  expect(fresh).toHaveLength(1);
  return fresh[0] as Record<string, unknown>;
}

describe('malformed input over stdio', () => {
  it('answers a line that is not JSON with -32700 and a null id', async () => {
    expect(await answerTo('{"jsonrpc":"2.0","id":1,"method":')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('answers valid JSON that is not JSON-RPC with -32600', async () => {
    const answer = await answerTo('{"foo":1}');
    expect(answer).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers a wrong jsonrpc version with -32600 and echoes the readable id', async () => {
    expect(await answerTo('{"jsonrpc":"1.0","id":7,"method":"ping"}')).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(await answerTo('{"id":"no-version","method":"ping"}')).toMatchObject({ id: 'no-version', error: { code: -32600 } });
  });

  it('answers a batch array with -32600', async () => {
    const answer = await answerTo('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]');
    expect(answer).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('batch') } });
  });

  it('answers a request with a null or fractional id with -32600 instead of treating it as a notification', async () => {
    expect(await answerTo('{"jsonrpc":"2.0","id":null,"method":"ping"}')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answerTo('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('ignores blank lines', async () => {
    const before = raw.messages.length;
    raw.write('');
    raw.write('   ');
    await raw.request('after-blank', 'ping');
    expect(raw.messages.slice(before).map((m) => m.id)).toEqual(['after-blank']);
  });

  it('answers unknown methods with -32601 and the method in data', async () => {
    for (const method of ['tasks/list', 'newConversation', 'thread/start']) {
      const answer = await raw.request(`unknown-${method}`, method, {});
      expect(answer.error).toEqual({ code: -32601, message: `method not found: ${method}`, data: { method } });
    }
  });

  it('answers resources, prompts, logging and completion methods instead of dropping them', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['resources/read', { uri: 'file:///x' }],
      ['resources/subscribe', { uri: 'file:///x' }],
      ['resources/unsubscribe', { uri: 'file:///x' }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'x' }],
      ['logging/setLevel', { level: 'info' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: 'b' } }],
    ];
    for (const [method, params] of calls) {
      const answer = await raw.request(`m-${method}`, method, params);
      expect(answer.error, method).toMatchObject({ code: -32601, data: { method } });
    }
  });

  it('answers ping with or without params', async () => {
    expect((await raw.request(90, 'ping')).result).toEqual({});
    expect((await raw.request(91, 'ping', {})).result).toEqual({});
  });

  it('answers malformed tools/call requests with -32602', async () => {
    expect((await raw.request(100, 'tools/call')).error?.code).toBe(-32602);
    expect((await raw.request(101, 'tools/call', { arguments: {} })).error?.code).toBe(-32602);
    expect((await raw.request(102, 'tools/call', { name: 'codex', arguments: [1] })).error?.code).toBe(-32602);
    expect(await answerTo('{"jsonrpc":"2.0","id":103,"method":"tools/call","params":[1]}')).toMatchObject({ id: 103, error: { code: -32602 } });
  });

  it('answers an unknown tool with an isError result', async () => {
    const answer = await raw.request(110, 'tools/call', { name: 'nope', arguments: {} });
    expect(answer.result).toEqual({ content: [{ type: 'text', text: "Unknown tool 'nope'" }], isError: true });
  });

  it('answers a second initialize with -32600', async () => {
    const answer = await raw.request(120, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'again', version: '1' } });
    expect(answer.error).toEqual({ code: -32600, message: 'initialize called more than once' });
  });

  it('keeps request ids with their JSON type', async () => {
    expect((await raw.request('1', 'ping')).id).toBe('1');
    expect((await raw.request(1, 'ping')).id).toBe(1);
  });

  it('accepts unknown notifications silently and is still alive afterwards', async () => {
    const before = raw.messages.length;
    raw.write({ jsonrpc: '2.0', method: 'notifications/whatever', params: { x: 1 } });
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } });
    await raw.request('alive', 'ping');
    expect(raw.messages.slice(before).map((m) => m.id)).toEqual(['alive']);
    expect(raw.child.exitCode).toBeNull();
  });
});

describe('initialize validation', () => {
  it('answers invalid initialize params with -32602 and still accepts a valid initialize afterwards', async () => {
    const fresh = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      const bad = await fresh.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} });
      expect(bad.error).toMatchObject({ code: -32602, data: { method: 'initialize' } });
      const missing = await fresh.request(2, 'initialize');
      expect(missing.error).toMatchObject({ code: -32602 });
      const good = await fresh.request(3, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
      expect(good.result).toMatchObject({ protocolVersion: '2025-06-18' });
    } finally {
      await fresh.kill();
    }
  });

  it('exits with code 0 promptly when stdin closes while idle', async () => {
    const fresh = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await fresh.initialize();
      fresh.end();
      expect(await fresh.exited).toBe(0);
      expect(fresh.lines.every((line) => JSON.parse(line).jsonrpc === '2.0')).toBe(true);
    } finally {
      await fresh.kill();
    }
  });
});
