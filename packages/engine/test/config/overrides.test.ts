/** `-c key=value` overrides (TOML values, raw strings, dotted keys) and per-thread `applyOverrides`. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { applyOverrides } from '../../src/config/resolve-config.js';
import { nestedFromDotted, parseCliOverride, splitKeyPath } from '../../src/config/toml-layers.js';

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-home-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const writeConfig = (text: string): Promise<void> => fs.writeFile(path.join(home, 'config.toml'), text);
const load = (overrides: string[], extra: { profile?: string; modelOverride?: string } = {}) =>
  loadConfig({ home, cwd: home, env: { OPENAI_API_KEY: 'sk-test' }, overrides, ...extra });

describe('-c overrides', () => {
  it('parses values as TOML and falls back to raw strings', () => {
    expect(parseCliOverride('model_context_window=128000')).toEqual({ model_context_window: 128000 });
    expect(parseCliOverride('sandbox_workspace_write.network_access=true')).toEqual({ sandbox_workspace_write: { network_access: true } });
    expect(parseCliOverride('sandbox_workspace_write.writable_roots=["/a", "/b"]')).toEqual({ sandbox_workspace_write: { writable_roots: ['/a', '/b'] } });
    expect(parseCliOverride('model="gpt-5.4"')).toEqual({ model: 'gpt-5.4' });
    expect(parseCliOverride('model=gpt-5.4')).toEqual({ model: 'gpt-5.4' });
    expect(parseCliOverride("developer_instructions='it''s raw")).toEqual({ developer_instructions: "it''s raw" });
    expect(parseCliOverride('mcp_server={ tools = ["codex"] }')).toEqual({ mcp_server: { tools: ['codex'] } });
    expect(parseCliOverride('model = spaced ')).toEqual({ model: 'spaced' });
  });

  it('splits dotted keys, honouring quoted segments', () => {
    expect(splitKeyPath('projects."/home/me/app.v2".trust_level', 'x')).toEqual(['projects', '/home/me/app.v2', 'trust_level']);
    expect(parseCliOverride('model_providers.local.base_url=http://127.0.0.1:8080/v1')).toEqual({
      model_providers: { local: { base_url: 'http://127.0.0.1:8080/v1' } },
    });
  });

  it('applies after the file and after the profile, later flags winning', async () => {
    await writeConfig('model = "from-file"\napproval_policy = "untrusted"\n[profiles.p]\nmodel = "from-profile"\napproval_policy = "never"\n');
    const c = await load(['model=from-flag-1', 'model=from-flag-2'], { profile: 'p' });
    expect(c.model).toBe('from-flag-2');
    expect(c.approvalPolicy).toBe('never');
  });

  it('can select a profile and define providers', async () => {
    await writeConfig('[profiles.fast]\nmodel = "quick"\n');
    const c = await load(['profile=fast', 'model_providers.local.base_url="http://127.0.0.1:9/v1"', 'model_providers.local.wire_api=chat', 'model_provider=local']);
    expect(c.profile).toBe('fast');
    expect(c.model).toBe('quick');
    expect(c.provider).toMatchObject({ id: 'local', name: 'local', baseUrl: 'http://127.0.0.1:9/v1', wireApi: 'chat', apiKey: null });
  });

  it('lets --model win over everything', async () => {
    await writeConfig('model = "from-file"\n');
    const c = await load(['model=from-flag'], { modelOverride: 'from-m' });
    expect(c.model).toBe('from-m');
  });
});

describe('applyOverrides', () => {
  it('applies typed per-thread overrides on top of the loaded config', async () => {
    await writeConfig('model = "base"\nsandbox_mode = "read-only"\n[sandbox_workspace_write]\nnetwork_access = true\n');
    const base = await load([]);
    const next = applyOverrides(base, { model: 'thread-model', approvalPolicy: 'never', sandboxMode: 'workspace-write', reasoningEffort: 'xhigh' });
    expect(next.model).toBe('thread-model');
    expect(next.approvalPolicy).toBe('never');
    expect(next.sandboxPolicy).toMatchObject({ type: 'workspace-write', networkAccess: true });
    expect(next.reasoningEffort).toBe('xhigh');
    expect(base.model).toBe('base');
  });

  it('accepts dotted or nested config objects, with typed fields winning', async () => {
    const base = await load([]);
    const next = applyOverrides(base, {
      model: 'typed',
      config: { model: 'from-config', model_reasoning_effort: 'high', 'sandbox_workspace_write.exclude_slash_tmp': true, mcp_server: { tools: ['codex'] } },
    });
    expect(next.model).toBe('typed');
    expect(next.reasoningEffort).toBe('high');
    expect(next.sandboxWorkspaceWrite.excludeSlashTmp).toBe(true);
    expect(next.mcpServer).toEqual({ tools: ['codex'] });
  });

  it('switches profile and resolves a relative cwd against the current one', async () => {
    await writeConfig('[profiles.p]\napproval_policy = "untrusted"\n');
    const base = await load([]);
    const next = applyOverrides(base, { profile: 'p', cwd: 'sub' });
    expect(next.approvalPolicy).toBe('untrusted');
    expect(next.cwd).toBe(path.join(home, 'sub'));
  });

  it('treats null fields as "keep"', async () => {
    const base = await load(['model=kept']);
    expect(applyOverrides(base, { model: null, approvalPolicy: null, config: null }).model).toBe('kept');
  });

  it('names the thread override in validation errors', async () => {
    const base = await load([]);
    expect(() => applyOverrides(base, { config: { approval_policy: 'sometimes' } })).toThrow(
      'config override: approval_policy: expected one of untrusted, on-failure, on-request, never, got "sometimes"',
    );
  });

  it('builds nested tables from dotted keys', () => {
    expect(nestedFromDotted({ 'a.b': 1, a: { c: 2 }, 'x."y.z"': true }, 'l')).toEqual({ a: { b: 1, c: 2 }, x: { 'y.z': true } });
  });
});
