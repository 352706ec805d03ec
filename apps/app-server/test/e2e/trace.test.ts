/**
 * End-to-end of the wire trace (docs/app-server.md "Wire trace") with the built server: `--trace
 * FILE` and `DEPUTY_TRACE=FILE` append every JSON-RPC message in and out as JSON lines with the
 * connection id and a timestamp; secrets never reach the file; without either, nothing is traced.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, waitFor, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, stdioClient, type ServerProcess } from './support/server-process.js';

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

interface TraceLine {
  ts: string;
  connection: number;
  direction: 'in' | 'out';
  message: Record<string, unknown>;
}

const SECRET = 'sk-tracetest0123456789abcdef';

/** Talks to the server over stdio: initialize, a login carrying a key, a thread, then EOF. */
async function session(proc: ServerProcess): Promise<void> {
  const client = stdioClient(proc);
  await client.initialize({}, { name: 'trace-e2e', version: '1' });
  await client.request('account/login/start', { type: 'apiKey', apiKey: SECRET });
  await client.call('thread/start', {});
  await client.request('no/such/method', { note: `Bearer ${SECRET}` });
  proc.child.stdin.end();
  await proc.exited;
}

function readTrace(file: string): TraceLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TraceLine);
}

describe('wire trace', () => {
  it('--trace FILE records every message in and out, with connection and time, secrets redacted', async () => {
    const file = path.join(temp.cwd, 'wire.jsonl');
    server = await spawnServer(temp, ['stdio://'], ['--trace', 'wire.jsonl']);
    expect(server.stderr()).toContain(`tracing every JSON-RPC message to ${file}`);
    await session(server);
    const lines = await waitFor(() => {
      const read = existsSync(file) ? readTrace(file) : [];
      return read.some((l) => l.message.method === 'no/such/method') && read.some((l) => l.direction === 'out' && l.message.error !== undefined) && read;
    }, 10_000);
    const methodsIn = lines.filter((l) => l.direction === 'in').map((l) => l.message.method);
    expect(methodsIn).toEqual(['initialize', 'initialized', 'account/login/start', 'thread/start', 'no/such/method']);
    const out = lines.filter((l) => l.direction === 'out');
    expect(out.map((l) => l.message.method).filter(Boolean)).toEqual(expect.arrayContaining(['remoteControl/status/changed', 'thread/started']));
    expect(out.filter((l) => 'id' in l.message).length).toBe(4);
    expect(new Set(lines.map((l) => l.connection)).size).toBe(1);
    for (const line of lines) {
      expect(Number.isInteger(line.connection)).toBe(true);
      expect(Number.isNaN(Date.parse(line.ts))).toBe(false);
    }
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(lines.find((l) => l.message.method === 'account/login/start')?.message.params).toEqual({ type: 'apiKey', apiKey: '[redacted]' });
    expect(lines.find((l) => l.message.method === 'no/such/method')?.message.params).toEqual({ note: '[redacted]' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('DEPUTY_TRACE=FILE does the same; a second run appends', async () => {
    const file = path.join(temp.home, 'env-trace.jsonl');
    for (let run = 0; run < 2; run++) {
      server = await spawnServer(temp, ['stdio://'], [], { DEPUTY_TRACE: file });
      await session(server);
      server = undefined;
    }
    const lines = await waitFor(() => existsSync(file) && readTrace(file).filter((l) => l.message.method === 'initialize').length === 2 && readTrace(file), 10_000);
    expect(lines.filter((l) => l.message.method === 'thread/start')).toHaveLength(2);
  });

  it('is off by default', async () => {
    const before = [...readdirSync(temp.cwd), ...readdirSync(temp.home)];
    server = await spawnServer(temp, ['stdio://'], [], { DEPUTY_TRACE: '' });
    await session(server);
    expect(server.stderr()).not.toContain('tracing');
    const after = [...readdirSync(temp.cwd), ...readdirSync(temp.home)];
    expect(after.filter((name) => !before.includes(name) && /trace|jsonl/.test(name))).toEqual([]);
  });
});
