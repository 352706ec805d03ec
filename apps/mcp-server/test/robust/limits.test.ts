/**
 * Limits of the built MCP server (docs/mcp-server.md "Limits"): ids beyond ±(2^53−1) come back
 * digit for digit on stdio and HTTP; a stdio line over 64 MiB is answered -32600 "message too
 * large" under its id; `tools/list` with an object cursor is a readable -32602; an HTTP body over
 * 4 MiB is 413; 2025-era HTTP sessions are capped and expire when idle; a second SIGTERM during
 * shutdown does not kill the server before the interrupted turn's end is written; codex sessions
 * do not pin file descriptors.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_MAIN, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';
import { RawClient } from '../helpers/raw-client.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
});
afterAll(async () => {
  await harness?.close();
});

const BIG = '9223372036854775807';
const NEG = '-9223372036854775808';
const INIT_PARAMS = '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"robust","version":"1"}}';

describe('stdio', () => {
  it('echoes big ids exactly, answers huge lines and object cursors precisely, and keeps serving', async () => {
    const client = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      client.write(`{"jsonrpc":"2.0","id":${BIG},"method":"initialize","params":${INIT_PARAMS}}`);
      const init = await waitFor(() => client.lines.find((l) => l.includes(`"id":${BIG}`)), 15_000, 'the initialize answer');
      expect(init).toContain('"result"');
      client.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      client.write(`{"jsonrpc":"2.0","id":${NEG},"method":"tools/list"}`);
      expect(await waitFor(() => client.lines.find((l) => l.includes(`"id":${NEG}`)), 15_000, 'the tools/list answer')).toContain('"tools"');
      client.write({ jsonrpc: '2.0', id: 'cur', method: 'tools/list', params: { cursor: { page: 2 } } });
      const cursor = await client.response('cur');
      expect(cursor.error?.code).toBe(-32602);
      expect(cursor.error?.message).toBe('Invalid params: tools/list cursor must be a string (the nextCursor of a previous page), got an object');
      client.write(`{"jsonrpc":"2.0","id":"huge","method":"tools/list","params":{"x":"${'x'.repeat(64 * 1024 * 1024)}"}}`);
      const huge = await client.response('huge', 60_000);
      expect(huge.error?.code).toBe(-32600);
      expect(huge.error?.message).toMatch(/^Invalid Request: message too large \(\d+ bytes; the limit is 67108864 bytes\)$/);
      expect((await client.request('after', 'tools/list')).result).toBeDefined();
    } finally {
      await client.kill();
    }
  }, 120_000);

  it('absorbs a second SIGTERM during shutdown, exits 0 and writes the interrupted turn', async () => {
    const client = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await client.initialize({});
      client.write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'stall: double signal' } } });
      await client.waitFor((m) => m.method === 'codex/event', 10_000, 'the first event');
      client.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 5));
      client.child.kill('SIGTERM');
      expect(await client.exited).toBe(0);
      expect(client.child.signalCode).toBeNull();
      // The rollout of the cut turn ends with its end, marked interrupted.
      const rollouts = findFiles(join(harness.temp.home, 'sessions'), '.jsonl').filter((f) => readFileSync(f, 'utf8').includes('double signal'));
      expect(rollouts).toHaveLength(1);
      expect(readFileSync(rollouts[0] as string, 'utf8')).toContain('"interrupted"');
    } finally {
      await client.kill();
    }
  });
});

describe('file descriptors', () => {
  it('does not pin a descriptor per codex session: 60 calls leave the open count flat', async () => {
    const client = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await client.initialize({});
      const pid = client.child.pid as number;
      const openFds = () => readdirSync(`/proc/${pid}/fd`).length;
      // The first call loads the engine; count from after it.
      expect((await client.request('warm', 'tools/call', { name: 'codex', arguments: { prompt: 'warm up' } }, 30_000)).result).toBeDefined();
      const before = openFds();
      for (let i = 0; i < 60; i++) {
        const answer = await client.request(`c${i}`, 'tools/call', { name: 'codex', arguments: { prompt: `call ${i}` } }, 30_000);
        expect((answer.result as { structuredContent?: { content: string } }).structuredContent?.content).toBe(`ECHO: call ${i}`);
      }
      const right = openFds();
      // A session's rollout stays open while it writes and closes after a second without a write
      // (docs/mcp-server.md "Limits"): nothing is pinned once the sessions are idle.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = openFds();
      console.log(`mcp fds: ${before} after the first codex call, ${right} right after 60 more, ${after} a second and a half later`);
      expect(after - before).toBeLessThan(15);
    } finally {
      await client.kill();
    }
  }, 120_000);
});

function findFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findFiles(full, suffix));
    else if (name.endsWith(suffix)) out.push(full);
  }
  return out;
}

/** A raw POST; resolves with the status, headers and body text. */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Streamable HTTP', () => {
  it('echoes big ids, answers 413 over 4 MiB, caps sessions and expires idle ones', async () => {
    const child = spawn(
      process.execPath,
      [SERVER_MAIN, '--listen', 'http://127.0.0.1:0/mcp', '--insecure-no-auth', '-c', 'mcp_server.http_max_sessions=2', '-c', 'mcp_server.http_session_idle_seconds=1'],
      { env: harness.env({ DEPUTY_LOG: 'info' }), cwd: harness.temp.cwd, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    try {
      const url = await waitFor(() => /listening on (\S+)/.exec(stderr)?.[1], 15_000, 'the listening line');
      const init = (id: string) => post(url, {}, `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":${INIT_PARAMS}}`);
      const first = await init(BIG);
      expect(first.status).toBe(200);
      expect(first.body).toContain(`"id":${BIG}`);
      const session = String(first.headers['mcp-session-id']);
      const listed = await post(url, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, `{"jsonrpc":"2.0","id":${NEG},"method":"tools/list"}`);
      expect(listed.body).toContain(`"id":${NEG}`);
      const cursor = await post(url, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":{}}}');
      expect(JSON.parse(cursor.body)).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringContaining('cursor must be a string') } });

      const large = await post(url, {}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"${'x'.repeat(5 * 1024 * 1024)}"}}`);
      expect(large.status).toBe(413);
      expect(JSON.parse(large.body).error.message).toBe('Request body too large: the limit is 4194304 bytes (4 MiB)');

      expect((await init('2')).status).toBe(200);
      const refused = await init('3');
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body).error.message).toMatch(/^Too many sessions: at most 2 at once/);
      // Both sessions go idle and expire; the first one is then unknown and a new one fits.
      await waitFor(() => /closing session .*idle/.test(stderr) && (stderr.match(/closing session/g) ?? []).length >= 2, 10_000, 'the idle sessions to expire');
      const gone = await post(url, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, '{"jsonrpc":"2.0","id":6,"method":"tools/list"}');
      expect(gone.status).toBe(404);
      expect((await init('4')).status).toBe(200);
    } finally {
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    }
  }, 60_000);
});
