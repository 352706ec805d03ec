/**
 * Progress for long turns (issue: "a host with the SDK's default 60 s timeout must complete a
 * 3-minute turn"), scaled down: a short progress interval (`mcp_server.progress_interval_ms`), a
 * model that streams slowly, and a v1 client whose timeout is shorter than the turn but resets
 * on progress. Also: the heartbeat keeps running while an approval waits, and
 * `mcp_server.codex_events=false` silences the event stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectV1 } from '../helpers/clients.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
});

afterAll(async () => {
  await harness?.close();
});

interface Tick {
  at: number;
  progress: number;
  message?: string;
}

describe('notifications/progress', () => {
  it('sends the first progress within a second, then at least every interval, strictly increasing', async () => {
    const session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, args: ['-c', 'mcp_server.progress_interval_ms=200'] });
    try {
      const ticks: Tick[] = [];
      const started = Date.now();
      const result = await session.client.callTool({ name: 'codex', arguments: { prompt: 'slow: 1200' } }, undefined, {
        onprogress: (p) => void ticks.push({ at: Date.now(), progress: p.progress, message: p.message }),
      });
      const ended = Date.now();
      expect(result.structuredContent).toMatchObject({ content: 'slow answer after 1200 ms' });
      expect(ticks.length).toBeGreaterThanOrEqual(4);
      expect((ticks[0] as Tick).at - started).toBeLessThan(1000);
      for (let i = 1; i < ticks.length; i++) expect((ticks[i] as Tick).progress).toBeGreaterThan((ticks[i - 1] as Tick).progress);
      // No silence longer than the interval plus timer slack, from the first tick to the end.
      const gaps = [...ticks.map((t) => t.at), ended].slice(1).map((at, i) => at - (ticks[i] as Tick).at);
      expect(Math.max(...gaps)).toBeLessThan(600);
      expect(ticks.every((t) => typeof t.message === 'string' && t.message.length > 0)).toBe(true);
      expect(ticks.some((t) => t.message?.startsWith('turn started') || t.message === 'writing the answer')).toBe(true);
    } finally {
      await session.close();
    }
  });

  it('lets a client whose timeout is shorter than the turn complete it when the timeout resets on progress', async () => {
    const session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, args: ['-c', 'mcp_server.progress_interval_ms=200'] });
    try {
      const started = Date.now();
      const result = await session.client.callTool({ name: 'codex', arguments: { prompt: 'slow: 2500' } }, undefined, {
        timeout: 800,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      });
      expect(Date.now() - started).toBeGreaterThan(1600);
      expect(result.structuredContent).toMatchObject({ content: 'slow answer after 2500 ms' });
    } finally {
      await session.close();
    }
  });

  it('is what keeps such a client alive: with the default 15 s interval the same client times out', async () => {
    const session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd });
    try {
      const call = session.client.callTool({ name: 'codex', arguments: { prompt: 'slow: 2500' } }, undefined, { timeout: 800, resetTimeoutOnProgress: true, onprogress: () => undefined });
      await expect(call).rejects.toMatchObject({ code: -32001 });
    } finally {
      await session.close();
    }
  });

  it('keeps the heartbeat going while an approval waits for the user', async () => {
    const session = await connectV1({
      env: harness.env(),
      cwd: harness.temp.cwd,
      args: ['-c', 'mcp_server.progress_interval_ms=200'],
      elicit: () => new Promise((resolve) => setTimeout(() => resolve({ action: 'decline' }), 1500)),
    });
    try {
      const result = await session.client.callTool({ name: 'codex', arguments: { prompt: 'run: touch never.txt', 'approval-policy': 'untrusted' } }, undefined, {
        timeout: 600,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      });
      expect(result.structuredContent).toMatchObject({ content: 'TOOL_RESULT: rejected by user' });
      expect(session.elicitations).toHaveLength(1);
    } finally {
      await session.close();
    }
  });
});

describe('codex/event switch', () => {
  it('sends no codex/event notifications with mcp_server.codex_events=false and still answers', async () => {
    const session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, args: ['-c', 'mcp_server.codex_events=false'] });
    try {
      const result = await session.client.callTool({ name: 'codex', arguments: { prompt: 'quiet' } });
      expect(result.structuredContent).toMatchObject({ content: 'ECHO: quiet' });
      expect(session.notifications.filter((n) => n.method === 'codex/event')).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
