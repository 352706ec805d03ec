/**
 * `deputy acp` end to end (docs/acp.md): the built CLI as a child process, a client on the SDK,
 * the scripted model. Every stdout frame is checked against the SDK's JSON Schema. Covers the
 * handshake, streaming, a command and a patch through `session/request_permission` (asserted on
 * the files), cancel, replay equality after `session/load`, list, errors, stdin EOF.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { waitFor } from '@deputy/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useReferenceMock } from '../../../mcp-server/test/helpers/mock-model.js';
import { startEnv, transcript, withAcp, type Client, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv('approval_policy = "untrusted"\nsandbox_mode = "danger-full-access"');
  useReferenceMock(env.model);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

afterEach(async () => {
  for (const f of ['made.txt', 'hello.txt']) await rm(join(env.temp.cwd, f), { force: true });
});

const newSession = (c: Client) => c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });

/** Updates of a session that arrived after its last prompt response. */
function updatesAfterResponse(c: Client, sessionId: string): number {
  const last = c.rec.timeline.findLastIndex((e) => e.kind === 'response' && e.sessionId === sessionId);
  return c.rec.timeline.slice(last + 1).filter((e) => e.kind === 'update' && e.n.sessionId === sessionId).length;
}

describe('deputy acp', () => {
  it('answers initialize with v1, its capabilities and agent info', async () => {
    await withAcp(env, async (c) => {
      expect(c.init.protocolVersion).toBe(1);
      expect(c.init.agentInfo).toMatchObject({ name: 'deputy', title: 'Deputy' });
      expect(c.init.agentCapabilities).toMatchObject({
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
      });
      expect(c.invalid).toEqual([]);
    });
  });

  it('creates a session for an absolute cwd, with modes and config options, and refuses a relative one', async () => {
    await withAcp(env, async (c) => {
      const session = await newSession(c);
      expect(session.sessionId).toMatch(/\S/);
      // The config matches no preset (untrusted + full access), so a `custom` mode reflects it.
      expect(session.modes?.currentModeId).toBe('custom');
      expect(session.modes?.availableModes.map((m) => m.id)).toEqual(['read-only', 'auto', 'full-access', 'custom']);
      expect(session.configOptions?.map((o) => o.id)).toEqual(['mode', 'model', 'reasoning_effort']);
      await expect(c.agent.request(acp.methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
      await expect(c.prompt('no-such-session', 'hi')).rejects.toMatchObject({ code: -32002 });
      expect(c.invalid).toEqual([]);
    });
  });

  it('streams the answer as agent message chunks with one messageId, then end_turn', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      const response = await c.prompt(sessionId, 'hello there');
      expect(response.stopReason).toBe('end_turn');
      expect(response._meta).toMatchObject({ deputy: { threadId: sessionId, turnId: expect.any(String) } });
      const chunks = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'agent_message_chunk');
      expect(chunks.length).toBeGreaterThan(0);
      expect(new Set(chunks.map((u) => (u as { messageId?: string }).messageId)).size).toBe(1);
      expect(chunks.map((u) => (u.content.type === 'text' ? u.content.text : '')).join('')).toBe('ECHO: hello there');
      expect(updatesAfterResponse(c, sessionId)).toBe(0);
      expect(c.invalid).toEqual([]);
    });
  });

  it('asks permission for a command, runs it when allowed, and shows it as an execute tool call', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'approved' } });
      const response = await c.prompt(sessionId, 'run: touch made.txt');
      expect(response.stopReason).toBe('end_turn');
      expect(existsSync(join(env.temp.cwd, 'made.txt'))).toBe(true);
      const [request] = c.rec.permissions;
      expect(request?.sessionId).toBe(sessionId);
      expect(request?.toolCall).toMatchObject({ kind: 'execute', status: 'pending', title: expect.stringContaining('touch made.txt') });
      expect(request?.options.map((o) => o.optionId)).toEqual(expect.arrayContaining(['approved', 'approved_for_session', 'denied', 'abort']));
      const calls = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
      // The tool call is shown (pending) before the permission is asked, under the same id.
      expect(calls[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'execute', status: 'pending', toolCallId: request?.toolCall.toolCallId, title: expect.stringContaining('touch made.txt') });
      expect(new Set(calls.map((u) => (u as { toolCallId: string }).toolCallId)).size).toBe(1);
      expect(calls.at(-1)).toMatchObject({ status: 'completed', rawOutput: { exitCode: 0 } });
      expect(c.invalid).toEqual([]);
    });
  });

  it('streams command output while it runs, coalesced, then the whole output with the final status', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      await c.prompt(sessionId, 'run: for i in 1 2 3 4; do echo line$i; sleep 0.4; done');
      const updates = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update');
      const final = updates.at(-1);
      expect(final).toMatchObject({ status: 'completed' });
      const finalText = JSON.stringify(final?.content);
      for (const n of [1, 2, 3, 4]) expect(finalText).toContain(`line${n}`);
      const partial = updates.slice(0, -1).filter((u) => u.content && !u.status);
      expect(partial.length).toBeGreaterThan(0);
      expect(JSON.stringify(partial[0]?.content)).toContain('line1');
      // About 1.6 s of output at most five updates a second per command.
      expect(partial.length).toBeLessThanOrEqual(10);
      expect(c.invalid).toEqual([]);
    });
  });

  it('does not run the command when the user denies it', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'denied' } });
      const response = await c.prompt(sessionId, 'run: touch made.txt');
      expect(response.stopReason).toBe('end_turn');
      expect(c.rec.permissions).toHaveLength(1);
      expect(existsSync(join(env.temp.cwd, 'made.txt'))).toBe(false);
    });
  });

  it('applies a patch only when allowed, and shows it as an edit with a diff', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'denied' } });
      await c.prompt(sessionId, 'patch: hello.txt=first');
      expect(existsSync(join(env.temp.cwd, 'hello.txt'))).toBe(false);
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'approved' } });
      const response = await c.prompt(sessionId, 'patch: hello.txt=hi there');
      expect(response.stopReason).toBe('end_turn');
      expect(await readFile(join(env.temp.cwd, 'hello.txt'), 'utf8')).toBe('hi there\n');
      expect(c.rec.permissions.at(-1)?.toolCall).toMatchObject({ kind: 'edit' });
      const edit = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call' && u.kind === 'edit').at(-1);
      expect(edit).toMatchObject({ locations: [{ path: expect.stringContaining('hello.txt') }] });
      const final = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === (edit as { toolCallId: string }).toolCallId).at(-1);
      expect(final).toMatchObject({ status: 'completed', content: [{ type: 'diff', path: expect.stringContaining('hello.txt'), newText: expect.stringContaining('hi there') }] });
      expect(c.invalid).toEqual([]);
    });
  });

  it('ends the turn with cancelled on session/cancel and sends nothing after the response', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      const pending = c.prompt(sessionId, 'slow: 8000');
      await waitFor(() => c.rec.of(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'));
      await c.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      const started = Date.now();
      const response = await pending;
      expect(response.stopReason).toBe('cancelled');
      expect(Date.now() - started).toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 300));
      expect(updatesAfterResponse(c, sessionId)).toBe(0);
      // The session takes the next prompt.
      expect((await c.prompt(sessionId, 'again')).stopReason).toBe('end_turn');
    });
  });

  it('refuses a second prompt while a turn runs, and queues one sent after a cancel', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      const first = c.prompt(sessionId, 'slow: 8000');
      await waitFor(() => c.rec.of(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'));
      await expect(c.prompt(sessionId, 'too early')).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('a turn is already running') });
      await c.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      const queued = c.prompt(sessionId, 'queued after cancel');
      expect((await first).stopReason).toBe('cancelled');
      expect((await queued).stopReason).toBe('end_turn');
      const text = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');
      expect(text).toContain('ECHO: queued after cancel');
      expect(c.invalid).toEqual([]);
    });
  });

  it('exits 0 when stdin closes during a turn, and the thread loads afterwards', async () => {
    let exitCode: number | null | undefined;
    // withAcp closes stdin when the body returns, with the turn still running.
    const sessionId = await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      c.child.once('exit', (code) => (exitCode = code));
      void c.prompt(sessionId, 'slow: 8000').catch(() => undefined);
      await waitFor(() => c.rec.of(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'));
      return sessionId;
    }).catch((error: unknown) => {
      // The SDK reports the connection closing under a pending request; the exit code is what counts.
      if (!String(error).includes('connection closed')) throw error;
      return '';
    });
    expect(exitCode).toBe(0);
    await withAcp(env, async (c) => {
      await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: env.temp.cwd, mcpServers: [] });
      const users = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'user_message_chunk');
      expect(users).toHaveLength(1);
    });
  });

  it('cancels a pending permission request when the turn is cancelled', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      let aborted = false;
      c.rec.responder = (_req, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ outcome: { outcome: 'cancelled' } });
          });
        });
      const pending = c.prompt(sessionId, 'run: touch made.txt');
      await waitFor(() => c.rec.permissions.length === 1);
      await c.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      expect((await pending).stopReason).toBe('cancelled');
      await waitFor(() => aborted);
      expect(existsSync(join(env.temp.cwd, 'made.txt'))).toBe(false);
    });
  });

  it('replays a session on session/load exactly as it was shown live, and lists it', async () => {
    const { sessionId, live } = await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'approved' } });
      await c.prompt(sessionId, 'hello replay');
      await c.prompt(sessionId, 'run: touch made.txt');
      await c.prompt(sessionId, 'patch: hello.txt=replayed');
      return { sessionId, live: c.rec.of(sessionId) };
    });
    await withAcp(env, async (c) => {
      const listed = await c.agent.request(acp.methods.agent.session.list, { cwd: env.temp.cwd });
      expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
      expect(listed.sessions.find((s) => s.sessionId === sessionId)).toMatchObject({ cwd: env.temp.cwd, updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      const loaded = await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: env.temp.cwd, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('custom');
      const replay = c.rec.of(sessionId);
      const users = replay.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : ''));
      expect(users).toEqual(['hello replay', 'run: touch made.txt', 'patch: hello.txt=replayed']);
      const withoutUser = replay.filter((u) => u.sessionUpdate !== 'user_message_chunk');
      expect(transcript(withoutUser)).toEqual(transcript(live));
      // Every tool call is announced before any update of it.
      const firstUpdate = replay.findIndex((u) => u.sessionUpdate === 'tool_call_update');
      expect(firstUpdate).toBe(-1);
      // The loaded session goes on.
      expect((await c.prompt(sessionId, 'after load')).stopReason).toBe('end_turn');
      await expect(c.agent.request(acp.methods.agent.session.load, { sessionId: '00000000-0000-0000-0000-000000000000', cwd: env.temp.cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
      expect(c.invalid).toEqual([]);
    });
  });

  it('changes mode with session/set_mode and refuses an unknown one', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      await c.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'full-access' });
      // Full access never asks: the command runs without a permission request.
      await c.prompt(sessionId, 'run: touch made.txt');
      expect(c.rec.permissions).toHaveLength(0);
      expect(existsSync(join(env.temp.cwd, 'made.txt'))).toBe(true);
      await expect(c.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'nope' })).rejects.toMatchObject({ code: -32602 });
      const set = await c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'mode', value: 'read-only' });
      expect(set.configOptions.find((o) => o.id === 'mode')?.currentValue).toBe('read-only');
    });
  });
});

