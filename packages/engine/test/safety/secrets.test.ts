/**
 * Secrets in the parent environment through the real tool path: `MY_API_KEY` and `GH_TOKEN` are
 * set in the engine's own environment, and a scripted model asks `exec_command` to print them
 * under each sandbox mode. By default (`shell_environment_policy` defaults) they never reach the
 * command in any mode; `inherit = "all"` with `ignore_default_excludes = true` passes them on,
 * and `exclude` / `set` shape the rest.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxPolicy } from '@deputy/protocol';
import { CONFINED_TMP_TOML, execCall, FULL_ACCESS, READ_ONLY, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from './harness.js';

const PRINT = 'echo "key=${MY_API_KEY:-absent} gh=${GH_TOKEN:-absent} plain=${DEPUTY_PLAIN:-absent} set=${DEPUTY_SET:-absent}"';
const SANDBOXES: { name: string; sandbox: SandboxPolicy }[] = [
  { name: 'workspace-write', sandbox: WORKSPACE_WRITE },
  { name: 'read-only', sandbox: READ_ONLY },
  { name: 'danger-full-access', sandbox: FULL_ACCESS },
];

beforeAll(async () => {
  await requireBwrap();
  vi.stubEnv('MY_API_KEY', 'sk-not-for-children');
  vi.stubEnv('GH_TOKEN', 'ghp-not-for-children');
  vi.stubEnv('DEPUTY_PLAIN', 'visible');
});

afterAll(() => {
  vi.unstubAllEnvs();
});

/** Runs PRINT in a thread under `sandbox` and returns what the model read. */
async function printEnv(h: SafetyHarness, sandbox: SandboxPolicy): Promise<string> {
  const thread = await h.startThread({ approvalPolicy: 'never', sandbox });
  const result = await h.runTurn(thread, [execCall(PRINT)]);
  expect(result.turn.status).toBe('completed');
  return result.toldModel[0] ?? '';
}

describe('with the default shell_environment_policy', () => {
  let h: SafetyHarness;
  beforeAll(async () => {
    h = await SafetyHarness.start({ extraToml: CONFINED_TMP_TOML });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(SANDBOXES)('keeps MY_API_KEY and GH_TOKEN from a command under $name', async ({ sandbox }) => {
    const told = await printEnv(h, sandbox);
    expect(told).toContain('key=absent gh=absent plain=visible set=absent');
    expect(told).not.toContain('not-for-children');
  });
});

describe('with inherit = "all" and ignore_default_excludes = true', () => {
  let h: SafetyHarness;
  beforeAll(async () => {
    const toml = [CONFINED_TMP_TOML, '[shell_environment_policy]', 'inherit = "all"', 'ignore_default_excludes = true'].join('\n');
    h = await SafetyHarness.start({ extraToml: toml });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(SANDBOXES)('passes the secrets on to a command under $name', async ({ sandbox }) => {
    const told = await printEnv(h, sandbox);
    expect(told).toContain('key=sk-not-for-children gh=ghp-not-for-children plain=visible');
  });
});

describe('with exclude and set', () => {
  let h: SafetyHarness;
  beforeAll(async () => {
    const toml = [
      CONFINED_TMP_TOML,
      '[shell_environment_policy]',
      'ignore_default_excludes = true',
      'exclude = ["gh_*"]',
      'set = { DEPUTY_SET = "from-config" }',
    ].join('\n');
    h = await SafetyHarness.start({ extraToml: toml });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('drops names matching an exclude glob case-insensitively and adds the set variables inside the sandbox', async () => {
    const told = await printEnv(h, WORKSPACE_WRITE);
    expect(told).toContain('key=sk-not-for-children gh=absent plain=visible set=from-config');
  });
});
