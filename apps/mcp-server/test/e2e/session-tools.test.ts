/**
 * The opt-in session tools over stdio (`-c mcp_server.session_tools=true`): `codex-list`
 * (newest first, with a cursor), `codex-status` (idle, running, waiting for approval, not
 * loaded), `codex-interrupt` (the interrupted call still gets its answer) and `codex-fork`.
 * Without the switch the tools do not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectV1, type V1Session } from '../helpers/clients.js';
import { startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';

let harness: Harness;
let session: V1Session;
const ARGS = ['-c', 'mcp_server.session_tools=true'];

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
  session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, args: ARGS, elicit: () => new Promise(() => undefined) });
});

afterAll(async () => {
  await session?.close();
  await harness?.close();
});

type Result = { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = (name: string, args: Record<string, unknown>, s = session) => s.client.callTool({ name, arguments: args }) as Promise<Result>;
const threadOf = (r: Result) => (r.structuredContent as { threadId: string }).threadId;

describe('session tools', () => {
  it('lists threads newest first and pages with a cursor', async () => {
    const a = threadOf(await call('codex', { prompt: 'list one' }));
    const b = threadOf(await call('codex', { prompt: 'list two' }));
    const page = (await call('codex-list', { limit: 1 })).structuredContent as { threads: { threadId: string; preview: string; running: boolean }[]; nextCursor: string | null };
    expect(page.threads.map((t) => t.threadId)).toEqual([b]);
    expect(page.threads[0]).toMatchObject({ preview: 'list two', running: false });
    const next = (await call('codex-list', { limit: 1, cursor: page.nextCursor })).structuredContent as { threads: { threadId: string }[] };
    expect(next.threads.map((t) => t.threadId)).toEqual([a]);
    expect((await call('codex-list', { limit: 0 })).isError).toBe(true);
  });

  it('reports idle, running and waiting-for-approval states, and interrupts a running turn', async () => {
    const threadId = threadOf(await call('codex', { prompt: 'status', 'approval-policy': 'untrusted' }));
    expect((await call('codex-status', { threadId })).structuredContent).toEqual({ threadId, state: 'idle', runningTurnId: null, lastAgentMessage: 'ECHO: status', pendingApprovals: [] });

    const waiting = call('codex-reply', { prompt: 'run: touch status.txt', threadId });
    await waitFor(() => session.elicitations.length > 0, 10_000, 'the approval');
    const status = (await call('codex-status', { threadId })).structuredContent as { state: string; runningTurnId: string; pendingApprovals: { kind: string; summary: string }[] };
    expect(status.state).toBe('waitingForApproval');
    expect(status.pendingApprovals).toEqual([{ approvalId: expect.any(String), kind: 'exec', summary: expect.stringContaining('touch status.txt') }]);

    const interrupted = await call('codex-interrupt', { threadId });
    expect(interrupted.structuredContent).toEqual({ threadId, interrupted: true, turnId: status.runningTurnId });
    expect(await waiting).toMatchObject({ isError: true, content: [{ text: 'Turn interrupted' }, { type: 'text' }] });
    expect((await call('codex-interrupt', { threadId })).structuredContent).toEqual({ threadId, interrupted: false, turnId: null });
    expect(((await call('codex-status', { threadId })).structuredContent as { state: string }).state).toBe('idle');
  });

  it('forks a thread into a new one that keeps the history', async () => {
    const source = threadOf(await call('codex', { prompt: 'fork me: banana' }));
    const forked = (await call('codex-fork', { threadId: source })).structuredContent as { threadId: string; forkedFromId: string };
    expect(forked.forkedFromId).toBe(source);
    expect(forked.threadId).not.toBe(source);
    const reply = await call('codex-reply', { prompt: 'in the fork', threadId: forked.threadId });
    expect(reply.structuredContent).toEqual({ threadId: forked.threadId, content: 'ECHO: in the fork' });
    expect(JSON.stringify(harness.model.requests.at(-1)?.body.input)).toContain('fork me: banana');
  });

  it('answers an unknown thread with the same text as codex-reply', async () => {
    const unknown = '0190ad52-2a2f-7d6b-9f3e-6c1b2a3d4e5f';
    for (const tool of ['codex-status', 'codex-interrupt', 'codex-fork']) {
      const result = await call(tool, { threadId: unknown });
      expect(result, tool).toMatchObject({ isError: true, content: [{ text: `Session not found for thread_id: ${unknown}` }] });
    }
  });

  it('reports a thread of an earlier server process as not loaded', async () => {
    const threadId = threadOf(await call('codex', { prompt: 'from before' }));
    const later = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, args: ARGS });
    try {
      expect((await call('codex-status', { threadId }, later)).structuredContent).toMatchObject({ threadId, state: 'notLoaded', lastAgentMessage: 'ECHO: from before' });
    } finally {
      await later.close();
    }
  });

  it('does not exist unless switched on', async () => {
    const plain = await connectV1({ env: harness.env(), cwd: harness.temp.cwd });
    try {
      expect(await call('codex-list', {}, plain)).toEqual({ content: [{ type: 'text', text: "Unknown tool 'codex-list'" }], isError: true });
    } finally {
      await plain.close();
    }
  });
});
