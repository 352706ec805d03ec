/**
 * Third-party MCP tooling against the built server: the MCP Inspector CLI
 * (`@modelcontextprotocol/inspector-cli` 1.0.3, the Node 20 build; `--cli` mode) for `tools/list`
 * and a `tools/call`, and the `@modelcontextprotocol/conformance` 0.1.13 server scenarios that
 * apply to a tools-only server over Streamable HTTP.
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_MAIN, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';

const run = promisify(execFile);
const modules = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
const INSPECTOR_CLI = modules('@modelcontextprotocol/inspector-cli/build/cli.js');
/** inspector-cli 1.0.3 finds its own package.json relative to the working directory. */
const INSPECTOR_CWD = modules('@modelcontextprotocol/inspector-cli/build');
const CONFORMANCE = modules('@modelcontextprotocol/conformance/dist/index.js');

/**
 * Scenarios that apply: the others exercise features this server does not offer (resources,
 * prompts, logging, completions) or tools of the conformance suite's own reference server.
 */
const CONFORMANCE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  useReferenceMock(harness.model);
});

afterAll(async () => {
  await harness?.close();
});

describe('MCP Inspector CLI', () => {
  const inspect = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [INSPECTOR_CLI, '-e', `DEPUTY_HOME=${harness.temp.home}`, '--cli', process.execPath, SERVER_MAIN, ...args], {
      cwd: INSPECTOR_CWD,
      env: harness.env(),
      timeout: 30_000,
    });
    return JSON.parse(stdout.slice(stdout.indexOf('{'))) as Record<string, unknown>;
  };

  it('lists the two tools', async () => {
    const listed = (await inspect('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['codex', 'codex-reply']);
  });

  it('calls the codex tool', async () => {
    const result = await inspect('--method', 'tools/call', '--tool-name', 'codex', '--tool-arg', 'prompt=inspected');
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ECHO: inspected' }, { type: 'text' }], structuredContent: { content: 'ECHO: inspected' } });
  });
});

describe('MCP conformance suite', () => {
  it('passes every server scenario that applies', async () => {
    const child = spawn(process.execPath, [SERVER_MAIN, '--listen', 'http://127.0.0.1:0/mcp', '--insecure-no-auth'], { env: harness.env(), stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const url = await waitFor(() => /listening on (\S+)/.exec(stderr)?.[1], 15_000, 'the listening line');
      // One after the other: each run loads the whole suite, and the machine may have two cores.
      for (const scenario of CONFORMANCE_SCENARIOS) {
        let output: string;
        try {
          output = (await run(process.execPath, [CONFORMANCE, 'server', '--url', url, '--scenario', scenario], { timeout: 60_000 })).stdout;
        } catch (error) {
          output = String((error as { stdout?: string }).stdout ?? error);
        }
        expect(/Passed: (\d+)\/\1, 0 failed/.test(output), `${scenario}:\n${output}`).toBe(true);
      }
    } finally {
      if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    }
  });
});
