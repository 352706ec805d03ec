/**
 * Cancellation and shutdown over stdio (docs/mcp-server.md "Cancellation" and "Running it"):
 * `notifications/cancelled` interrupts the turn mid-stream or mid-approval, the cancelled request
 * never gets a response, and the next call on the same thread is answered under its own id; stdin
 * EOF lets a running turn finish and answer before the process exits 0; SIGTERM exits 0 at once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';
import { RawClient } from '../helpers/raw-client.js';

let harness: Harness;
let raw: RawClient;

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
  raw = new RawClient(harness.env(), [], harness.temp.cwd);
  await raw.initialize({ elicitation: {} });
});

afterAll(async () => {
  await raw?.kill();
  await harness?.close();
});

/**
 * docs/mcp-server.md "Cancellation" gives 10–60 ms, measured client → server → client; the
 * bound leaves room for a loaded CI machine.
 */
const CANCEL_BUDGET_MS = 250;

const eventOf = (id: unknown, type: string) => (m: { method?: string; params?: Record<string, unknown> }) =>
  m.method === 'codex/event' && (m.params?._meta as { requestId?: unknown })?.requestId === id && (m.params?.msg as { type: string }).type === type;

/** Cancels `id` and returns how long the `turn_aborted` event took to arrive. */
async function cancel(id: unknown): Promise<number> {
  const sent = performance.now();
  raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'user cancelled' } });
  await raw.waitFor(eventOf(id, 'turn_aborted'), 5_000, 'turn_aborted');
  return performance.now() - sent;
}

describe('notifications/cancelled', () => {
  it('interrupts a streaming turn at once, never answers it, and answers the next reply under its own id', async () => {
    raw.write({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'stall: forever' } } });
    await raw.waitFor(eventOf('c1', 'agent_message_content_delta'), 10_000, 'a delta');
    const took = await cancel('c1');
    expect(took).toBeLessThan(CANCEL_BUDGET_MS);
    const threadId = (raw.messages.find(eventOf('c1', 'session_configured'))?.params?._meta as { threadId: string }).threadId;
    const reply = await raw.request('c2', 'tools/call', { name: 'codex-reply', arguments: { prompt: 'after cancel', threadId } });
    expect(reply.result?.structuredContent).toEqual({ threadId, content: 'ECHO: after cancel' });
    expect(raw.messages.some((m) => m.id === 'c1')).toBe(false);
    // Events of the reply belong to the reply only: the cancelled stream ended at turn_aborted.
    const cancelledAfterAbort = raw.events('c1').slice(raw.events('c1').findIndex((e) => e.type === 'turn_aborted') + 1);
    expect(cancelledAfterAbort).toEqual([]);
    expect(raw.events('c2').at(-1)).toMatchObject({ type: 'task_complete', last_agent_message: 'ECHO: after cancel' });
  });

  it('interrupts a codex-reply turn the same way', async () => {
    const first = await raw.request('r1', 'tools/call', { name: 'codex', arguments: { prompt: 'hello' } });
    const threadId = (first.result?.structuredContent as { threadId: string }).threadId;
    raw.write({ jsonrpc: '2.0', id: 'r2', method: 'tools/call', params: { name: 'codex-reply', arguments: { prompt: 'stall: again', threadId } } });
    await raw.waitFor(eventOf('r2', 'agent_message_content_delta'), 10_000, 'a delta');
    expect(await cancel('r2')).toBeLessThan(CANCEL_BUDGET_MS);
    const next = await raw.request('r3', 'tools/call', { name: 'codex-reply', arguments: { prompt: 'next', threadId } });
    expect(next.result?.structuredContent).toEqual({ threadId, content: 'ECHO: next' });
    expect(raw.messages.some((m) => m.id === 'r2')).toBe(false);
  });

  it('interrupts a turn waiting for an approval and ignores the late answer', async () => {
    raw.write({ jsonrpc: '2.0', id: 'a1', method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'run: touch made.txt', 'approval-policy': 'untrusted' } } });
    const elicitation = await raw.waitFor((m) => m.method === 'elicitation/create' && m.params?.codex_mcp_tool_call_id === 'a1', 10_000, 'the elicitation');
    expect(await cancel('a1')).toBeLessThan(CANCEL_BUDGET_MS);
    raw.write({ jsonrpc: '2.0', id: elicitation.id as number, result: { action: 'accept' } });
    const threadId = elicitation.params?.threadId as string;
    const reply = await raw.request('a2', 'tools/call', { name: 'codex-reply', arguments: { prompt: 'ok', threadId } });
    expect(reply.result?.structuredContent).toEqual({ threadId, content: 'ECHO: ok' });
    expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
    expect(raw.messages.some((m) => m.id === 'a1')).toBe(false);
  });

  it('ignores a cancel for an unknown or finished request', async () => {
    await raw.request('done', 'tools/call', { name: 'codex', arguments: { prompt: 'quick' } });
    const before = raw.messages.length;
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'done' } });
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } });
    await raw.request('ping-after', 'ping');
    expect(raw.messages.slice(before).map((m) => m.id)).toEqual(['ping-after']);
  });
});

describe('process lifecycle', () => {
  it('finishes a running turn and writes its response after stdin closes, then exits 0', async () => {
    const client = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await client.initialize({});
      client.write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'slow: 600' } } });
      await client.waitFor((m) => m.method === 'codex/event', 10_000, 'the first event');
      client.end();
      expect(await client.exited).toBe(0);
      expect(client.messages.find((m) => m.id === 1)?.result?.structuredContent).toMatchObject({ content: 'slow answer after 600 ms' });
    } finally {
      await client.kill();
    }
  });

  it('exits 0 on SIGTERM even with a turn running', async () => {
    const client = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await client.initialize({});
      client.write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'stall: x' } } });
      await client.waitFor((m) => m.method === 'codex/event', 10_000, 'the first event');
      const sent = Date.now();
      client.child.kill('SIGTERM');
      expect(await client.exited).toBe(0);
      expect(Date.now() - sent).toBeLessThan(2_000);
    } finally {
      await client.kill();
    }
  });

  it('fails a pending elicitation when stdin closes so the turn still ends', async () => {
    const client = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await client.initialize({ elicitation: {} });
      client.write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'codex', arguments: { prompt: 'run: touch made.txt', 'approval-policy': 'untrusted' } } });
      await client.waitFor((m) => m.method === 'elicitation/create', 10_000, 'the elicitation');
      client.end();
      expect(await client.exited).toBe(0);
      await waitFor(() => client.messages.find((m) => m.id === 1), 1_000, 'the response');
      expect(existsSync(join(harness.temp.cwd, 'made.txt'))).toBe(false);
    } finally {
      await client.kill();
    }
  });
});
