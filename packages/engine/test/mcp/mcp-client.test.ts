/**
 * MCP client end to end: real stdio servers (the npm everything server and a tiny node script)
 * configured in config.toml, driven by real turns against the scripted model. Every child is
 * killed by closing the engine.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { functionCall, text } from '@deputy/test-support';
import { collect, waitFor } from '../helpers/engine.js';
import { engineOpener, everythingBin, node, outputOf, tiny } from './servers.js';

const open = engineOpener();

const tinyServer = (name: string, extra = '', args = '') => `[mcp_servers.${name}]\ncommand = ${node}\nargs = [${JSON.stringify(tiny)}${args}]\n${extra}\n`;

describe('MCP client', () => {
  it('offers a namespace per ready server and runs a model-driven echo with the reference layout', async () => {
    const engine = await open(`[mcp_servers.everything]\ncommand = ${node}\nargs = [${JSON.stringify(everythingBin)}, "stdio"]\nstartup_timeout_sec = 20\n`, {}, 'mcp_startup_grace_ms = 20000');
    const call = functionCall('mcp__everything__echo', { message: 'hi' });
    engine.server.enqueue({ output: [call] }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'echo hi' }]).done;
    expect(turn.status).toBe('completed');

    const tools = (engine.server.requests[0]?.body as { tools: { type: string; name: string; tools?: { name: string }[] }[] }).tools;
    const ns = tools.find((t) => t.type === 'namespace');
    expect(ns?.name).toBe('mcp__everything__');
    expect(ns?.tools?.map((t) => t.name)).toContain('echo');
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource']));

    expect(outputOf(engine, call.callId)).toMatch(/^Wall time: \d+\.\d{4} seconds\nOutput:\n\[\{"type":"text","text":"Echo: hi"\}\]$/);
    const done = events.find((e) => e.type === 'item.completed' && e.item.type === 'mcpToolCall');
    expect(done).toMatchObject({ item: { type: 'mcpToolCall', server: 'everything', tool: 'echo', status: 'completed', arguments: { message: 'hi' } } });
    expect(thread.mcpServerStatuses()).toMatchObject([{ name: 'everything', status: 'ready', error: null }]);
  }, 30_000);

  it('does not hold the first turn past the grace for a server that never starts', async () => {
    const engine = await open(`[mcp_servers.sleepy]\ncommand = "sleep"\nargs = ["30"]\n`, {}, 'mcp_startup_grace_ms = 300');
    engine.server.enqueue({ output: [text('hello')] });
    const started = Date.now();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect(Date.now() - started).toBeLessThan(1000);
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    expect(turn.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(thread.mcpServerStatuses()).toMatchObject([{ name: 'sleepy', status: 'starting' }]);
    await engine.manager.unload(thread.id);
    expect(events.some((e) => e.type === 'mcp.serverStatus' && e.status === 'cancelled')).toBe(true);
  }, 15_000);

  it('offers readable tool names for a long server name with mcp_readable_long_names = true', async () => {
    const name = 'a_very_long_server_name_for_the_company_wide_issue_tracker'; // 57 chars
    const engine = await open(tinyServer(name), {}, 'mcp_startup_grace_ms = 10000\nmcp_readable_long_names = true');
    engine.server.enqueue({ output: [text('hello')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    const tools = (engine.server.requests[0]?.body as { tools: { type: string; name: string; tools?: { name: string }[] }[] }).tools;
    const ns = tools.find((t) => t.type === 'namespace');
    expect(ns?.name).toMatch(/^mcp__a_very_long_server_na_[0-9a-f]{12}__$/);
    expect(ns?.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(['plain', 'sleep', 'roots']));
  }, 15_000);

  it('fails thread start for a required server with its stderr tail', async () => {
    const engine = await open(tinyServer('db', 'required = true', ', "--fail-start"'));
    await expect(engine.manager.start({ cwd: engine.temp.cwd })).rejects.toThrow(
      /required MCP servers failed to initialize: db: MCP client for `db` failed to start: MCP startup failed: .*tiny: cannot start: missing database/,
    );
    expect(engine.manager.loaded()).toHaveLength(0);
  }, 15_000);

  it('reports a bad server name as that server failing', async () => {
    const engine = await open(`[mcp_servers."bad.name"]\ncommand = "true"\n${tinyServer('good')}`);
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await waitFor(() => thread.mcpServerStatuses().every((s) => s.status !== 'starting'));
    const statuses = thread.mcpServerStatuses();
    expect(statuses.find((s) => s.name === 'bad.name')).toMatchObject({
      status: 'failed',
      error: "MCP client for `bad.name` failed to start: MCP startup failed: Invalid MCP server name 'bad.name': must match pattern ^[a-zA-Z0-9_-]+$",
    });
    expect(statuses.find((s) => s.name === 'good')?.status).toBe('ready');
  }, 15_000);

  it('fails a call cleanly when the server crashes, and withdraws its tools', async () => {
    const engine = await open(tinyServer('tiny', 'default_tools_approval_mode = "approve"'), {}, 'mcp_startup_grace_ms = 10000');
    const call = functionCall('mcp__tiny__crash', {});
    engine.server.enqueue({ output: [call] }, { output: [text('after crash')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'crash it' }]).done;
    expect(turn.status).toBe('completed');
    expect(outputOf(engine, call.callId)).toMatch(/tool call error: tool call failed for `tiny\/crash`/);
    expect(events.find((e) => e.type === 'item.completed' && e.item.type === 'mcpToolCall')).toMatchObject({ item: { status: 'failed' } });
    await waitFor(() => thread.mcpServerStatuses()[0]?.status === 'failed');
    const second = (engine.server.requests[1]?.body as { tools: { type: string }[] }).tools;
    expect(second.some((t) => t.type === 'namespace')).toBe(false);
  }, 15_000);

  it('sends notifications/cancelled when a call times out', async () => {
    const log = join(process.env.TMPDIR ?? '/tmp', `tiny-${process.pid}-${Date.now()}.log`);
    const engine = await open(tinyServer('tiny', `tool_timeout_sec = 0.5\ndefault_tools_approval_mode = "approve"\nenv = { TINY_LOG = ${JSON.stringify(log)} }`), {}, 'mcp_startup_grace_ms = 10000');
    const call = functionCall('mcp__tiny__slow', {});
    engine.server.enqueue({ output: [call] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'slow' }]).done;
    expect(outputOf(engine, call.callId)).toContain('timed out awaiting tools/call after 0.5s');
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('notifications/cancelled'));
    const calls = (await readFile(log, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { call?: string; params?: { _meta?: Record<string, unknown> } });
    const meta = calls.find((c) => c.call === 'slow')?.params?._meta;
    expect(meta).toMatchObject({ threadId: thread.id, 'x-codex-turn-metadata': { thread_id: thread.id, session_id: thread.id, sandbox: 'none', model: 'gpt-5.2-codex' } });
    expect(typeof meta?.progressToken).toBe('number');
  }, 15_000);

  it('adds codex/sandbox-state-meta to _meta only for a server that declares the capability', async () => {
    const logs = { meta: '', bare: '' };
    for (const k of Object.keys(logs) as (keyof typeof logs)[]) logs[k] = join(process.env.TMPDIR ?? '/tmp', `tiny-${k}-${process.pid}-${Date.now()}.log`);
    const approve = (log: string) => `default_tools_approval_mode = "approve"\nenv = { TINY_LOG = ${JSON.stringify(log)} }`;
    const engine = await open(tinyServer('meta', approve(logs.meta), ', "--sandbox-meta"') + tinyServer('bare', approve(logs.bare)), { approvalPolicy: 'never', sandbox: 'workspace-write' }, 'mcp_startup_grace_ms = 10000');
    engine.server.enqueue({ output: [functionCall('mcp__meta__plain', { text: 'a' }), functionCall('mcp__bare__plain', { text: 'b' })] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect((await thread.startTurn([{ type: 'text', text: 'go' }]).done).status).toBe('completed');
    const metaOf = async (log: string) =>
      (await readFile(log, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { call?: string; params?: { _meta?: Record<string, unknown> } }).find((c) => c.call === 'plain')?.params?._meta;
    const withState = await metaOf(logs.meta);
    expect(withState).toMatchObject({ threadId: thread.id, 'x-codex-turn-metadata': { sandbox: 'seccomp' } });
    // The profile's full entry list is the MCP server's `permission_profile` (its unit tests).
    const special = (kind: string, access: string, subpath?: string) => ({ path: { type: 'special', value: { kind, ...(subpath ? { subpath } : {}) } }, access });
    expect(withState?.['codex/sandbox-state-meta']).toEqual({
      permissionProfile: {
        type: 'managed',
        file_system: { type: 'restricted', entries: expect.arrayContaining([special('root', 'read'), special('project_roots', 'write'), special('project_roots', 'read', '.git')]) },
        network: 'restricted',
      },
      sandboxPolicy: { type: 'workspace-write', writable_roots: [], network_access: false, exclude_tmpdir_env_var: false, exclude_slash_tmp: false },
      codexLinuxSandboxExe: null,
      sandboxCwd: engine.temp.cwd,
      useLegacyLandlock: false,
    });
    const without = await metaOf(logs.bare);
    expect(without).toMatchObject({ threadId: thread.id });
    expect(without).not.toHaveProperty('codex/sandbox-state-meta');
  }, 20_000);

  it('completes the item and sends notifications/cancelled when the turn is interrupted mid-call', async () => {
    const log = join(process.env.TMPDIR ?? '/tmp', `tiny-int-${process.pid}-${Date.now()}.log`);
    const engine = await open(tinyServer('tiny', `default_tools_approval_mode = "approve"\nenv = { TINY_LOG = ${JSON.stringify(log)} }`), {}, 'mcp_startup_grace_ms = 10000');
    engine.server.enqueue({ output: [functionCall('mcp__tiny__slow', {})] }, { output: [text('never')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.startTurn([{ type: 'text', text: 'slow' }]);
    await waitFor(() => events.some((e) => e.type === 'item.started' && e.item.type === 'mcpToolCall'), 10_000, 'the call to start');
    await thread.interrupt();
    const turn = await handle.done;
    expect(turn.status).toBe('interrupted');
    expect(events.find((e) => e.type === 'item.completed' && e.item.type === 'mcpToolCall')).toBeDefined();
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('notifications/cancelled'), 10_000, 'the cancellation');
  }, 20_000);

  it('runs calls to a parallel server (or read-only tools) concurrently and any other call alone, outputs in the model order', async () => {
    type Span = { ms: number; startedAt: number; endedAt: number };
    const run = async (parallel: boolean, tool = 'sleep'): Promise<{ spans: Span[]; completed: string[]; outputs: string[]; ids: string[] }> => {
      const log = join(process.env.TMPDIR ?? '/tmp', `tiny-par-${parallel}-${process.pid}-${Date.now()}.log`);
      const extra = `default_tools_approval_mode = "approve"\nsupports_parallel_tool_calls = ${parallel}\nenv = { TINY_LOG = ${JSON.stringify(log)} }`;
      const engine = await open(tinyServer('tiny', extra), {}, 'mcp_startup_grace_ms = 10000');
      // The first call is the slow one: in parallel it ends after the second.
      const calls = [functionCall(`mcp__tiny__${tool}`, { ms: 700 }), functionCall(`mcp__tiny__${tool}`, { ms: 200 })];
      engine.server.enqueue({ output: calls }, { output: [text('done')] });
      const thread = await engine.manager.start({ cwd: engine.temp.cwd });
      const events = collect(thread);
      expect((await thread.startTurn([{ type: 'text', text: 'sleep twice' }]).done).status).toBe('completed');
      const lines = (await readFile(log, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { slept?: Span });
      const input = (engine.server.requests[1]?.body as { input: { type: string; call_id?: string }[] }).input;
      return {
        spans: lines.flatMap((l) => (l.slept ? [l.slept] : [])),
        completed: events.flatMap((e) => (e.type === 'item.completed' && e.item.type === 'mcpToolCall' ? [e.item.id] : [])),
        outputs: input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id ?? ''),
        ids: calls.map((c) => c.callId),
      };
    };
    const serial = await run(false);
    const [s700, s200] = [serial.spans.find((s) => s.ms === 700)!, serial.spans.find((s) => s.ms === 200)!];
    expect(s200.startedAt).toBeGreaterThanOrEqual(s700.endedAt);
    expect(serial.completed).toEqual(serial.ids);
    expect(serial.outputs).toEqual(serial.ids);

    // A parallel server, and a tool annotated readOnlyHint on a serial one, overlap.
    for (const par of [await run(true), await run(false, 'peek')]) {
      const [p700, p200] = [par.spans.find((s) => s.ms === 700)!, par.spans.find((s) => s.ms === 200)!];
      // The server saw both calls at once: the short one started and ended inside the long one.
      expect(p200.startedAt).toBeLessThan(p700.endedAt);
      expect(p200.endedAt).toBeLessThan(p700.endedAt);
      // Items complete as the calls really end; the model still reads the outputs in its own order.
      expect(par.completed).toEqual([...par.ids].reverse());
      expect(par.outputs).toEqual(par.ids);
    }
  }, 30_000);

  it('runs a call to a serial server alone between parallel calls', async () => {
    type Span = { ms: number; startedAt: number; endedAt: number };
    const log = join(process.env.TMPDIR ?? '/tmp', `tiny-mix-${process.pid}-${Date.now()}.log`);
    const env = `default_tools_approval_mode = "approve"\nenv = { TINY_LOG = ${JSON.stringify(log)} }`;
    const engine = await open(tinyServer('par', `${env}\nsupports_parallel_tool_calls = true`) + tinyServer('ser', env), {}, 'mcp_startup_grace_ms = 10000');
    const calls = [
      functionCall('mcp__par__sleep', { ms: 400 }),
      functionCall('mcp__par__sleep', { ms: 150 }),
      functionCall('mcp__ser__sleep', { ms: 120 }),
      functionCall('mcp__par__sleep', { ms: 100 }),
    ];
    engine.server.enqueue({ output: calls }, { output: [text('done')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect((await thread.startTurn([{ type: 'text', text: 'mix' }]).done).status).toBe('completed');
    const spans = (await readFile(log, 'utf8')).split('\n').filter(Boolean).flatMap((l) => (JSON.parse(l) as { slept?: Span }).slept ?? []);
    const by = (ms: number) => spans.find((s) => s.ms === ms)!;
    expect(by(150).startedAt).toBeLessThan(by(400).endedAt); // the first two overlap
    expect(by(120).startedAt).toBeGreaterThanOrEqual(Math.max(by(400).endedAt, by(150).endedAt)); // the serial call waits for both
    expect(by(100).startedAt).toBeGreaterThanOrEqual(by(120).endedAt); // and the next one waits for it
    const input = (engine.server.requests[1]?.body as { input: { type: string; call_id?: string }[] }).input;
    expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(calls.map((c) => c.callId));
  }, 20_000);

  it('completes every in-flight parallel call and cancels each on the server when the turn is interrupted', async () => {
    const log = join(process.env.TMPDIR ?? '/tmp', `tiny-par-int-${process.pid}-${Date.now()}.log`);
    const engine = await open(tinyServer('tiny', `default_tools_approval_mode = "approve"\nsupports_parallel_tool_calls = true\nenv = { TINY_LOG = ${JSON.stringify(log)} }`), {}, 'mcp_startup_grace_ms = 10000');
    engine.server.enqueue({ output: [functionCall('mcp__tiny__slow', {}), functionCall('mcp__tiny__slow', {})] }, { output: [text('never')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.startTurn([{ type: 'text', text: 'slow twice' }]);
    const startedCalls = () => events.filter((e) => e.type === 'item.started' && e.item.type === 'mcpToolCall').length;
    await waitFor(() => startedCalls() === 2, 10_000, 'both calls to start');
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).split('"call":"slow"').length === 3, 10_000, 'the server to see both calls');
    await thread.interrupt();
    expect((await handle.done).status).toBe('interrupted');
    const completed = events.filter((e) => e.type === 'item.completed' && e.item.type === 'mcpToolCall');
    expect(completed).toHaveLength(2);
    expect(completed.every((e) => e.type === 'item.completed' && e.item.type === 'mcpToolCall' && e.item.status === 'failed' && e.item.error === 'interrupted')).toBe(true);
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).split('notifications/cancelled').length === 3, 10_000, 'both cancellations');
  }, 20_000);

  it('declines a gated call at once under never (no prompt) and asks under untrusted', async () => {
    const never = await open(tinyServer('tiny'), { approvalPolicy: 'never', sandbox: 'workspace-write' }, 'mcp_startup_grace_ms = 10000');
    const call = functionCall('mcp__tiny__plain', { text: 'x' });
    never.server.enqueue({ output: [call] }, { output: [text('ok')] });
    const t1 = await never.manager.start({ cwd: never.temp.cwd });
    await t1.startTurn([{ type: 'text', text: 'go' }]).done;
    expect(outputOf(never, call.callId)).toContain('MCP tool call needs approval but the approval policy is never; allow it with approval_mode = \\"approve\\"');
    expect(never.approvals.requests).toHaveLength(0);

    const untrusted = await open(tinyServer('tiny'), { approvalPolicy: 'untrusted', sandbox: 'workspace-write' }, 'mcp_startup_grace_ms = 10000');
    const asked: unknown[] = [];
    untrusted.runtime.approvals.requestMcpToolCall = async (request) => {
      asked.push(request);
      return 'denied';
    };
    const call2 = functionCall('mcp__tiny__plain', { text: 'y' });
    untrusted.server.enqueue({ output: [call2] }, { output: [text('ok')] });
    const t2 = await untrusted.manager.start({ cwd: untrusted.temp.cwd });
    await t2.startTurn([{ type: 'text', text: 'go' }]).done;
    expect(asked).toMatchObject([{ kind: 'mcpToolCall', server: 'tiny', tool: 'plain', message: 'Allow the tiny MCP server to run tool "plain"?', canRemember: true }]);
    expect(outputOf(untrusted, call2.callId)).toContain('user rejected MCP tool call');
  }, 20_000);

  it('gives the child no *_API_KEY of the parent, only the allow-list and env', async () => {
    process.env.SECRET_TEST_API_KEY = 'leak';
    try {
      const engine = await open(tinyServer('tiny', 'default_tools_approval_mode = "approve"\nenv = { EXTRA = "1" }'), {}, 'mcp_startup_grace_ms = 10000');
      const call = functionCall('mcp__tiny__env', {});
      engine.server.enqueue({ output: [call] }, { output: [text('ok')] });
      const thread = await engine.manager.start({ cwd: engine.temp.cwd });
      await thread.startTurn([{ type: 'text', text: 'env' }]).done;
      const out = String(outputOf(engine, call.callId));
      expect(out).not.toContain('API_KEY');
      expect(out).toContain('EXTRA');
      expect(out).toContain('PATH');
    } finally {
      delete process.env.SECRET_TEST_API_KEY;
    }
  }, 15_000);
});
