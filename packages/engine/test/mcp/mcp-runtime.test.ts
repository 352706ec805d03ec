/**
 * MCP client runtime, end to end against real servers (the npm everything server over stdio and
 * Streamable HTTP, the tiny fixture): elicitation through the ApprovalPort, progress events,
 * images in an array-valued function_call_output, HTTP headers, restart after a kill, the 1 MB
 * truncation count, roots/list, logging, the exit code, and "always" persisted to config.toml.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { McpElicitationRequest } from '@deputy/protocol';
import { functionCall, makeTempHome, text } from '@deputy/test-support';
import { parseConfigToml } from '../../src/config/toml-layers.js';
import { checkElicitationContent, normaliseElicitationSchema } from '../../src/mcp/elicitation.js';
import { progressForwarder } from '../../src/mcp/mcp-tools.js';
import { collect, waitFor } from '../helpers/engine.js';
import { engineOpener, everythingBin, filesystemBin, node, outputOf, tiny } from './servers.js';

// Registered first, so it runs after the engines have closed (vitest runs after-hooks in reverse).
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
const open = engineOpener('mcp_startup_grace_ms = 20000');

const everything = (extra = '') => `[mcp_servers.everything]\ncommand = ${node}\nargs = [${JSON.stringify(everythingBin)}, "stdio"]\nstartup_timeout_sec = 20\n${extra}\n`;
const tinyServer = (extra = '') => `[mcp_servers.tiny]\ncommand = ${node}\nargs = [${JSON.stringify(tiny)}]\n${extra}\n`;

describe('elicitation', () => {
  it('normalises the schema: order kept, string default kept, enumNames become a titled oneOf', () => {
    const schema = normaliseElicitationSchema({
      type: 'object',
      properties: {
        z: { type: 'string', default: 'dflt', pattern: 'x' },
        a: { type: 'integer', minimum: 1, maximum: 3 },
        pet: { type: 'string', enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'] },
      },
      required: ['z', 'missing'],
    });
    expect(Object.keys(schema.properties as object)).toEqual(['z', 'a', 'pet']);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        z: { type: 'string', default: 'dflt' },
        a: { type: 'integer', minimum: 1, maximum: 3 },
        pet: { type: 'string', oneOf: [{ const: 'p1', title: 'Cats' }, { const: 'p2', title: 'Dogs' }] },
      },
      required: ['z'],
    });
    expect(checkElicitationContent(schema, { z: 'ok', a: 2, pet: 'p2' })).toBeNull();
    expect(checkElicitationContent(schema, { a: 2 })).toBe('z: required');
    expect(checkElicitationContent(schema, { z: 'ok', a: 9 })).toBe('a: above 3');
    expect(checkElicitationContent(schema, { z: 'ok', pet: 'p9' })).toBe('pet: value not allowed');
  });

  it('forwards a server elicitation to the port and relays the accepted content', async () => {
    const engine = await open(everything(), { approvalPolicy: 'on-request', sandbox: 'workspace-write' });
    const asked: { request: McpElicitationRequest; origin: unknown }[] = [];
    engine.runtime.approvals.requestMcpElicitation = async (request, origin) => {
      asked.push({ request, origin });
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
    };
    const call = functionCall('mcp__everything__trigger_elicitation_request', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const turn = thread.startTurn([{ type: 'text', text: 'ask me' }]);
    await turn.done;
    expect(asked).toHaveLength(1);
    const { request, origin } = asked[0]!;
    expect(origin).toMatchObject({ threadId: thread.id, turnId: expect.any(String) });
    expect(request).toMatchObject({ kind: 'mcpElicitation', server: 'everything', mode: 'form', message: 'Please provide inputs for the following fields:', url: null });
    const props = request.requestedSchema?.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props).slice(0, 3)).toEqual(['name', 'check', 'firstLine']);
    expect(props.firstLine?.default).toBe('It was a dark and stormy night.');
    expect(props.legacyTitledEnum?.oneOf).toEqual(expect.arrayContaining([{ const: 'pet-1', title: 'Cats' }]));
    const out = String(outputOf(engine, call.callId));
    expect(out).toContain('- Name: Ada Lovelace');
    expect(out).toContain('- Favorite Integer: 7');
  }, 30_000);

  it('forwards a URL-mode elicitation with its url and id, having declared url mode at initialize', async () => {
    const log = join(process.env.TMPDIR ?? '/tmp', `tiny-url-${process.pid}-${Date.now()}.log`);
    const engine = await open(tinyServer(`default_tools_approval_mode = "approve"\nenv = { TINY_LOG = ${JSON.stringify(log)} }`), { approvalPolicy: 'on-request', sandbox: 'workspace-write' });
    const asked: McpElicitationRequest[] = [];
    engine.runtime.approvals.requestMcpElicitation = async (request) => {
      asked.push(request);
      return { action: 'accept', content: null };
    };
    const call = functionCall('mcp__tiny__sign_in', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'sign in' }]).done;
    expect(asked).toEqual([
      { kind: 'mcpElicitation', server: 'tiny', message: 'Sign in to tiny', mode: 'url', requestedSchema: null, url: 'https://auth.example.test/authorize?state=s1', elicitationId: 'tiny-e1' },
    ]);
    // The server got the accept, without content.
    expect(String(outputOf(engine, call.callId))).toContain(JSON.stringify(JSON.stringify({ action: 'accept' })).slice(1, -1));
    const init = (await readFile(log, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { initialize?: { capabilities?: unknown } }).find((l) => l.initialize);
    expect(init?.initialize?.capabilities).toMatchObject({ elicitation: { form: {}, url: {} }, roots: { listChanged: true } });
  }, 30_000);

  it('declines content that does not fit the schema, and cancels on the answer timeout', async () => {
    const engine = await open(everything(), { approvalPolicy: 'on-request', sandbox: 'workspace-write' }, 'mcp_startup_grace_ms = 20000\nmcp_elicitation_timeout_sec = 0.3');
    let n = 0;
    engine.runtime.approvals.requestMcpElicitation = (_request, _origin, signal) => {
      n += 1;
      if (n === 1) return Promise.resolve({ action: 'accept', content: { name: 'A', integer: 500 } });
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    const c1 = functionCall('mcp__everything__trigger_elicitation_request', {});
    const c2 = functionCall('mcp__everything__trigger_elicitation_request', {});
    engine.server.enqueue({ output: [c1] }, { output: [c2] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'ask me' }]).done;
    expect(String(outputOf(engine, c1.callId))).toContain('User declined');
    expect(String(outputOf(engine, c2.callId))).toContain('User cancelled');
  }, 30_000);

  it('declines at once under never, without asking', async () => {
    const engine = await open(everything(), { approvalPolicy: 'never', sandbox: 'workspace-write' });
    const ask = vi.fn();
    engine.runtime.approvals.requestMcpElicitation = ask;
    const call = functionCall('mcp__everything__trigger_elicitation_request', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'ask me' }]).done;
    expect(ask).not.toHaveBeenCalled();
    expect(String(outputOf(engine, call.callId))).toContain('User declined');
  }, 30_000);

  it('declines when the port cannot ask', async () => {
    const engine = await open(everything(), { approvalPolicy: 'on-request', sandbox: 'workspace-write' });
    const call = functionCall('mcp__everything__trigger_elicitation_request', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'ask me' }]).done;
    expect(String(outputOf(engine, call.callId))).toContain('User declined');
  }, 30_000);
});

describe('progress', () => {
  it('throttles to one event per 100 ms and always delivers the last', () => {
    const events: unknown[] = [];
    let t = 1000;
    const f = progressForwarder({ callId: 'c', emit: (e) => events.push(e) }, () => t);
    for (let i = 1; i <= 50; i++) f.push({ progress: i, total: 50 });
    t += 50;
    f.flush();
    expect(events).toEqual([
      { type: 'mcp.toolCallProgress', itemId: 'c', progress: 1, total: 50, message: null },
      { type: 'mcp.toolCallProgress', itemId: 'c', progress: 50, total: 50, message: null },
    ]);
  });

  it('forwards the long-running operation’s progress as mcp.toolCallProgress events before the item completes', async () => {
    const engine = await open(everything());
    const call = functionCall('mcp__everything__trigger_long_running_operation', { duration: 1, steps: 4 });
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    await thread.startTurn([{ type: 'text', text: 'go' }]).done;
    const progress = events.filter((e) => e.type === 'mcp.toolCallProgress');
    const seen = progress.map((e) => (e.type === 'mcp.toolCallProgress' ? [e.itemId, e.progress, e.total] : null));
    // Steps 250 ms apart are normally all forwarded; a loaded machine may bunch two inside the
    // 100 ms throttle window, and then only the later one is delivered. The server's last step can
    // also reach the client after its result (the call is over then), so the last event is step 3
    // or 4; what must hold is order and that nothing follows the completed item.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toEqual([call.callId, 1, 4]);
    const steps = seen.map((s) => s?.[1] as number);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(steps.at(-1)).toBeGreaterThanOrEqual(3);
    const completedAt = events.findIndex((e) => e.type === 'item.completed' && e.item.type === 'mcpToolCall');
    expect(events.lastIndexOf(progress.at(-1)!)).toBeLessThan(completedAt);
  }, 30_000);
});

describe('results', () => {
  it('sends image results as an array-valued function_call_output, as the reference does', async () => {
    const engine = await open(everything());
    const call = functionCall('mcp__everything__get_tiny_image', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'image' }]).done;
    const out = outputOf(engine, call.callId) as { type: string; text?: string; image_url?: string; detail?: string }[];
    expect(Array.isArray(out)).toBe(true);
    expect(out[0]?.type).toBe('input_text');
    expect(out[0]?.text).toMatch(/^Wall time: \d+\.\d{4} seconds\nOutput:$/);
    expect(out.slice(1).map((i) => i.type)).toEqual(['input_text', 'input_image', 'input_text']);
    expect(out[1]?.text).toBe("Here's the image you requested:");
    expect(out[2]?.image_url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(out[2]?.detail).toBe('high');
    // No extra user message with the image any more.
    const input = (engine.server.requests[1]?.body as { input: { type: string; role?: string }[] }).input;
    expect(input.at(-1)?.type).toBe('function_call_output');
  }, 30_000);

  it('replaces images with the omitted-image note for a model without image input', async () => {
    const engine = await open(everything());
    const call = functionCall('mcp__everything__get_tiny_image', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    // gpt-oss reads text only (the catalogue); the turn runs on it.
    await thread.startTurn([{ type: 'text', text: 'image' }], { model: 'gpt-oss-120b' }).done;
    const out = outputOf(engine, call.callId);
    expect(typeof out).toBe('string');
    expect(out).toMatch(/^Wall time: \d+\.\d{4} seconds\nOutput:\n\[/);
    const blocks = JSON.parse(String(out).replace(/^Wall time: [^\n]*\nOutput:\n/, '')) as { type: string; text?: string }[];
    expect(blocks.map((b) => b.type)).toEqual(['text', 'text', 'text']);
    expect(blocks[1]).toEqual({ type: 'text', text: '<image content omitted because you do not support image input>' });
    expect(String(out)).not.toContain('base64');
  }, 30_000);

  it('cuts a 1 MB result to the budget with the exact count', async () => {
    const engine = await open(tinyServer('default_tools_approval_mode = "approve"'));
    const call = functionCall('mcp__tiny__big', {});
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'big' }]).done;
    const out = String(outputOf(engine, call.callId));
    const prefix = /^Wall time: \d+\.\d{4} seconds\nOutput:\n/.exec(out)?.[0] ?? '';
    const original = prefix.length + JSON.stringify([{ type: 'text', text: 'x'.repeat(1_000_000) }]).length;
    expect(out).toContain(`…${original - 12_000} chars truncated…`);
    expect(out.length).toBe(12_000 + `…${original - 12_000} chars truncated…`.length);
  }, 30_000);
});

describe('server requests and notifications', () => {
  it('answers roots/list with the thread cwd and sends logging to the debug log', async () => {
    const engine = await open(tinyServer('default_tools_approval_mode = "approve"'));
    const writes: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const previous = process.env.DEPUTY_LOG;
    process.env.DEPUTY_LOG = 'debug';
    cleanups.push(() => {
      spy.mockRestore();
      if (previous === undefined) delete process.env.DEPUTY_LOG;
      else process.env.DEPUTY_LOG = previous;
    });
    const roots = functionCall('mcp__tiny__roots', {});
    const log = functionCall('mcp__tiny__log', {});
    engine.server.enqueue({ output: [roots, log] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'roots' }]).done;
    const out = String(outputOf(engine, roots.callId));
    expect(out).toContain(`\\"uri\\":\\"file://${engine.temp.cwd}\\",\\"name\\":\\"workspace\\"`);
    await waitFor(() => writes.some((w) => w.includes('deputy mcp debug: server tiny info: "hello from tiny"')));
  }, 30_000);

  it('reports the exit code of a crashed server, restarts it, and the next call works', async () => {
    const engine = await open(tinyServer('default_tools_approval_mode = "approve"'));
    const pid = functionCall('mcp__tiny__pid', {});
    engine.server.enqueue({ output: [pid] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    await thread.startTurn([{ type: 'text', text: 'pid' }]).done;
    const childPid = Number(/\[\{"type":"text","text":"(\d+)"\}\]/.exec(String(outputOf(engine, pid.callId)))?.[1]);
    expect(childPid).toBeGreaterThan(0);
    process.kill(childPid, 'SIGKILL');
    await waitFor(() => thread.mcpServerStatuses()[0]?.status === 'failed');
    expect(thread.mcpServerStatuses()[0]?.error).toMatch(/^server exited \(code SIGKILL\)/);
    await new Promise((r) => setTimeout(r, 1100)); // the first back-off step
    const plain = functionCall('mcp__tiny__plain', { text: 'again' });
    engine.server.enqueue({ output: [plain] }, { output: [text('ok')] });
    await thread.startTurn([{ type: 'text', text: 'again' }]).done;
    expect(String(outputOf(engine, plain.callId))).toContain('plain: again');
    const statuses = events.filter((e) => e.type === 'mcp.serverStatus').map((e) => (e.type === 'mcp.serverStatus' ? e.status : null));
    expect(statuses.slice(statuses.indexOf('failed'))).toEqual(['failed', 'starting', 'ready']);
  }, 30_000);

  it('puts the exit code of a child that dies during the handshake in the error', async () => {
    const engine = await open(`[mcp_servers.db]\ncommand = ${node}\nargs = [${JSON.stringify(tiny)}, "--fail-start"]\n`);
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await waitFor(() => thread.mcpServerStatuses()[0]?.status === 'failed');
    expect(thread.mcpServerStatuses()[0]?.error).toContain('connection closed: initialize response; exit code 3; stderr: tiny: cannot start: missing database');
  }, 30_000);
});

describe('approval "always"', () => {
  it('writes approval_mode = "approve" for the tool into config.toml, keeping the file', async () => {
    const engine = await open(tinyServer('# keep this comment'), { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    let asked = 0;
    engine.runtime.approvals.requestMcpToolCall = async () => {
      asked += 1;
      return 'approved_and_remember';
    };
    const c1 = functionCall('mcp__tiny__plain', { text: 'one' });
    const c2 = functionCall('mcp__tiny__plain', { text: 'two' });
    engine.server.enqueue({ output: [c1] }, { output: [c2] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'go' }]).done;
    expect(asked).toBe(1);
    expect(String(outputOf(engine, c2.callId))).toContain('plain: two');
    const toml = await readFile(join(engine.temp.home, 'config.toml'), 'utf8');
    expect(toml).toContain('# keep this comment');
    expect(parseConfigToml(toml, 'config.toml')).toMatchObject({ mcp_servers: { tiny: { tools: { plain: { approval_mode: 'approve' } } } } });
  }, 30_000);

  it('cancels an unanswered approval after mcp_approval_timeout_sec', async () => {
    const engine = await open(tinyServer(), { approvalPolicy: 'untrusted', sandbox: 'workspace-write' }, 'mcp_startup_grace_ms = 20000\nmcp_approval_timeout_sec = 0.3');
    engine.runtime.approvals.requestMcpToolCall = (_r, _o, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const call = functionCall('mcp__tiny__plain', { text: 'x' });
    engine.server.enqueue({ output: [call] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'go' }]).done;
    expect(turn.status).toBe('completed');
    expect(String(outputOf(engine, call.callId))).toContain('user cancelled MCP tool call');
  }, 30_000);
});

describe('server-filesystem', () => {
  it('lists a directory of the workspace for the model', async () => {
    const temp = await makeTempHome();
    cleanups.push(() => temp.cleanup());
    await writeFile(join(temp.cwd, 'notes.txt'), 'hi');
    await mkdir(join(temp.cwd, 'src'));
    const fs = await open(`[mcp_servers.fs]\ncommand = ${node}\nargs = [${JSON.stringify(filesystemBin)}, ${JSON.stringify(temp.cwd)}]\nstartup_timeout_sec = 20\n`, { temp });
    const call = functionCall('mcp__fs__list_directory', { path: temp.cwd });
    fs.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await fs.manager.start({ cwd: fs.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'list' }]).done;
    const out = String(outputOf(fs, call.callId));
    expect(out).toMatch(/^Wall time: \d+\.\d{4} seconds\nOutput:\n\{"content":"/);
    expect(out).toContain('[FILE] notes.txt');
    expect(out).toContain('[DIR] src');
  }, 30_000);
});

describe('Streamable HTTP', () => {
  it('talks to the everything server over HTTP with the bearer token and MCP-Protocol-Version', async () => {
    const upstream = await startEverythingHttp();
    const seen: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', headers: req.headers, body });
        if (req.headers.authorization !== 'Bearer s3cret') {
          res.writeHead(401).end();
          return;
        }
        const up = httpRequest({ host: '127.0.0.1', port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const port = (proxy.address() as AddressInfo).port;
    process.env.DEPUTY_TEST_MCP_TOKEN = 's3cret';
    cleanups.push(() => {
      delete process.env.DEPUTY_TEST_MCP_TOKEN;
      proxy.closeAllConnections();
    });
    const engine = await open(`[mcp_servers.web]\nurl = "http://127.0.0.1:${port}/mcp"\nbearer_token_env_var = "DEPUTY_TEST_MCP_TOKEN"\nstartup_timeout_sec = 20\n`);
    const call = functionCall('mcp__web__echo', { message: 'over http' });
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'echo' }]).done;
    expect(String(outputOf(engine, call.callId))).toContain('Echo: over http');
    const posts = seen.filter((s) => s.method === 'POST');
    expect(posts.every((p) => p.headers.authorization === 'Bearer s3cret')).toBe(true);
    const init = posts.find((p) => p.body.includes('"initialize"'));
    const versionOffered = (JSON.parse(init?.body ?? '{}') as { params?: { protocolVersion?: string } }).params?.protocolVersion;
    const toolsCall = posts.find((p) => p.body.includes('"tools/call"'));
    expect(toolsCall?.headers['mcp-protocol-version']).toBeTruthy();
    expect(toolsCall?.headers['mcp-session-id']).toBeTruthy();
    expect(typeof versionOffered).toBe('string');
  }, 40_000);
});

/** The everything server in Streamable HTTP mode on a free 127.0.0.1 port. */
async function startEverythingHttp(): Promise<{ port: number; child: ChildProcess }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const child = spawn(process.execPath, [everythingBin, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString('utf8');
      if (err.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`everything http exited ${code}: ${err}`)));
  });
  return { port, child };
}
