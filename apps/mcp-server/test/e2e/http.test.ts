/**
 * Streamable HTTP (`--listen`): the bearer token (0600 file, whose path, never the token, is printed; 401
 * without it), Origin and Host checks, the one served path, the loopback rule for
 * `--insecure-no-auth`, and real SDK clients of both eras over it — turns, events, approvals
 * (elicitation on the 2025 session leg, input-required rounds on 2026) and cancellation.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectV1Http, connectV2Http } from '../helpers/clients.js';
import { SERVER_MAIN, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';

interface HttpServer {
  child: ChildProcessWithoutNullStreams;
  url: string;
  token: string | null;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns the server with `--listen` on a free port and waits for its "listening on" line. */
async function startHttpServer(harness: Harness, extraArgs: string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [SERVER_MAIN, '--listen', 'http://127.0.0.1:0/mcp', ...extraArgs], { env: harness.env(), cwd: harness.temp.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    await exited;
  };
  try {
    const url = await waitFor(() => /listening on (\S+)/.exec(stderr)?.[1], 15_000, 'the listening line');
    const tokenFile = /bearer token kept in (\S+)/.exec(stderr)?.[1];
    const token = tokenFile === undefined ? null : readFileSync(tokenFile, 'utf8').trim();
    if (token !== null) expect(stderr).not.toContain(token);
    return { child, url, token, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; stderr: ${stderr}`);
  }
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } });

/** A raw POST with chosen headers (node:http, so Host can be set). */
function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
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

let harness: Harness;
let server: HttpServer;

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
  server = await startHttpServer(harness);
});

afterAll(async () => {
  await server?.stop();
  await harness?.close();
});

describe('HTTP authentication and origin checks', () => {
  it('keeps the token in a 0600 file under the home and prints where, never the token', () => {
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const file = join(harness.temp.home, 'mcp-server.token');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(server.stderr()).not.toContain(server.token as string);
    expect(server.stderr()).toContain(`bearer token kept in ${file}`);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('answers 401 with a Bearer challenge without a token or with a wrong one', async () => {
    const none = await post(server.url, {});
    expect(none.status).toBe(401);
    expect(String(none.headers['www-authenticate'])).toMatch(/^Bearer/);
    expect((await post(server.url, { authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
  });

  it('serves a request with the token', async () => {
    const ok = await post(server.url, { authorization: `Bearer ${server.token}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"protocolVersion":"2025-06-18"');
  });

  it('rejects a cross-site Origin and a foreign Host header with 403', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    expect((await post(server.url, { ...auth, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(server.url, { ...auth, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post(server.url, { ...auth, host: 'evil.example' })).status).toBe(403);
  });

  it('serves only the configured path', async () => {
    expect((await post(server.url.replace(/\/mcp$/, '/other'), { authorization: `Bearer ${server.token}` })).status).toBe(404);
  });

  it('refuses a non-loopback bind without a token', async () => {
    const child = spawn(process.execPath, [SERVER_MAIN, '--listen', 'http://0.0.0.0:0/mcp', '--insecure-no-auth'], { env: harness.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(stderr).toContain('refusing to listen on 0.0.0.0 without a bearer token');
    } finally {
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    }
  });

  it('serves without a token on loopback with --insecure-no-auth', async () => {
    const open = await startHttpServer(harness, ['--insecure-no-auth']);
    try {
      expect(open.token).toBeNull();
      expect((await post(open.url, {})).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});

describe('the working directory of a codex call over HTTP', () => {
  it('refuses a call without cwd, saying what to pass, and starts no thread', async () => {
    const session = await connectV1Http(server.url, server.token, {});
    try {
      const before = readdirSync(harness.temp.home, { recursive: true }).filter((f) => String(f).endsWith('.jsonl')).length;
      const refused = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch nowhere.txt' } })) as { content: { text: string }[]; isError?: boolean };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/over Streamable HTTP the `codex` tool needs a `cwd` argument/);
      expect(refused.content[0]?.text).toContain('mcp_server.default_cwd');
      expect(existsSync(join(harness.temp.cwd, 'nowhere.txt'))).toBe(false);
      expect(readdirSync(harness.temp.home, { recursive: true }).filter((f) => String(f).endsWith('.jsonl')).length).toBe(before);
    } finally {
      await session.close();
    }
  });

  it('runs a call without cwd in mcp_server.default_cwd when it is configured', async () => {
    const workspace = join(harness.temp.cwd, 'default-workspace');
    await mkdir(workspace, { recursive: true });
    const configured = await startHttpServer(harness, ['-c', `mcp_server.default_cwd=${JSON.stringify(workspace)}`]);
    try {
      const session = await connectV1Http(configured.url, configured.token, {});
      try {
        const ran = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch here.txt', 'approval-policy': 'never' } })) as { content: { text: string }[] };
        expect(ran.content[0]?.text).toMatch(/exited with code 0/);
        expect(existsSync(join(workspace, 'here.txt'))).toBe(true);
        expect(existsSync(join(harness.temp.cwd, 'here.txt'))).toBe(false);
      } finally {
        await session.close();
      }
    } finally {
      await configured.stop();
    }
  });
});

describe('SDK clients over HTTP', () => {
  it('runs a 2025-era session: turn, events, approval by elicitation, and cancellation', async () => {
    const session = await connectV1Http(server.url, server.token, { elicit: async () => ({ action: 'accept', content: {} }) });
    try {
      const echo = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'over http', cwd: harness.temp.cwd } })) as unknown as { structuredContent: { threadId: string; content: string } };
      expect(echo.structuredContent.content).toBe('ECHO: over http');
      expect(session.notifications.some((n) => n.method === 'codex/event' && (n.params?.msg as { type: string }).type === 'task_complete')).toBe(true);

      const approved = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch http.txt', 'approval-policy': 'untrusted', cwd: harness.temp.cwd } })) as { content: { text: string }[] };
      expect(approved.content[0]?.text).toMatch(/exited with code 0/);
      expect(session.elicitations).toHaveLength(1);
      // The SDK client hands its handler the standard fields only; the wire carries the codex_* ones.
      expect(session.inbound.find((m) => m.method === 'elicitation/create')?.params).toMatchObject({ codex_elicitation: 'exec-approval', codex_command: [expect.any(String), '-lc', 'touch http.txt'] });
      expect(existsSync(join(harness.temp.cwd, 'http.txt'))).toBe(true);
      await rm(join(harness.temp.cwd, 'http.txt'));

      const controller = new AbortController();
      const before = session.notifications.length;
      const stalled = session.client.callTool({ name: 'codex-reply', arguments: { prompt: 'stall: http', threadId: echo.structuredContent.threadId } }, undefined, { signal: controller.signal });
      await waitFor(() => session.notifications.slice(before).some((n) => (n.params?.msg as { type?: string })?.type === 'agent_message_content_delta'), 10_000, 'a delta');
      controller.abort();
      await expect(stalled).rejects.toThrow();
      const next = (await session.client.callTool({ name: 'codex-reply', arguments: { prompt: 'after', threadId: echo.structuredContent.threadId } })) as unknown as { structuredContent: { content: string } };
      expect(next.structuredContent.content).toBe('ECHO: after');
    } finally {
      await session.close();
    }
  });

  it('runs a 2026-07-28 session: turn and an approval by input-required round', async () => {
    const session = await connectV2Http(server.url, server.token, { elicit: async () => ({ action: 'accept', content: {} }) });
    try {
      expect(session.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const echo = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'modern http', cwd: harness.temp.cwd } })) as unknown as { structuredContent: { content: string } };
      expect(echo.structuredContent.content).toBe('ECHO: modern http');
      const approved = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch http2.txt', 'approval-policy': 'untrusted', cwd: harness.temp.cwd } })) as { content: { text: string }[] };
      expect(approved.content[0]?.text).toMatch(/exited with code 0/);
      expect(session.elicitations).toHaveLength(1);
      expect(existsSync(join(harness.temp.cwd, 'http2.txt'))).toBe(true);
    } finally {
      await session.close();
    }
  });
});
