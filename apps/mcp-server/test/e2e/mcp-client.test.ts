/**
 * The MCP client runtime through `deputy mcp-server` (the built bundle): a `codex` call on a home
 * whose `[mcp_servers.tiny]` runs the engine's tiny test server, and whose scripted model calls
 * that server's tool, streams the start-up report (`mcp_startup_update`, `mcp_startup_complete`
 * under id "") and the call (`mcp_tool_call_begin` / `mcp_tool_call_end` under the turn's id) in
 * Codex's shapes (docs/mcp-server.md, "Events and progress").
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, text } from '@deputy/test-support';
import { startHarness, type Harness } from '../helpers/harness.js';
import { RawClient } from '../helpers/raw-client.js';

/** The engine's fixture server, used in place (not copied). */
const TINY = fileURLToPath(new URL('../../../../packages/engine/test/mcp/fixtures/tiny-server.mjs', import.meta.url));

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ extraToml: ['[mcp_servers.tiny]', `command = ${JSON.stringify(process.execPath)}`, `args = [${JSON.stringify(TINY)}]`].join('\n') });
});

afterAll(async () => {
  await harness?.close();
});

describe('a codex call whose model calls an MCP tool', () => {
  it('reports the start-up and the call as codex/event', async () => {
    harness.model.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'hi' }, 'call_mcp_1')] }, { output: [text('tool said plain: hi')] });
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await raw.initialize();
      const response = await raw.request(3, 'tools/call', { name: 'codex', arguments: { prompt: 'use the tool', cwd: harness.temp.cwd } }, 30_000);
      expect((response.result as { content: { text: string }[] }).content[0]!.text).toBe('tool said plain: hi');
      const notes = raw.messages.filter((m) => m.method === 'codex/event');
      const msgs = raw.events(3);
      const types = msgs.map((m) => m.type as string);

      // Start-up: updates for tiny, then one complete with it ready, all under id "" and before the turn's end.
      const updates = msgs.filter((m) => m.type === 'mcp_startup_update');
      expect(updates.length).toBeGreaterThanOrEqual(1);
      for (const u of updates) expect(u.server).toBe('tiny');
      expect(updates.at(-1)).toEqual({ type: 'mcp_startup_update', server: 'tiny', status: { state: 'ready' } });
      expect(msgs.filter((m) => m.type === 'mcp_startup_complete')).toEqual([{ type: 'mcp_startup_complete', ready: ['tiny'], failed: [], cancelled: [] }]);
      expect(types.indexOf('mcp_startup_complete')).toBeGreaterThan(types.lastIndexOf('mcp_startup_update'));
      for (const note of notes) {
        const type = (note.params?.msg as { type: string }).type;
        if (type.startsWith('mcp_startup')) expect(note.params?.id).toBe('');
      }

      // The call.
      const invocation = { server: 'tiny', tool: 'plain', arguments: { text: 'hi' } };
      const begin = msgs.find((m) => m.type === 'mcp_tool_call_begin');
      const end = msgs.find((m) => m.type === 'mcp_tool_call_end') as Record<string, unknown> & { duration: { secs: number; nanos: number } };
      expect(begin).toEqual({ type: 'mcp_tool_call_begin', call_id: 'call_mcp_1', invocation });
      expect(end).toMatchObject({ call_id: 'call_mcp_1', invocation, result: { Ok: { content: [{ type: 'text', text: 'plain: hi' }] } } });
      expect(Number.isInteger(end.duration.secs) && Number.isInteger(end.duration.nanos)).toBe(true);
      expect(types.indexOf('mcp_tool_call_begin')).toBeLessThan(types.indexOf('mcp_tool_call_end'));
      expect(types.indexOf('mcp_tool_call_end')).toBeLessThan(types.indexOf('task_complete'));
      for (const note of notes) {
        const type = (note.params?.msg as { type: string }).type;
        if (type.startsWith('mcp_tool_call')) expect(note.params?.id).toBe('3');
      }
    } finally {
      await raw.kill();
    }
  }, 60_000);
});

describe('approval of an MCP tool call, as an elicitation', () => {
  /** Starts a `codex` call under `untrusted` (so the un-annotated tool asks) on `raw`. */
  function startCall(raw: RawClient, id: number): void {
    harness.model.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'ask' }, `call_ask_${id}`)] }, { output: [text('after the tool')] });
    raw.write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'use the tool', 'approval-policy': 'untrusted', cwd: harness.temp.cwd } } });
  }
  const endOf = (raw: RawClient, id: number) => raw.events(id).find((m) => m.type === 'mcp_tool_call_end');

  it('asks with the engine message and codex_* fields; accept runs the tool, decline does not', async () => {
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await raw.initialize({ elicitation: {} });
      startCall(raw, 11);
      const ask = await raw.waitFor((m) => m.method === 'elicitation/create', 20_000, 'elicitation/create');
      expect(ask.params).toMatchObject({
        message: 'Allow the tiny MCP server to run tool "plain"?',
        requestedSchema: { type: 'object', properties: {} },
        codex_elicitation: 'mcp-tool-call-approval',
        codex_mcp_tool_call_id: '11',
        codex_event_id: '11',
        codex_call_id: 'call_ask_11',
        codex_mcp_server: 'tiny',
        codex_mcp_tool: 'plain',
        codex_mcp_arguments: { text: 'ask' },
      });
      raw.write({ jsonrpc: '2.0', id: ask.id as number, result: { action: 'accept', content: {} } });
      await raw.response(11, 30_000);
      expect(endOf(raw, 11)).toMatchObject({ result: { Ok: { content: [{ type: 'text', text: 'plain: ask' }] } } });

      const seen = raw.messages.length;
      startCall(raw, 12);
      const second = await raw.waitFor((m) => raw.messages.indexOf(m) >= seen && m.method === 'elicitation/create', 20_000, 'second elicitation/create');
      raw.write({ jsonrpc: '2.0', id: second.id as number, result: { action: 'decline' } });
      await raw.response(12, 30_000);
      expect(endOf(raw, 12)).toMatchObject({ result: { Err: expect.stringMatching(/rejected/) } });
    } finally {
      await raw.kill();
    }
  }, 60_000);

  it('resolves by approval_fallback, with a warning, when the client cannot elicit', async () => {
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await raw.initialize({});
      startCall(raw, 21);
      await raw.response(21, 30_000);
      expect(raw.messages.some((m) => m.method === 'elicitation/create')).toBe(false);
      const events = raw.events(21);
      expect(events.find((m) => m.type === 'warning' && String(m.message).includes('the MCP tool call `tiny.plain` was denied by mcp_server.approval_fallback = "deny"'))).toBeDefined();
      expect(events.find((m) => m.type === 'mcp_tool_call_end')).toMatchObject({ result: { Err: expect.any(String) } });
    } finally {
      await raw.kill();
    }
  }, 60_000);
});
