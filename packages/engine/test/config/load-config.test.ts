/** Loading a realistic Codex config.toml: keys, profiles, providers, defaults and project trust. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';

let home: string;
let cwd: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-home-'));
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-cwd-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
  await fs.rm(cwd, { recursive: true, force: true });
});

const writeConfig = (text: string): Promise<void> => fs.writeFile(path.join(home, 'config.toml'), text);

/** A config a Codex user could have today: providers, profiles, MCP servers, unknown keys. */
const CODEX_CONFIG = `
model = "gpt-5.3-codex"
model_provider = "azure"
model_reasoning_effort = "high"
model_reasoning_summary = "detailed"
model_context_window = 272000
model_auto_compact_token_limit = 200000
approval_policy = "on-request"
sandbox_mode = "workspace-write"
project_doc_max_bytes = 65536
developer_instructions = "Prefer small commits."
instructions = "You are a careful engineer."
compact_prompt = "Summarise tersely."
notify = ["notify-send", "Codex"]
hide_agent_reasoning = true

[sandbox_workspace_write]
writable_roots = ["/opt/cache", "build/out"]
network_access = true

[shell_environment_policy]
inherit = "core"
exclude = ["AWS_*"]

[model_providers.azure]
name = "Azure OpenAI"
base_url = "https://example.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = { api-version = "2025-04-01-preview" }
http_headers = { "X-Team" = "core" }
env_http_headers = { "X-Trace" = "TRACE_ID", "X-Absent" = "NOT_SET_ANYWHERE" }
request_max_retries = 2
stream_idle_timeout_ms = 60000

[model_providers.ollama]
base_url = "http://gpu-box:11434/v1"

[profiles.fast]
model = "gpt-5.4-mini"
model_reasoning_effort = "low"
approval_policy = "never"

[profiles.local]
model_provider = "ollama"
model = "qwen3-coder"
sandbox_workspace_write = { network_access = false }

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_server]
tools = ["codex", "codex-reply"]

[tui]
theme = "dark"
`;

describe('loadConfig with a realistic Codex config', () => {
  it('reads every understood key and keeps unknown ones in raw', async () => {
    await writeConfig(CODEX_CONFIG);
    const env = { AZURE_OPENAI_API_KEY: 'az-key', TRACE_ID: 'trace-1' };
    const c = await loadConfig({ home, cwd, env });

    expect(c.configPath).toBe(path.join(home, 'config.toml'));
    expect(c.model).toBe('gpt-5.3-codex');
    expect(c.modelProviderId).toBe('azure');
    expect(c.provider).toEqual({
      id: 'azure',
      name: 'Azure OpenAI',
      baseUrl: 'https://example.openai.azure.com/openai',
      envKey: 'AZURE_OPENAI_API_KEY',
      apiKey: 'az-key',
      wireApi: 'responses',
      queryParams: { 'api-version': '2025-04-01-preview' },
      httpHeaders: { 'X-Team': 'core', 'X-Trace': 'trace-1' },
      requestMaxRetries: 2,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 60000,
    });
    expect(c.reasoningEffort).toBe('high');
    expect(c.reasoningSummary).toBe('detailed');
    expect(c.modelContextWindow).toBe(272000);
    expect(c.autoCompactTokenLimit).toBe(200000);
    expect(c.approvalPolicy).toBe('on-request');
    expect(c.sandboxMode).toBe('workspace-write');
    expect(c.sandboxWorkspaceWrite).toEqual({
      writableRoots: ['/opt/cache', path.join(cwd, 'build/out')],
      networkAccess: true,
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: false,
    });
    expect(c.sandboxPolicy).toMatchObject({ type: 'workspace-write', networkAccess: true });
    expect(c.projectDocMaxBytes).toBe(65536);
    expect(c.developerInstructions).toBe('Prefer small commits.');
    expect(c.baseInstructions).toBe('You are a careful engineer.');
    expect(c.compactPrompt).toBe('Summarise tersely.');
    expect(c.shellEnvironmentPolicy).toEqual({ inherit: 'core', exclude: ['AWS_*'] });
    expect(c.mcpServers).toEqual({ docs: { command: 'npx', args: ['-y', 'docs-mcp'] } });
    expect(c.mcpServer).toEqual({ tools: ['codex', 'codex-reply'] });
    expect(c.raw.notify).toEqual(['notify-send', 'Codex']);
    expect(c.raw.tui).toEqual({ theme: 'dark' });
    expect(c.usingDemoFallback).toBe(false);
    expect(c.warnings).toEqual([]);
  });

  it('overlays the selected profile on the top level', async () => {
    await writeConfig(CODEX_CONFIG);
    const c = await loadConfig({ home, cwd, env: { AZURE_OPENAI_API_KEY: 'k' }, profile: 'fast' });
    expect(c.profile).toBe('fast');
    expect(c.model).toBe('gpt-5.4-mini');
    expect(c.reasoningEffort).toBe('low');
    expect(c.approvalPolicy).toBe('never');
    expect(c.modelProviderId).toBe('azure');
  });

  it('lets a profile switch providers, and user tables override built-in providers field by field', async () => {
    await writeConfig(CODEX_CONFIG);
    const c = await loadConfig({ home, cwd, env: {}, profile: 'local' });
    expect(c.modelProviderId).toBe('ollama');
    expect(c.model).toBe('qwen3-coder');
    expect(c.provider).toMatchObject({ id: 'ollama', name: 'Ollama', baseUrl: 'http://gpu-box:11434/v1', wireApi: 'chat', apiKey: null });
    // Nested tables merge: the profile only turned network access off.
    expect(c.sandboxWorkspaceWrite.networkAccess).toBe(false);
    expect(c.sandboxWorkspaceWrite.writableRoots).toContain('/opt/cache');
  });

  it('selects the profile named by the file when no --profile is given', async () => {
    await writeConfig(`profile = "fast"\n${CODEX_CONFIG}`);
    const c = await loadConfig({ home, cwd, env: { AZURE_OPENAI_API_KEY: 'k' } });
    expect(c.profile).toBe('fast');
    expect(c.model).toBe('gpt-5.4-mini');
  });

  it('treats a missing config file as an empty config with Codex defaults', async () => {
    const c = await loadConfig({ home, cwd, env: { OPENAI_API_KEY: 'sk-test' } });
    expect(c.raw).toEqual({});
    expect(c.modelProviderId).toBe('openai');
    expect(c.approvalPolicy).toBe('on-request');
    expect(c.sandboxMode).toBe('read-only');
    expect(c.sandboxPolicy).toEqual({ type: 'read-only', networkAccess: false });
    expect(c.projectDocMaxBytes).toBe(32 * 1024);
    expect(c.reasoningEffort).toBeNull();
    expect(c.reasoningSummary).toBeNull();
    expect(c.baseInstructions).toBeNull();
    expect(c.shellEnvironmentPolicy).toEqual({});
    expect(c.mcpServers).toEqual({});
    expect(c.mcpServer).toEqual({});
  });

  it('prefers base_instructions over instructions', async () => {
    await writeConfig('instructions = "old"\nbase_instructions = "new"\n');
    const c = await loadConfig({ home, cwd, env: {} });
    expect(c.baseInstructions).toBe('new');
  });
});

describe('project trust defaults', () => {
  it('uses workspace-write for a trusted directory and read-only otherwise', async () => {
    await writeConfig(`[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n`);
    const trusted = await loadConfig({ home, cwd, env: {} });
    expect(trusted.projectTrust).toBe('trusted');
    expect(trusted.sandboxMode).toBe('workspace-write');
    expect(trusted.approvalPolicy).toBe('on-request');
    const other = await loadConfig({ home, cwd: os.tmpdir(), env: {} });
    expect(other.sandboxMode).toBe('read-only');
  });

  it('asks for everything in an untrusted directory unless the config says otherwise', async () => {
    await writeConfig(`[projects.${JSON.stringify(cwd)}]\ntrust_level = "untrusted"\n`);
    const c = await loadConfig({ home, cwd, env: {} });
    expect(c.approvalPolicy).toBe('untrusted');
    expect(c.sandboxMode).toBe('workspace-write');
  });

  it('inherits trust from the root of the git repository around cwd', async () => {
    await fs.mkdir(path.join(cwd, '.git'));
    const sub = path.join(cwd, 'packages', 'app');
    await fs.mkdir(sub, { recursive: true });
    await writeConfig(`[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n`);
    const c = await loadConfig({ home, cwd: sub, env: {} });
    expect(c.projectTrust).toBe('trusted');
    expect(c.sandboxMode).toBe('workspace-write');
  });

  it('lets an explicit sandbox_mode win over trust', async () => {
    await writeConfig(`sandbox_mode = "read-only"\n[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n`);
    const c = await loadConfig({ home, cwd, env: {} });
    expect(c.sandboxMode).toBe('read-only');
  });
});
