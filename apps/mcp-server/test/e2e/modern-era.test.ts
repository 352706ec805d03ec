/**
 * The 2026-07-28 revision over stdio with the v2 SDK client: turns and replies, events and
 * progress, approvals through the revision's input-required round trip (accept, decline, no
 * capability), and cancellation through the client's abort signal.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectV2, type V2Session } from '../helpers/clients.js';
import { startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';

let harness: Harness;
let session: V2Session;
let answer: 'accept' | 'decline' = 'accept';

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
  session = await connectV2(harness.env(), harness.temp.cwd, { elicit: async () => ({ action: answer, ...(answer === 'accept' ? { content: {} } : {}) }) }, ['-c', 'mcp_server.progress_interval_ms=200']);
});

afterAll(async () => {
  await session?.close();
  await harness?.close();
});

afterEach(async () => {
  await rm(join(harness.temp.cwd, 'modern.txt'), { force: true });
});

type Result = { content: { text: string }[]; structuredContent?: { threadId: string; content: string }; isError?: boolean };

describe('a 2026-07-28 client', () => {
  it('runs a turn and a reply, with codex/event notifications tagged by request', async () => {
    const before = session.notifications.length;
    const first = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'modern hello' } })) as Result;
    expect(first.content[0]?.text).toBe('ECHO: modern hello');
    const threadId = first.structuredContent?.threadId as string;
    const reply = (await session.client.callTool({ name: 'codex-reply', arguments: { prompt: 'and again', threadId } })) as Result;
    expect(reply.structuredContent).toEqual({ threadId, content: 'ECHO: and again' });
    const events = session.notifications.slice(before).filter((n) => n.method === 'codex/event');
    expect(events.map((n) => (n.params?.msg as { type: string }).type)).toEqual(expect.arrayContaining(['session_configured', 'task_started', 'agent_message', 'task_complete']));
    expect(new Set(events.map((n) => (n.params?._meta as { threadId: string }).threadId))).toEqual(new Set([threadId]));
  });

  it('reports progress on the request', async () => {
    const ticks: number[] = [];
    await session.client.callTool({ name: 'codex', arguments: { prompt: 'slow: 800' } }, { onprogress: (p) => void ticks.push(p.progress) });
    expect(ticks.length).toBeGreaterThanOrEqual(2);
  });

  it('asks for an approval with an input-required round and runs the command when accepted', async () => {
    answer = 'accept';
    const before = session.elicitations.length;
    const result = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch modern.txt', 'approval-policy': 'untrusted' } })) as Result;
    expect(result.content[0]?.text).toMatch(/^TOOL_RESULT: .*exited with code 0/s);
    expect(existsSync(join(harness.temp.cwd, 'modern.txt'))).toBe(true);
    const asked = session.elicitations.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toContain("-lc 'touch modern.txt'");
  });

  it('does not run the command when the approval is declined', async () => {
    answer = 'decline';
    const result = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch modern.txt', 'approval-policy': 'untrusted' } })) as Result;
    expect(result.content[0]?.text).toBe('TOOL_RESULT: rejected by user');
    expect(existsSync(join(harness.temp.cwd, 'modern.txt'))).toBe(false);
  });

  it('handles several approvals in one call, one round each', async () => {
    answer = 'accept';
    const first = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'patch: modern.txt=one', 'approval-policy': 'untrusted' } })) as Result;
    expect(first.content[0]?.text).toMatch(/^TOOL_RESULT: Exit code: 0/);
    const threadId = first.structuredContent?.threadId as string;
    const before = session.elicitations.length;
    harness.model.enqueue({ output: [{ kind: 'function_call', id: 'fc_m1', callId: 'call_m1', name: 'exec_command', arguments: JSON.stringify({ cmd: 'touch modern-a.txt' }) }] });
    harness.model.enqueue({ output: [{ kind: 'function_call', id: 'fc_m2', callId: 'call_m2', name: 'exec_command', arguments: JSON.stringify({ cmd: 'touch modern-b.txt' }) }] });
    const second = (await session.client.callTool({ name: 'codex-reply', arguments: { prompt: 'two commands', threadId } })) as Result;
    expect(second.isError).toBeUndefined();
    expect(session.elicitations.length - before).toBe(2);
    expect(existsSync(join(harness.temp.cwd, 'modern-a.txt')) && existsSync(join(harness.temp.cwd, 'modern-b.txt'))).toBe(true);
    await rm(join(harness.temp.cwd, 'modern-a.txt'), { force: true });
    await rm(join(harness.temp.cwd, 'modern-b.txt'), { force: true });
  });

  it('interrupts the turn when the client aborts the call, and the thread stays usable', async () => {
    const first = (await session.client.callTool({ name: 'codex', arguments: { prompt: 'hello' } })) as Result;
    const threadId = first.structuredContent?.threadId as string;
    const controller = new AbortController();
    const before = session.notifications.length;
    const stalled = session.client.callTool({ name: 'codex-reply', arguments: { prompt: 'stall: modern', threadId } }, { signal: controller.signal });
    await waitFor(() => session.notifications.slice(before).some((n) => (n.params?.msg as { type?: string } | undefined)?.type === 'agent_message_content_delta'), 10_000, 'a delta');
    controller.abort();
    await expect(stalled).rejects.toThrow();
    await waitFor(() => session.notifications.slice(before).some((n) => (n.params?.msg as { type?: string } | undefined)?.type === 'turn_aborted'), 5_000, 'turn_aborted');
    const next = (await session.client.callTool({ name: 'codex-reply', arguments: { prompt: 'still here', threadId } })) as Result;
    expect(next.structuredContent).toEqual({ threadId, content: 'ECHO: still here' });
  });
});

describe('a 2026-07-28 client that never answers an input-required round', () => {
  it('does not leave the turn waiting: the approval times out and the thread is free again', async () => {
    const manual = await connectV2(harness.env(), harness.temp.cwd, { manual: true }, ['-c', 'mcp_server.approval_timeout_seconds=1']);
    try {
      const paused = (await manual.client.callTool(
        { name: 'codex', arguments: { prompt: 'run: touch modern.txt', 'approval-policy': 'untrusted' } },
        { allowInputRequired: true },
      )) as unknown as { resultType: string; inputRequests: Record<string, { method: string }> };
      expect(paused.resultType).toBe('input_required');
      expect(paused.inputRequests.approval?.method).toBe('elicitation/create');
      const threadId = (manual.notifications.find((n) => n.method === 'codex/event')?.params?._meta as { threadId: string }).threadId;
      // Busy while the approval waits; free once it timed out and the turn went on.
      const deadline = Date.now() + 5_000;
      let reply: Result;
      for (;;) {
        reply = (await manual.client.callTool({ name: 'codex-reply', arguments: { prompt: 'free?', threadId } })) as Result;
        if (!reply.isError || Date.now() > deadline) break;
        expect(reply.content[0]?.text).toContain('is busy');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(reply.structuredContent).toEqual({ threadId, content: 'ECHO: free?' });
      expect(existsSync(join(harness.temp.cwd, 'modern.txt'))).toBe(false);
    } finally {
      await manual.close();
    }
  });
});

describe('a 2026-07-28 client without the elicitation capability', () => {
  it('gets the fallback decision and a warning instead of an input-required round', async () => {
    const plain = await connectV2(harness.env(), harness.temp.cwd, { elicitation: false });
    try {
      const result = (await plain.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch modern.txt', 'approval-policy': 'untrusted' } })) as Result;
      expect(result.content[0]?.text).toMatch(/^TOOL_RESULT: No approver was available: .*mcp_server\.approval_fallback = "approve"/s);
      const warnings = plain.notifications.filter((n) => (n.params?.msg as { type?: string } | undefined)?.type === 'warning').map((n) => (n.params?.msg as { message: string }).message);
      expect(warnings.some((m) => m.includes('approval_fallback'))).toBe(true);
      expect(existsSync(join(harness.temp.cwd, 'modern.txt'))).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
