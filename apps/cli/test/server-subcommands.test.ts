/**
 * `deputy app-server` and `deputy mcp-server` as hosts run them: real child processes of the
 * built CLI (which starts the servers' bundles directly when they are built), answering
 * `initialize` on stdio and exiting 0 at the end of stdin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureCliBuilt, runCli } from './cli-process.js';

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
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'cli-test', title: null, version: '0' }, capabilities: null } };
    const result = await runCli(['app-server', '--listen', 'stdio://'], { home, cwd: home, stdin: `${JSON.stringify(initialize)}\n` }, 30_000);
    expect(result.code, result.stderr).toBe(0);
    const reply = messages(result.stdout).find((m) => m.id === 1);
    expect(reply?.result, result.stdout).toMatchObject({ userAgent: expect.any(String) });
  });

  it('deputy mcp-server answers initialize on stdio and exits 0 at the end of stdin', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '0' } } };
    const result = await runCli(['mcp-server'], { home, cwd: home, stdin: `${JSON.stringify(initialize)}\n` }, 30_000);
    expect(result.code, result.stderr).toBe(0);
    const reply = messages(result.stdout).find((m) => m.id === 1);
    expect(reply?.result, result.stdout).toMatchObject({ serverInfo: expect.any(Object) });
  });
});
