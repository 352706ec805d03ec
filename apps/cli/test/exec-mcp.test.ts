/**
 * `deputy exec` with an MCP server (the built CLI; `[mcp_servers.tiny]` runs the engine's tiny
 * test server in place): the call on stderr, the `mcp_tool_call` item with `--json`, and an
 * approval without a terminal (denied with the usual hint).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { functionCall, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { ensureCliBuilt, runCli } from './cli-process.js';

const TINY = fileURLToPath(new URL('../../../packages/engine/test/mcp/fixtures/tiny-server.mjs', import.meta.url));

let server: ScriptedModelServer;
beforeAll(async () => {
  await ensureCliBuilt();
  server = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

async function homeWithTiny(policy: string): Promise<TempHome> {
  const temp = await makeTempHome('deputy-cli-mcp-');
  onTestFinished(() => temp.cleanup());
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    `approval_policy = "${policy}"`,
    'sandbox_mode = "danger-full-access"',
    '[model_providers.mock]',
    `base_url = "${server.url}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '[mcp_servers.tiny]',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = [${JSON.stringify(TINY)}]`,
  ].join('\n');
  await writeFile(join(temp.home, 'config.toml'), toml);
  return temp;
}

type JsonLine = { type: string; item?: Record<string, unknown> };

describe('deputy exec with an MCP server', () => {
  it('prints an mcp_tool_call item with --json', async () => {
    const temp = await homeWithTiny('never');
    server.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'from exec' }, 'call_x1')] }, { output: [text('done')] });
    const result = await runCli(['exec', '--json', 'call the tool'], { home: temp.home, cwd: temp.cwd }, 30_000);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as JsonLine);
    const mcp = lines.filter((l) => l.item?.type === 'mcp_tool_call');
    expect(mcp.map((l) => l.type)).toEqual(['item.started', 'item.completed']);
    expect(mcp[0]!.item).toEqual({ id: 'item_0', type: 'mcp_tool_call', server: 'tiny', tool: 'plain', arguments: { text: 'from exec' }, result: null, error: null, status: 'in_progress' });
    expect(mcp[1]!.item).toEqual({
      id: 'item_0',
      type: 'mcp_tool_call',
      server: 'tiny',
      tool: 'plain',
      arguments: { text: 'from exec' },
      result: { content: [{ type: 'text', text: 'plain: from exec' }], structured_content: null },
      error: null,
      status: 'completed',
    });
  }, 60_000);

  it('shows the call on stderr', async () => {
    const temp = await homeWithTiny('never');
    server.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'hi' })] }, { output: [text('done')] });
    const result = await runCli(['exec', 'call the tool'], { home: temp.home, cwd: temp.cwd }, 30_000);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/mcp: tiny\.plain\(\{"text":"hi"\}\)\n {2}ok in \d+\.\d\ds/);
  }, 60_000);

  it('denies an MCP approval without a terminal, with the usual hint', async () => {
    const temp = await homeWithTiny('untrusted');
    server.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'hi' })] }, { output: [text('was refused')] });
    const result = await runCli(['exec', '--json', 'call the tool'], { home: temp.home, cwd: temp.cwd }, 30_000);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/deputy: approval needed but stdin is not a terminal: denied\./);
    const done = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as JsonLine)
      .find((l) => l.type === 'item.completed' && l.item?.type === 'mcp_tool_call');
    expect(done?.item).toMatchObject({ status: 'failed', result: null, error: { message: expect.stringMatching(/rejected/) } });
  }, 60_000);
});
