/**
 * Approvals over 2025-era stdio (docs/mcp-server.md "Approvals"): a shell turn and a patch turn
 * each with the approval accepted, declined, cancelled, answered with a JSON-RPC error, left
 * unanswered (timeout), and asked of a client without the elicitation capability; the reference's
 * `elicitation/create` parameters for a command and for a patch; and the Codex `decision` forms
 * (approved, approved_for_session, the execpolicy amendment).
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';
import { RawClient, type Wire } from '../helpers/raw-client.js';

let harness: Harness;
let raw: RawClient;
let nextId = 1;

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
  raw = new RawClient(harness.env(), ['-c', 'mcp_server.approval_timeout_seconds=1'], harness.temp.cwd);
  await raw.initialize({ elicitation: {} });
});

afterAll(async () => {
  await raw?.kill();
  await harness?.close();
});

afterEach(async () => {
  await rm(join(harness.temp.cwd, 'made.txt'), { force: true });
  await rm(join(harness.temp.cwd, 'hello.txt'), { force: true });
});

type Answer = { result: Record<string, unknown> } | { error: { code: number; message: string } } | 'none';

/** Runs `prompt` under the untrusted policy, answers the first elicitation, returns what happened. */
async function runApproval(prompt: string, answer: Answer, client = raw): Promise<{ id: number; response: Wire; elicitation: Wire; events: Record<string, unknown>[] }> {
  const id = nextId++;
  const seen = client.messages.length;
  client.write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'codex', arguments: { prompt, 'approval-policy': 'untrusted', cwd: harness.temp.cwd } } });
  const elicitation = await client.waitFor((m) => client.messages.indexOf(m) >= seen && m.method === 'elicitation/create', 10_000, 'elicitation/create');
  if (answer !== 'none') client.write({ jsonrpc: '2.0', id: elicitation.id as number, ...answer });
  const response = await client.response(id);
  return { id, response, elicitation, events: client.events(id) };
}

const text = (response: Wire) => ((response.result?.content as { text: string }[] | undefined)?.[0]?.text ?? '') as string;

describe('shell command approvals', () => {
  it('sends the reference’s command approval parameters and runs the command when the client accepts', async () => {
    const { id, response, elicitation, events } = await runApproval('run: touch made.txt', { result: { action: 'accept' } });
    const turnId = String(id);
    expect(elicitation.params).toEqual({
      message: expect.stringMatching(new RegExp(`(^|\\n)Allow Deputy to run \`\\S+ -lc 'touch made\\.txt'\` in \`${harness.temp.cwd}\`\\?$`)),
      requestedSchema: { type: 'object', properties: {} },
      threadId: (response.result?.structuredContent as { threadId: string }).threadId,
      codex_elicitation: 'exec-approval',
      codex_mcp_tool_call_id: turnId,
      codex_event_id: turnId,
      codex_call_id: expect.stringMatching(/^call_/),
      codex_command: [expect.any(String), '-lc', 'touch made.txt'],
      codex_cwd: harness.temp.cwd,
      codex_parsed_cmd: [{ type: 'unknown', cmd: 'touch made.txt' }],
      codex_reason: expect.any(String),
    });
    expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(true);
    expect(text(response)).toMatch(/^TOOL_RESULT: .*exited with code 0/s);
    const types = events.map((e) => e.type);
    expect(types.indexOf('exec_approval_request')).toBeLessThan(types.indexOf('exec_command_begin'));
    expect(events.find((e) => e.type === 'exec_approval_request')).toMatchObject({ call_id: elicitation.params?.codex_call_id, turn_id: turnId, command: elicitation.params?.codex_command });
    expect(events.find((e) => e.type === 'exec_command_end')).toMatchObject({ exit_code: 0, status: 'completed' });
    // The approval event reaches the client before the elicitation request.
    expect(raw.messages.findIndex((m) => m.method === 'codex/event' && (m.params?.msg as { type: string }).type === 'exec_approval_request' && (m.params?._meta as { requestId: number }).requestId === id)).toBeLessThan(raw.messages.indexOf(elicitation));
  });

  it('does not run the command when the client declines', async () => {
    const { response } = await runApproval('run: touch made.txt', { result: { action: 'decline' } });
    expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
    expect(text(response)).toBe('TOOL_RESULT: rejected by user');
  });

  it('interrupts the turn when the client cancels, answers the call, and keeps the thread usable', async () => {
    const { id, response, events } = await runApproval('run: touch made.txt', { result: { action: 'cancel' } });
    expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'turn_aborted', reason: 'interrupted', turn_id: String(id) });
    const threadId = (response.result?.structuredContent as { threadId: string }).threadId;
    expect(response.result).toMatchObject({ content: [{ type: 'text', text: 'Turn interrupted' }, { type: 'text', text: JSON.stringify({ threadId, content: 'Turn interrupted' }) }], isError: true });
    const reply = await raw.request(nextId++, 'tools/call', { name: 'codex-reply', arguments: { prompt: 'still there?', threadId } });
    expect(text(reply)).toBe('ECHO: still there?');
  });

  it('treats a JSON-RPC error answer (no elicitation handler) as denied', async () => {
    const { response } = await runApproval('run: touch made.txt', { error: { code: -32601, message: 'Method not found' } });
    expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
    expect(text(response)).toBe('TOOL_RESULT: rejected by user');
  });

  it('times an unanswered approval out after mcp_server.approval_timeout_seconds and tells the client', async () => {
    const started = Date.now();
    const { response, elicitation } = await runApproval('run: touch made.txt', 'none');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
    expect(text(response)).toMatch(/^TOOL_RESULT: /);
    expect(raw.messages.some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === elicitation.id)).toBe(true);
  });

  it('reads every Codex decision form, and asks once per session for approved_for_session', async () => {
    const approved = await runApproval('run: touch made.txt', { result: { decision: 'approved' } });
    expect(text(approved.response)).toMatch(/exited with code 0/);
    const denied = await runApproval('run: touch made.txt', { result: { decision: 'denied', action: 'accept' } });
    expect(text(denied.response)).toBe('TOOL_RESULT: rejected by user');
    const invalid = await runApproval('run: touch made.txt', { result: { decision: 'allow' } });
    expect(text(invalid.response)).toBe('TOOL_RESULT: rejected by user');

    const session = await runApproval('run: touch made.txt', { result: { decision: 'approved_for_session' } });
    const threadId = (session.response.result?.structuredContent as { threadId: string }).threadId;
    const before = raw.messages.filter((m) => m.method === 'elicitation/create').length;
    const again = await raw.request(nextId++, 'tools/call', { name: 'codex-reply', arguments: { prompt: 'run: touch made.txt', threadId } });
    expect(text(again)).toMatch(/exited with code 0/);
    expect(raw.messages.filter((m) => m.method === 'elicitation/create').length).toBe(before);
  });

  it('persists an execpolicy amendment so a new session does not ask again', async () => {
    // A command of its own: the remembered rule lives in the shared home for the rest of the file.
    const amendment = { approved_execpolicy_amendment: { proposed_execpolicy_amendment: ['touch', 'amended.txt'] } };
    const first = await runApproval('run: touch amended.txt', { result: { decision: amendment } });
    expect(text(first.response)).toMatch(/exited with code 0/);
    const rules = await readFile(join(harness.temp.home, 'rules', 'default.rules'), 'utf8');
    expect(rules).toContain('amended.txt');
    const before = raw.messages.filter((m) => m.method === 'elicitation/create').length;
    const second = await raw.request(nextId++, 'tools/call', { name: 'codex', arguments: { prompt: 'run: touch amended.txt', 'approval-policy': 'untrusted' } });
    expect(text(second)).toMatch(/exited with code 0/);
    expect(raw.messages.filter((m) => m.method === 'elicitation/create').length).toBe(before);
  });
});

describe('patch approvals', () => {
  it('sends the reference’s patch approval parameters and applies the patch when the client accepts', async () => {
    const { id, response, elicitation, events } = await runApproval('patch: hello.txt=hi', { result: { action: 'accept' } });
    const file = join(harness.temp.cwd, 'hello.txt');
    expect(elicitation.params).toEqual({
      message: 'Allow Deputy to apply proposed code changes?',
      requestedSchema: { type: 'object', properties: {} },
      threadId: (response.result?.structuredContent as { threadId: string }).threadId,
      codex_elicitation: 'patch-approval',
      codex_mcp_tool_call_id: String(id),
      codex_event_id: String(id),
      codex_call_id: expect.stringMatching(/^call_/),
      codex_changes: { [file]: { type: 'add', content: 'hi\n' } },
    });
    expect(await readFile(file, 'utf8')).toBe('hi\n');
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['patch_apply_begin', 'apply_patch_approval_request', 'patch_apply_end', 'turn_diff']));
    expect(events.find((e) => e.type === 'patch_apply_end')).toMatchObject({ success: true, status: 'completed' });
    expect(text(response)).toMatch(/^TOOL_RESULT: Exit code: 0/);
  });

  it('does not apply the patch when the client declines', async () => {
    const { response, events } = await runApproval('patch: hello.txt=hi', { result: { action: 'decline' } });
    expect(existsSync(join(harness.temp.cwd, 'hello.txt'))).toBe(false);
    expect(events.find((e) => e.type === 'patch_apply_end')).toMatchObject({ success: false, status: 'declined' });
    expect(text(response)).toBe('TOOL_RESULT: patch rejected by user');
  });

  it('interrupts the turn when the client cancels', async () => {
    const { response, events } = await runApproval('patch: hello.txt=hi', { result: { action: 'cancel' } });
    expect(existsSync(join(harness.temp.cwd, 'hello.txt'))).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'turn_aborted' });
    expect(response.result?.isError).toBe(true);
  });

  it('treats a JSON-RPC error answer as denied', async () => {
    const { response } = await runApproval('patch: hello.txt=hi', { error: { code: -32603, message: 'client failed' } });
    expect(existsSync(join(harness.temp.cwd, 'hello.txt'))).toBe(false);
    expect(text(response)).toBe('TOOL_RESULT: patch rejected by user');
  });

  it('times an unanswered patch approval out', async () => {
    const { response } = await runApproval('patch: hello.txt=hi', 'none');
    expect(existsSync(join(harness.temp.cwd, 'hello.txt'))).toBe(false);
    expect(text(response)).toMatch(/^TOOL_RESULT: .*timed out/);
  });
});

describe('a client without the elicitation capability', () => {
  it('is never sent an elicitation: approvals resolve by the fallback at once, with a warning event', async () => {
    const plain = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await plain.initialize({});
      for (const prompt of ['run: touch made.txt', 'patch: hello.txt=hi']) {
        const id = nextId++;
        const response = await plain.request(id, 'tools/call', { name: 'codex', arguments: { prompt, 'approval-policy': 'untrusted' } });
        // The model reads what happened and how to allow it, not "rejected by user".
        expect(text(response)).toMatch(/^TOOL_RESULT: No approver was available: the MCP client did not declare the elicitation capability/);
        expect(text(response)).toMatch(/(the command `.*touch made.txt.*`|the proposed patch) needed approval and was denied without being run/i);
        expect(text(response)).toContain('mcp_server.approval_fallback = "approve"');
        const warning = plain.events(id).find((e) => e.type === 'warning' && String(e.message).includes('approval_fallback'));
        expect(warning?.message).toContain('denied');
      }
      expect(plain.messages.some((m) => m.method === 'elicitation/create')).toBe(false);
      expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
      expect(existsSync(join(harness.temp.cwd, 'hello.txt'))).toBe(false);
    } finally {
      await plain.kill();
    }
  });

  it('approves instead when mcp_server.approval_fallback is "approve"', async () => {
    const plain = new RawClient(harness.env(), ['-c', 'mcp_server.approval_fallback="approve"'], harness.temp.cwd);
    try {
      await plain.initialize({});
      const response = await plain.request(1, 'tools/call', { name: 'codex', arguments: { prompt: 'run: touch made.txt', 'approval-policy': 'untrusted' } });
      expect(text(response)).toMatch(/exited with code 0/);
      expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(true);
    } finally {
      await plain.kill();
    }
  });
});
