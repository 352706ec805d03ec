/**
 * Contract tests of the MCP client front door (docs/app-server.md "MCP servers",
 * docs/mcp-client.md "Approvals"): real stdio servers (the engine's tiny fixture and the npm everything server, used
 * in place) configured in config.toml, a real engine behind the in-process server, every message
 * checked against our schemas and the reference's JSON Schema.
 */
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionCall, text } from '@deputy/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type HarnessOptions } from './support/harness.js';
import { testConfigToml } from './support/config-toml.js';
import { startThread, startTurn, turnCompleted, turnMethods } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const tiny = join(repo, 'packages/engine/test/mcp/fixtures/tiny-server.mjs');
const engineRequire = createRequire(join(repo, 'packages/engine/package.json'));
const everythingPkg = engineRequire.resolve('@modelcontextprotocol/server-everything/package.json');
const everythingBin = join(dirname(everythingPkg), (engineRequire(everythingPkg) as { bin: Record<string, string> }).bin['mcp-server-everything'] ?? '');
const node = JSON.stringify(process.execPath);

const tinyToml = (name = 'tiny', extra = ''): string => `[mcp_servers.${name}]\ncommand = ${node}\nargs = [${JSON.stringify(tiny)}]\n${extra}\n`;
/** The tiny server started `seconds` late (through sh, so the fixture is used as is). */
const slowTinyToml = (name: string, seconds: number): string =>
  `[mcp_servers.${name}]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`sleep ${seconds}; exec ${process.execPath} ${tiny}`)}]\nstartup_timeout_sec = 20\n`;
const everythingToml = `[mcp_servers.everything]\ncommand = ${node}\nargs = [${JSON.stringify(everythingBin)}, "stdio"]\nstartup_timeout_sec = 20\n`;

let h: Harness | undefined;
afterEach(async () => {
  if (!h) return;
  expect(h.validator.problems).toEqual([]);
  await h.close();
  h = undefined;
});

async function open(servers: string, options: HarnessOptions = {}): Promise<{ h: Harness; client: WireClient }> {
  h = await startHarness({ topToml: 'mcp_startup_grace_ms = 20000', ...options, extraToml: servers });
  return { h, client: await h.connect() };
}

function ready(client: WireClient, name: string, threadId: string): Promise<unknown> {
  return client.waitForNotification('mcpServer/startupStatus/updated', (p) => p.name === name && p.status === 'ready' && p.threadId === threadId, 20_000);
}

function mcpItems(client: WireClient, method: 'item/started' | 'item/completed'): Array<Record<string, unknown>> {
  return client.notifications(method).map((n) => n.params.item as Record<string, unknown>).filter((i) => i.type === 'mcpToolCall');
}

describe('notifications', () => {
  it('reports start-up after thread/started, with threadId', async () => {
    const { client } = await open(tinyToml());
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    const methods = client.notifications().map((n) => n.method);
    expect(methods.indexOf('thread/started')).toBeLessThan(methods.indexOf('mcpServer/startupStatus/updated'));
    expect(client.notifications('mcpServer/startupStatus/updated').map((n) => n.params)).toEqual([
      { name: 'tiny', status: 'starting', error: null, threadId },
      { name: 'tiny', status: 'ready', error: null, threadId },
    ]);
  });

  it('shows a model-driven call as mcpToolCall item/started → item/completed', async () => {
    const { h, client } = await open(tinyToml());
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    const call = functionCall('mcp__tiny__plain', { text: 'hi' });
    h.model.enqueue({ output: [call] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'call plain');
    await turnCompleted(client, turnId, 20_000);
    const started = client.notifications('item/started').find((n) => (n.params.item as { type: string }).type === 'mcpToolCall');
    expect(started?.params).toEqual({
      item: { type: 'mcpToolCall', id: call.callId, server: 'tiny', tool: 'plain', status: 'inProgress', arguments: { text: 'hi' }, result: null, error: null, durationMs: null },
      threadId,
      turnId,
      startedAtMs: expect.any(Number),
    });
    const completed = client.notifications('item/completed').find((n) => (n.params.item as { type: string }).type === 'mcpToolCall');
    expect(completed?.params).toEqual({
      item: {
        type: 'mcpToolCall',
        id: call.callId,
        server: 'tiny',
        tool: 'plain',
        status: 'completed',
        arguments: { text: 'hi' },
        result: { content: [{ type: 'text', text: 'plain: hi' }], structuredContent: null, _meta: null },
        error: null,
        durationMs: expect.any(Number),
      },
      threadId,
      turnId,
      completedAtMs: expect.any(Number),
    });
    // Persisted and read back unchanged.
    const read = await client.call<{ thread: { turns: Array<{ items: Array<Record<string, unknown>> }> } }>('thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns.at(-1)?.items.find((i) => i.type === 'mcpToolCall')).toEqual((completed?.params as { item: unknown }).item);
  });

  it('streams item/mcpToolCall/progress while the call runs, at most 10 per second per item', async () => {
    const { h, client } = await open(tinyToml('tiny', 'default_tools_approval_mode = "approve"'));
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    // Three steps 200 ms apart with a message, then a burst of 30 without, then the answer 300 ms later.
    const call = functionCall('mcp__tiny__progress', { steps: 3, gapMs: 200, burst: 30, holdMs: 300 });
    h.model.enqueue({ output: [call] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'report progress');
    const first = await client.waitForNotification('item/mcpToolCall/progress', () => true, 20_000);
    // Live: the first report reaches the client while the item is still in progress.
    expect(mcpItems(client, 'item/completed')).toEqual([]);
    expect(first.params).toEqual({ threadId, turnId, itemId: call.callId, message: 'step 1' });
    await turnCompleted(client, turnId, 20_000);
    const messages = client.notifications('item/mcpToolCall/progress').map((n) => n.params.message as string);
    // The burst of 30 within a few milliseconds is thinned to its first and last (held and
    // delivered within 100 ms); the last report always arrives, and all before the item completes.
    expect(messages.filter((m) => !m.startsWith('step')).length).toBeLessThanOrEqual(2);
    expect(messages.at(-1)).toBe('33/33');
    expect(messages[0]).toBe('step 1');
    const methods = turnMethods(client, turnId);
    expect(methods.lastIndexOf('item/mcpToolCall/progress')).toBeLessThan(methods.lastIndexOf('item/completed'));
  });

  it('fails thread/start for a required server that cannot start, with its stderr tail', async () => {
    const { client } = await open(`[mcp_servers.db]\ncommand = ${node}\nargs = [${JSON.stringify(tiny)}, "--fail-start"]\nrequired = true\n`);
    await expect(startThread(client)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^error creating thread: Fatal error: Failed to initialize session: required MCP servers failed to initialize: db: MCP client for `db` failed to start: MCP startup failed: .*exit code 3; stderr: tiny: cannot start: missing database$/,
      ),
    });
    expect((await client.call<{ data: unknown[] }>('thread/loaded/list', {})).data).toEqual([]);
  });
});

describe('approvals', () => {
  it('asks with mcpServer/elicitation/request under untrusted, runs on accept, then resolves', async () => {
    const { h, client } = await open(tinyToml(), { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    const call = functionCall('mcp__tiny__plain', { text: 'hi', b: 1 });
    h.model.enqueue({ output: [call] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'call plain');
    const request = await client.waitForServerRequest('mcpServer/elicitation/request');
    expect(request.params).toEqual({
      threadId,
      turnId,
      serverName: 'tiny',
      mode: 'form',
      _meta: {
        codex_approval_kind: 'mcp_tool_call',
        persist: ['session', 'always'],
        tool_description: 'Echo without annotations',
        tool_params: { text: 'hi', b: 1 },
        tool_params_display: [
          { name: 'b', value: 1, display_name: 'b' },
          { name: 'text', value: 'hi', display_name: 'text' },
        ],
      },
      message: 'Allow the tiny MCP server to run tool "plain"?',
      requestedSchema: { type: 'object', properties: {} },
    });
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'active', activeFlags: ['waitingOnApproval'] });
    await client.respond(request.id, { action: 'accept', content: {} });
    await turnCompleted(client, turnId, 20_000);
    const seq = turnMethods(client, turnId).filter((m) => m !== 'warning' && m !== 'thread/tokenUsage/updated');
    const at = seq.indexOf('item/started', seq.indexOf('item/completed'));
    expect(seq.slice(at, at + 5)).toEqual(['item/started', 'thread/status/changed', 'serverRequest/resolved', 'thread/status/changed', 'item/completed']);
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId, requestId: request.id }]);
    expect(mcpItems(client, 'item/completed')[0]).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'plain: hi' }] } });
  });

  it('declines: the item fails with the decline text and the tool does not run', async () => {
    const { h, client } = await open(tinyToml(), { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    h.model.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'no' })] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'call plain');
    const request = await client.waitForServerRequest('mcpServer/elicitation/request');
    await client.respond(request.id, { action: 'decline' });
    await turnCompleted(client, turnId, 20_000);
    expect(mcpItems(client, 'item/completed')[0]).toMatchObject({ status: 'failed', result: null, error: { message: 'user rejected MCP tool call' } });
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'idle' });
  });

  it('cancels the call when the only client disconnects, so the turn does not hang', async () => {
    const { h, client } = await open(tinyToml(), { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    const watcher = await h.connect({ name: 'watcher' });
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    h.model.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'x' })] }, { output: [text('done')] });
    const turnId = await startTurn(client, threadId, 'call plain');
    await client.waitForServerRequest('mcpServer/elicitation/request');
    await client.close();
    // The watcher is not subscribed; it still sees the thread go idle (a broadcast).
    await watcher.waitForNotification('thread/status/changed', (p) => p.threadId === threadId && (p.status as { type: string }).type !== 'active', 20_000);
    void turnId;
  });
});

describe('mcpServerStatus/list', () => {
  it('reports the live servers of the caller’s thread, sorted, with pagination and detail', async () => {
    const { client } = await open(`${tinyToml('zeta')}${tinyToml('alpha', 'disabled_tools = ["crash"]')}[mcp_servers.off]\ncommand = "nope"\nenabled = false\n`);
    const { id: threadId } = await startThread(client);
    await ready(client, 'zeta', threadId);
    await ready(client, 'alpha', threadId);
    const all = await client.call<{ data: Array<Record<string, unknown>>; nextCursor: string | null }>('mcpServerStatus/list', {});
    expect(all.data.map((s) => [s.name, s.startupStatus])).toEqual([
      ['alpha', 'ready'],
      ['off', 'disabled'],
      ['zeta', 'ready'],
    ]);
    expect(Object.keys(all.data[0]?.tools as object)).not.toContain('crash');
    expect(Object.keys(all.data[2]?.tools as object)).toContain('crash');
    expect(all.data[1]).toMatchObject({ tools: {}, resources: [], resourceTemplates: [], authStatus: 'unsupported' });
    expect(all.nextCursor).toBeNull();
    const page1 = await client.call<{ data: Array<{ name: string }>; nextCursor: string | null }>('mcpServerStatus/list', { limit: 2, detail: 'toolsAndAuthOnly' });
    expect(page1.data.map((s) => s.name)).toEqual(['alpha', 'off']);
    expect(page1.nextCursor).toBe('2');
    const page2 = await client.call<{ data: Array<{ name: string }>; nextCursor: string | null }>('mcpServerStatus/list', { cursor: '2', limit: 2 });
    expect(page2).toMatchObject({ data: [{ name: 'zeta' }], nextCursor: null });
  });

  it('answers at once from config when no thread is loaded, starting nothing', async () => {
    const { client } = await open(tinyToml());
    const before = Date.now();
    const result = await client.call<{ data: Array<Record<string, unknown>> }>('mcpServerStatus/list', {});
    expect(Date.now() - before).toBeLessThan(1000);
    expect(result.data).toEqual([{ name: 'tiny', tools: {}, resources: [], resourceTemplates: [], authStatus: 'unsupported' }]);
  });

  it('answers in well under a second while a slow server is still starting', async () => {
    const { client } = await open(`${slowTinyToml('slow', 3)}${tinyToml()}`);
    const { id: threadId } = await startThread(client);
    await ready(client, 'tiny', threadId);
    const before = Date.now();
    const result = await client.call<{ data: Array<Record<string, unknown>> }>('mcpServerStatus/list', {});
    expect(Date.now() - before).toBeLessThan(1000);
    expect(result.data.map((s) => [s.name, s.startupStatus])).toEqual([
      ['slow', 'starting'],
      ['tiny', 'ready'],
    ]);
    await ready(client, 'slow', threadId);
    const later = await client.call<{ data: Array<Record<string, unknown>> }>('mcpServerStatus/list', {});
    expect(later.data[0]).toMatchObject({ name: 'slow', startupStatus: 'ready', tools: { plain: { name: 'plain' } } });
  });
});

describe('mcpServer/tool/call', () => {
  it('calls on the thread’s live connection and maps every error row', async () => {
    const { client } = await open(tinyToml('tiny', 'disabled_tools = ["crash"]'));
    const { id: threadId } = await startThread(client);
    // No wait for ready: the call waits for a server still starting.
    expect(await client.call('mcpServer/tool/call', { threadId, server: 'tiny', tool: 'plain', arguments: { text: 'direct' } })).toEqual({
      content: [{ type: 'text', text: 'plain: direct' }],
    });
    const meta = await client.call<{ content: Array<{ text: string }> }>('mcpServer/tool/call', { threadId, server: 'tiny', tool: 'env' });
    expect(meta.content[0]?.text).toContain('{');
    const errorOf = async (params: Record<string, unknown>): Promise<unknown> => (await client.request('mcpServer/tool/call', params)).error;
    expect(await errorOf({ threadId, server: 'nosuch', tool: 'echo' })).toEqual({ code: -32603, message: "unknown MCP server 'nosuch'" });
    expect(await errorOf({ threadId, server: 'tiny', tool: 'crash' })).toEqual({ code: -32603, message: "tool 'crash' is disabled for MCP server 'tiny'" });
    expect(await errorOf({ threadId, server: 'tiny', tool: 'plain', arguments: [1, 2] })).toEqual({
      code: -32603,
      message: 'tool call failed for `tiny/plain`: MCP tool arguments must be a JSON object, got [1,2]',
    });
    const missing = '00000000-0000-0000-0000-000000000000';
    expect(await errorOf({ threadId: missing, server: 'tiny', tool: 'plain' })).toEqual({ code: -32600, message: `thread not found: ${missing}` });
    expect(await errorOf({ server: 'tiny', tool: 'plain' })).toMatchObject({ code: -32600, message: 'Invalid request: missing field `threadId`' });
    // No item, no approval: nothing about it went to the thread's subscribers.
    expect(client.notifications('item/started')).toEqual([]);
  });
});

describe('server elicitations', () => {
  it('forwards an elicitation during mcpServer/tool/call with turnId null and relays the answer', async () => {
    const { client } = await open(everythingToml, { approvalPolicy: 'on-request', sandbox: 'workspace-write' });
    const { id: threadId } = await startThread(client);
    await ready(client, 'everything', threadId);
    const listed = await client.call<{ data: Array<{ name: string; tools: Record<string, unknown> }> }>('mcpServerStatus/list', { detail: 'toolsAndAuthOnly' });
    const tool = Object.keys(listed.data[0]?.tools ?? {}).find((name) => name === 'trigger-elicitation-request' || name === 'startElicitation');
    expect(tool).toBeDefined();
    const call = client.call<{ content: Array<{ text?: string }> }>('mcpServer/tool/call', { threadId, server: 'everything', tool, arguments: {} });
    const request = await client.waitForServerRequest('mcpServer/elicitation/request', 1, 20_000);
    expect(request.params).toMatchObject({ threadId, turnId: null, serverName: 'everything', mode: 'form', _meta: null, requestedSchema: { type: 'object' } });
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'active', activeFlags: ['waitingOnApproval'] });
    await client.respond(request.id, { action: 'decline' });
    const result = await call;
    expect(JSON.stringify(result.content)).toMatch(/decline/i);
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId, requestId: request.id }]);
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'idle' });
  }, 60_000);
});

describe('mcpServer/resource/read', () => {
  it('reads on the thread’s connection, on a temporary one without threadId, and words failures as the reference', async () => {
    const { client } = await open(everythingToml);
    const { id: threadId } = await startThread(client);
    const uri = 'demo://resource/dynamic/text/1';
    const onThread = await client.call<{ contents: Array<Record<string, unknown>> }>('mcpServer/resource/read', { threadId, server: 'everything', uri });
    expect(onThread.contents[0]).toMatchObject({ uri, mimeType: 'text/plain', text: expect.stringContaining('Resource 1') });
    const temporary = await client.call<{ contents: Array<Record<string, unknown>> }>('mcpServer/resource/read', { server: 'everything', uri });
    expect(temporary.contents[0]).toMatchObject({ uri, text: expect.stringContaining('Resource 1') });
    const failed = await client.request('mcpServer/resource/read', { threadId, server: 'everything', uri: 'demo://nope' });
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^resources\/read failed for `everything` \(demo:\/\/nope\): Mcp error: -?\d+: /) });
  }, 60_000);
});

describe('config/mcpServer/reload', () => {
  it('re-reads config.toml and applies it to a loaded thread at its next turn/start', async () => {
    const { h, client } = await open(tinyToml('old'));
    const { id: threadId } = await startThread(client);
    await ready(client, 'old', threadId);
    await writeFile(join(h.temp.home, 'config.toml'), testConfigToml(h.model.url, { topToml: 'mcp_startup_grace_ms = 20000', extraToml: tinyToml('late') }));
    expect(await client.call('config/mcpServer/reload', {})).toEqual({});
    expect(await client.call('config/mcpServer/reload')).toEqual({});
    // Until the next turn the old servers serve.
    expect((await client.request('mcpServer/tool/call', { threadId, server: 'late', tool: 'plain' })).error).toMatchObject({ message: "unknown MCP server 'late'" });
    await client.call('mcpServer/tool/call', { threadId, server: 'old', tool: 'plain' });
    const turnId = await startTurn(client, threadId, 'hello after reload');
    await turnCompleted(client, turnId, 20_000);
    await ready(client, 'late', threadId);
    expect(await client.call('mcpServer/tool/call', { threadId, server: 'late', tool: 'plain', arguments: { text: 'x' } })).toEqual({ content: [{ type: 'text', text: 'plain: x' }] });
    expect((await client.request('mcpServer/tool/call', { threadId, server: 'old', tool: 'plain' })).error).toMatchObject({ message: "unknown MCP server 'old'" });
  }, 60_000);
});

describe('mcpServer/event/stream/*', () => {
  const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
  const LONG = 'trigger-long-running-operation';
  type Event = { subscriptionId: string; notification: { method: string; params: Record<string, unknown> } };
  const events = (client: WireClient, subscriptionId: string): Event[] =>
    client.notifications('mcpServer/event/stream/notification').map((n) => n.params as Event).filter((e) => e.subscriptionId === subscriptionId);
  const terminated = (client: WireClient, subscriptionId: string) =>
    client.waitUntil(() => events(client, subscriptionId).some((e) => e.notification.method === 'notifications/events/terminated') || undefined, `${subscriptionId} terminated`, 20_000);

  it('forwards the server’s notifications of the streaming call to the caller alone, then terminated', async () => {
    const { h: harnessOf } = await open(everythingToml);
    const client = await harnessOf.connect({ capabilities: CURRENT });
    const other = await harnessOf.connect({ capabilities: CURRENT });
    const { id: threadId } = await startThread(client);
    await ready(client, 'everything', threadId);
    const start = { threadId, server: 'everything', name: LONG, arguments: { duration: 0.4, steps: 4 }, subscriptionId: 'sub-1' };
    expect(await client.call('mcpServer/event/stream/start', start)).toEqual({});
    await terminated(client, 'sub-1');
    expect(events(client, 'sub-1').map((e) => e.notification)).toEqual([
      ...[1, 2, 3, 4].map((progress) => ({ method: 'notifications/progress', params: { progress, total: 4 } })),
      { method: 'notifications/events/terminated', params: {} },
    ]);
    expect(other.notifications('mcpServer/event/stream/notification')).toEqual([]);
    // The ended stream is gone: its id may be used again.
    expect(await client.call('mcpServer/event/stream/start', { ...start, arguments: { duration: 0.1, steps: 1 } })).toEqual({});
  });

  it('stops a running stream (cancelling the call), idempotently, and refuses bad requests', async () => {
    const { h: harnessOf } = await open(everythingToml);
    const client = await harnessOf.connect({ capabilities: CURRENT });
    const { id: threadId } = await startThread(client);
    await ready(client, 'everything', threadId);
    const base = { threadId, server: 'everything', name: LONG };
    await client.call('mcpServer/event/stream/start', { ...base, arguments: { duration: 60, steps: 120 }, subscriptionId: 'long' });
    await client.waitUntil(() => events(client, 'long').length > 0 || undefined, 'first progress', 20_000);
    const errorOf = async (params: Record<string, unknown>, on: WireClient = client) => (await on.request('mcpServer/event/stream/start', params)).error;
    expect(await errorOf({ ...base, arguments: {}, subscriptionId: 'long' })).toMatchObject({ code: -32600, message: "MCP event subscription 'long' already exists" });
    expect(await client.call('mcpServer/event/stream/stop', { subscriptionId: 'long' })).toEqual({});
    expect(await client.call('mcpServer/event/stream/stop', { subscriptionId: 'long' })).toEqual({});
    expect(await client.call('mcpServer/event/stream/stop', { subscriptionId: 'never-started' })).toEqual({});
    const seen = events(client, 'long').length;
    // Calls to this server run one at a time: a second stream can only finish once the first call was cancelled.
    await client.call('mcpServer/event/stream/start', { ...base, arguments: { duration: 0.2, steps: 2 }, subscriptionId: 'after' });
    await terminated(client, 'after');
    expect(events(client, 'long')).toHaveLength(seen);
    expect(events(client, 'long').every((e) => e.notification.method === 'notifications/progress')).toBe(true);

    expect(await errorOf({ ...base, arguments: [1], subscriptionId: 'x' })).toMatchObject({ code: -32600, message: 'MCP event request arguments must be a JSON object, got [1]' });
    expect(await errorOf({ ...base, arguments: {}, _meta: 'm', subscriptionId: 'x' })).toMatchObject({ code: -32600 });
    expect(await errorOf({ ...base, server: 'nope', arguments: {}, subscriptionId: 'x' })).toMatchObject({ code: -32603, message: "unknown MCP server 'nope'" });
    expect((await errorOf({ ...base, arguments: {} }))?.code).toBe(-32600);
    const stable = await harnessOf.connect({ capabilities: { requestAttestation: false } });
    expect(await errorOf({ ...base, arguments: {}, subscriptionId: 'x' }, stable)).toMatchObject({ code: -32600, message: 'mcpServer/event/stream/start requires experimentalApi capability' });
  });
});
