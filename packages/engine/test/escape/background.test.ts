/**
 * Escape row that held: a process a sandboxed command leaves behind does not outlive it. A scripted
 * model daemonizes `sleep <marker>` (nohup, setsid, a double fork) and lets its command return, or
 * runs it in the foreground and the turn is interrupted; the host's process list, searched for the
 * marker, must then be empty. The first phase also waits to see the process on the host, so an
 * attack that never started cannot pass. danger-full-access has no sandbox to end with the
 * command, so it is not a row here (see `exec-layer.test.ts` for aborts without a sandbox).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '@deputy/protocol';
import { waitFor } from '../helpers/engine.js';
import { CONFINED_TMP_TOML, execCall, requireBwrap, SafetyHarness } from '../safety/harness.js';
import { killSleepProcesses, sleepMarker, sleepProcesses } from './host.js';

const MODES: SandboxMode[] = ['workspace-write', 'read-only'];
// Killed processes are reaped by the sandbox's init or the host's; allow a few seconds.
const GONE_TIMEOUT_MS = 10_000;

beforeAll(requireBwrap);

describe.each(MODES)('with sandbox_mode = %s', (mode) => {
  let h: SafetyHarness;
  beforeAll(async () => {
    h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: mode, extraToml: CONFINED_TMP_TOML });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each([
    ['nohup … &', (m: string) => `nohup sleep ${m} >/dev/null 2>&1 &`],
    ['setsid nohup … &', (m: string) => `setsid nohup sleep ${m} >/dev/null 2>&1 < /dev/null &`],
    ['a double fork', (m: string) => `( ( sleep ${m} >/dev/null 2>&1 < /dev/null & ) & )`],
  ])('kills a process daemonized with %s when its command returns, before the turn ends', async (_how, launch) => {
    const marker = sleepMarker(300);
    try {
      const thread = await h.startThread();
      // The command outlives its daemon's start by 2 s so the host can see the daemon running.
      const turn = h.runTurn(thread, [execCall(`${launch(marker)}\nsleep 2; echo launched`)]);
      await waitFor(() => sleepProcesses(marker).length > 0, 10_000, 'the daemonized sleep to start');
      const result = await turn;
      expect(result.turn.status).toBe('completed');
      await waitFor(() => sleepProcesses(marker).length === 0, GONE_TIMEOUT_MS, 'the daemonized sleep to be gone');
    } finally {
      killSleepProcesses(marker);
    }
  });

  it('kills a running command and its daemonized children when the turn is interrupted', async () => {
    const foreground = sleepMarker(300);
    const daemon = sleepMarker(300);
    try {
      const thread = await h.startThread();
      const turn = h.runTurn(thread, [execCall(`setsid nohup sleep ${daemon} >/dev/null 2>&1 < /dev/null & sleep ${foreground}`)]);
      await waitFor(() => sleepProcesses(foreground).length > 0 && sleepProcesses(daemon).length > 0, 10_000, 'both sleeps to start');
      await thread.interrupt();
      expect((await turn).turn.status).toBe('interrupted');
      await waitFor(() => sleepProcesses(foreground).length + sleepProcesses(daemon).length === 0, GONE_TIMEOUT_MS, 'both sleeps to be gone');
    } finally {
      killSleepProcesses(foreground);
      killSleepProcesses(daemon);
    }
  });

  // Whether such a session may outlive the turn (Codex keeps background terminals until
  // thread/backgroundTerminals/clean) is not this row's business; it must not outlive the thread.
  it('kills a command left running in the background when the thread is closed', async () => {
    const marker = sleepMarker(300);
    try {
      const thread = await h.startThread();
      const turn = h.runTurn(thread, [execCall(`sleep ${marker}`, { yield_time_ms: 250 })]);
      await waitFor(() => sleepProcesses(marker).length > 0, 10_000, 'the background command to start');
      expect((await turn).turn.status).toBe('completed');
      await thread.close();
      await waitFor(() => sleepProcesses(marker).length === 0, GONE_TIMEOUT_MS, 'the background command to be gone');
    } finally {
      killSleepProcesses(marker);
    }
  });
});
