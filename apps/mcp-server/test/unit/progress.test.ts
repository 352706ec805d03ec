/**
 * The progress heartbeat with a fake clock: first notification at once, no gap longer than the
 * interval, strictly increasing values, messages from the latest event, and silence after stop.
 */
import type { EngineEvent } from '@deputy/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressReporter, progressMessage } from '../../src/progress.js';

const base = { threadId: 't', turnId: 'u', seq: 1 };

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('ProgressReporter', () => {
  it('sends at once, then at least every interval, strictly increasing', () => {
    const sent: { at: number; progress: number; message: string }[] = [];
    const reporter = new ProgressReporter((progress, message) => sent.push({ at: Date.now(), progress, message }), 1000, 'working');
    const start = Date.now();
    reporter.start();
    expect(sent).toEqual([{ at: start, progress: 1, message: 'working' }]);
    vi.advanceTimersByTime(10_000);
    const gaps = sent.slice(1).map((s, i) => s.at - (sent[i] as { at: number }).at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1000);
    expect(sent.length).toBeGreaterThanOrEqual(10);
    expect(sent.map((s) => s.progress)).toEqual(sent.map((_, i) => i + 1));
    reporter.stop();
    const count = sent.length;
    vi.advanceTimersByTime(5_000);
    expect(sent.length).toBe(count);
  });

  it('sends a notable event at once when the last send is over a second old, with its message', () => {
    const sent: string[] = [];
    const reporter = new ProgressReporter((_p, message) => sent.push(message), 15_000, 'working');
    reporter.start();
    vi.advanceTimersByTime(1_200);
    reporter.note({ ...base, type: 'item.started', item: { type: 'commandExecution', id: 'c', command: 'pnpm test', argv: [], cwd: '/', processId: null, status: 'inProgress', aggregatedOutput: null, exitCode: null, durationMs: null }, atMs: 0 });
    expect(sent).toEqual(['working', 'running: pnpm test']);
    reporter.note({ ...base, type: 'warning', message: 'not notable' });
    vi.advanceTimersByTime(15_000);
    expect(sent.at(-1)).toBe('running: pnpm test');
    reporter.stop();
  });
});

describe('progressMessage', () => {
  it('describes the events a user cares about and skips the rest', () => {
    const events: [EngineEvent, string | null][] = [
      [{ ...base, type: 'approval.requested', approvalId: 'a', request: { kind: 'exec', callId: 'c', command: ['rm', '-rf', 'x'], cwd: '/', reason: null, proposedPrefixRule: null, isSandboxRetry: false } }, 'waiting for approval: rm -rf x'],
      [{ ...base, type: 'item.completed', item: { type: 'agentMessage', id: 'm', text: 'All   tests\npass', phase: null }, atMs: 0 }, 'answer: All tests pass'],
      [{ ...base, type: 'model.item', item: {} }, null],
    ];
    for (const [event, message] of events) expect(progressMessage(event)).toBe(message);
  });
});
