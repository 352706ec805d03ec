/**
 * `deputy app-server` and `deputy mcp-server` as hosts run them: real child processes of the
 * built CLI (which starts the servers' bundles directly when they are built), answering
 * `initialize` on stdio (the app-server through @deputy/client) and exiting 0 at the end of stdin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '@deputy/client';
import { CLI_ENTRY, ensureCliBuilt, runCli } from './cli-process.js';

let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
}, 120_000);

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'deputy-cli-servers-'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** The JSON-RPC messages of a stdout. */
function messages(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the server subcommands', () => {
  it('deputy app-server answers initialize on stdio and exits 0 at the end of stdin', async () => {
    const client = await connect({
      spawn: { command: process.execPath, args: [CLI_ENTRY, 'app-server', '--listen', 'stdio://'], cwd: home, env: { ...process.env, DEPUTY_HOME: home, NO_COLOR: '1' }, stderr: 'ignore' },
      clientInfo: { name: 'cli-test', title: null, version: '0' },
      timeoutMs: 30_000,
    });
    expect(client.server.userAgent).toContain('cli-test');
    // close() ends stdin and waits for the exit (a kill after 3 s would leave no exit code).
    await client.close();
    expect(client.child?.exitCode).toBe(0);
  });

  it('deputy mcp-server answers initialize on stdio and exits 0 at the end of stdin', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '0' } } };
    const result = await runCli(['mcp-server'], { home, cwd: home, stdin: `${JSON.stringify(initialize)}\n` }, 30_000);
    expect(result.code, result.stderr).toBe(0);
    const reply = messages(result.stdout).find((m) => m.id === 1);
    expect(reply?.result, result.stdout).toMatchObject({ serverInfo: expect.any(Object) });
  });
});
