/**
 * Wire limits of the built app-server on every transport (docs/app-server.md "Limits"): request
 * ids beyond ±(2^53−1) come back digit for digit on stdio, ws and unix; a stdio line over the
 * 64 MiB limit is answered -32600 "message too large" under its id and the server keeps serving.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from '../e2e/support/server-process.js';
import { initializeLine, stdioPeer, wsPeer, type RawPeer } from './support/raw-peer.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess;
let peers: RawPeer[];

beforeAll(async () => {
  await ensureBuilt();
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
  const socket = join(temp.home, 'control', 'robust.sock');
  server = await spawnServer(temp, ['stdio://', 'ws://127.0.0.1:0', `unix://${socket}`]);
  peers = [stdioPeer(server), await wsPeer(server.urls[1] as string), await wsPeer(`ws+unix://${socket}:/`, 'unix')];
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  for (const p of peers ?? []) p.close();
  await server?.stop();
  await model?.close();
  await temp?.cleanup();
});

const BIG = ['9223372036854775807', '-9223372036854775808', '18446744073709551616', '123456789012345678901234567890'];

describe('request ids beyond ±(2^53−1)', () => {
  it('are echoed digit for digit on stdio, ws and unix, before and after initialize', async () => {
    for (const peer of peers) {
      // Before initialize: the -32600 "Not initialized" answer carries the exact id.
      peer.send(`{"method":"thread/list","id":${BIG[3]},"params":{}}`);
      const early = await peer.waitText((t) => t.includes(`"id":${BIG[3]}`), 20_000, `${peer.kind}: the early answer`);
      expect(early.text).toContain('"error"');
      peer.send(initializeLine(BIG[0] as string));
      const init = await peer.waitText((t) => t.includes(`"id":${BIG[0]}`), 20_000, `${peer.kind}: the initialize answer`);
      expect(init.text).toMatch(new RegExp(`^\\{"id":${BIG[0]},"result":`));
      peer.send('{"method":"initialized"}');
      for (const id of BIG.slice(1, 3)) {
        peer.send(`{"method":"thread/list","id":${id},"params":{}}`);
        const answer = await peer.waitText((t) => t.includes(`"id":${id}`), 20_000, `${peer.kind}: the answer to ${id}`);
        expect(answer.text).toMatch(new RegExp(`^\\{"id":${id},"result":\\{"data":`));
      }
      // A safe integer and an exponent spelling of one are unchanged.
      peer.send('{"method":"thread/list","id":9007199254740991,"params":{}}');
      expect((await peer.waitText((t) => t.includes('"id":9007199254740991'))).value.result).toBeDefined();
    }
    expect(server.stderr()).not.toContain('non-integer number');
  });
});

describe('thread/list bounds', () => {
  it('refuses a searchTerm over 1024 characters or holding NUL with a clear -32600, and caps the page', async () => {
    const ws = peers[1] as RawPeer;
    ws.send(JSON.stringify({ method: 'thread/list', id: 'long', params: { searchTerm: 's'.repeat(2 * 1024 * 1024) } }));
    const long = await ws.waitText((t) => t.includes('"id":"long"'));
    expect(long.value.error?.code).toBe(-32600);
    expect(long.value.error?.message).toBe('Invalid request: searchTerm is 2097152 characters long; the limit is 1024');
    ws.send(JSON.stringify({ method: 'thread/list', id: 'nul', params: { searchTerm: 'ab\u0000cd' } }));
    const nul = await ws.waitText((t) => t.includes('"id":"nul"'));
    expect(nul.value.error).toEqual({ code: -32600, message: 'Invalid request: searchTerm must not contain NUL (U+0000)' });
    ws.send(JSON.stringify({ method: 'thread/list', id: 'max', params: { searchTerm: 'x'.repeat(1024), limit: 4294967295 } }));
    expect((await ws.waitText((t) => t.includes('"id":"max"'))).value.result).toEqual({ data: [], nextCursor: null, backwardsCursor: null, readStates: {} });
    expect(server.stderr()).not.toContain('unterminated string');
  });
});

describe('the stdio line limit', () => {
  it('answers a line over 64 MiB with -32600 "message too large" under its id, and keeps serving', async () => {
    const stdio = peers[0] as RawPeer;
    const big = 'x'.repeat(64 * 1024 * 1024);
    stdio.send(`{"method":"thread/list","id":"huge","params":{"searchTerm":"${big}"}}`);
    const answer = await stdio.waitText((t) => t.includes('"id":"huge"'), 60_000, 'the answer to the huge line');
    expect(answer.value.error?.code).toBe(-32600);
    expect(answer.value.error?.message).toMatch(/message too large .*limit is 67108864 bytes/);
    // The id last, after the huge member, is read from the line's end.
    stdio.send(`{"method":"thread/list","params":{"searchTerm":"${big}"},"id":77}`);
    expect((await stdio.waitText((t) => t.includes('"id":77'), 60_000)).value.error?.code).toBe(-32600);
    stdio.send('{"method":"thread/list","id":"after","params":{}}');
    expect((await stdio.waitText((t) => t.includes('"id":"after"'))).value.result).toBeDefined();
  }, 120_000);
});

