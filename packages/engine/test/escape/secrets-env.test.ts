/**
 * Escape row that held: secrets are dropped from a command's environment. The engine's own
 * environment holds `*KEY*`, `*TOKEN*` and `*SECRET*` variables; a scripted model runs
 * `sleep <marker>` under each sandbox mode and the host reads that process's environment from
 * /proc/PID/environ while it runs. The secrets must be absent, the plain control variable present.
 * Nothing the model was told is checked.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxMode } from '@deputy/protocol';
import { waitFor } from '../helpers/engine.js';
import { CONFINED_TMP_TOML, execCall, requireBwrap, SafetyHarness } from '../safety/harness.js';
import { killSleepProcesses, sleepMarker, sleepProcesses } from './host.js';

const SECRETS: Record<string, string> = {
  MY_API_KEY: 'sk-escape-probe',
  GH_TOKEN: 'ghp-escape-probe',
  Client_Secret: 'cs-escape-probe',
  AWS_SECRET_ACCESS_KEY: 'aws-escape-probe',
  npm_config__authToken: 'npm-escape-probe',
};
const MODES: SandboxMode[] = ['workspace-write', 'read-only', 'danger-full-access'];

beforeAll(async () => {
  await requireBwrap();
  for (const [name, value] of Object.entries(SECRETS)) vi.stubEnv(name, value);
  vi.stubEnv('DEPUTY_ESCAPE_PLAIN', 'visible');
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe.each(MODES)('with sandbox_mode = %s', (mode) => {
  let h: SafetyHarness;
  beforeAll(async () => {
    h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: mode, extraToml: CONFINED_TMP_TOML });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('starts the command without *KEY*, *TOKEN* or *SECRET* variables, as the host sees it', async () => {
    const marker = sleepMarker(1);
    try {
      const thread = await h.startThread();
      const turn = h.runTurn(thread, [execCall(`sleep ${marker}`)]);
      await waitFor(() => sleepProcesses(marker).some((p) => p.environ !== null), 10_000, 'the command to start');
      const environ = sleepProcesses(marker).find((p) => p.environ !== null)?.environ ?? {};
      expect(environ.DEPUTY_ESCAPE_PLAIN).toBe('visible');
      expect(Object.keys(environ).filter((name) => /key|token|secret/i.test(name))).toEqual([]);
      for (const value of Object.values(SECRETS)) expect(Object.values(environ)).not.toContain(value);
      expect((await turn).turn.status).toBe('completed');
    } finally {
      killSleepProcesses(marker);
    }
  });
});
