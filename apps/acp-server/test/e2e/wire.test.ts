/**
 * `deputy acp` on the raw wire: version negotiation (1 echoed; 2 and 99 answered with 1; the
 * string "1.0.0" accepted), a request before `initialize`, a garbage line (the connection
 * survives), stdout purity, and stdin EOF ending the process with exit code 0.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY } from '../../../cli/test/cli-process.js';
import { exited, startEnv, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv();
}, 120_000);

afterAll(async () => {
  await env?.close();
});

type Frame = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** Writes `lines` one at a time, each after the previous answer (when it has an id), then closes stdin. */
async function exchange(lines: string[], expectAnswer: (line: string) => boolean, on: Env = env): Promise<{ frames: Frame[]; raw: string[]; code: number | null }> {
  const child = spawn(process.execPath, [CLI_ENTRY, 'acp'], {
    cwd: on.temp.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: on.temp.home, DEPUTY_HOME: on.temp.home, DEPUTY_LOG: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    const raw: string[] = [];
    let buffer = '';
    let wake: () => void = () => undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      raw.push(...parts);
      wake();
    });
    for (const line of lines) {
      const before = raw.length;
      child.stdin.write(`${line}\n`);
      if (!expectAnswer(line)) continue;
      const deadline = Date.now() + 10_000;
      while (raw.length === before) {
        if (Date.now() > deadline) throw new Error(`no answer to ${line}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      }
    }
    child.stdin.end();
    const code = await exited(child, 10_000);
    return { frames: raw.map((l) => JSON.parse(l) as Frame), raw, code };
  } finally {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  }
}

const init = (id: number, protocolVersion: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, clientCapabilities: {} } });

describe('deputy acp wire', () => {
  it('negotiates version 1, accepts a string version, survives garbage and exits 0 on stdin EOF', async () => {
    const { frames, code } = await exchange(
      [
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }),
        'this is not json',
        init(2, 1),
        init(3, 2),
        init(4, 99),
        init(5, '1.0.0'),
        JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'no/such_method', params: {} }),
      ],
      () => true,
    );
    const byId = (id: number) => frames.find((f) => f.id === id);
    expect(byId(1)?.error?.code).toBe(-32600);
    expect(frames.some((f) => f.id === null && f.error?.code === -32700)).toBe(true);
    for (const id of [2, 3, 4, 5]) expect(byId(id)?.result?.protocolVersion).toBe(1);
    expect(byId(6)?.error?.code).toBe(-32601);
    expect(code).toBe(0);
  });

  it('accepts session/new without mcpServers (lenient) and exits 0 when stdin closes', async () => {
    const { frames, raw, code } = await exchange([init(1, 1), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: env.temp.cwd } })], () => true);
    expect(frames.find((f) => f.id === 2)?.result?.sessionId).toEqual(expect.any(String));
    // Nothing but JSON-RPC frames on stdout.
    for (const line of raw) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(code).toBe(0);
  });
});

describe('deputy acp without credentials', () => {
  it('answers session/new with -32000 naming the variable when the provider has no key', async () => {
    const keyless = await startEnv('model_provider = "openai"\napproval_policy = "never"');
    try {
      const { frames, code } = await exchange([init(1, 1), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: keyless.temp.cwd, mcpServers: [] } })], () => true, keyless);
      const error = frames.find((f) => f.id === 2)?.error;
      expect(error?.code).toBe(-32000);
      expect(error?.message).toMatch(/OPENAI_API_KEY/);
      expect(code).toBe(0);
    } finally {
      await keyless.close();
    }
  });
});
