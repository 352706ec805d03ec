/**
 * Contract tests of serving both client generations (docs/app-server.md "Client generations" and
 * "Methods for current clients") over in-memory transports with the wire sniffer, which checks
 * every message a 0.130 client gets against the 0.130 reference schema and every message a
 * current client gets against the 0.171 one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generationOf, paramsFor, reportedApprovalPolicy, threadSourceFor } from '../src/generation.js';
import { startHarness, type Harness, type HarnessOptions } from './support/harness.js';
import { startThread, startTurn, turnCompleted, type WireThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

/** What the 0.171 TUI says about itself in `initialize`. */
const TUI_171 = {
  clientInfo: { name: 'codex-tui', version: '0.171.0' },
  capabilities: { requiredHumanApproval: true, experimentalApi: true, requestAttestation: false, optOutNotificationMethods: null },
};
/** What the 0.130 TUI says. */
const TUI_130 = { clientInfo: { name: 'codex-tui', version: '0.130.0' }, capabilities: { experimentalApi: true, optOutNotificationMethods: null } };

let h: Harness;
async function start(options: HarnessOptions = {}): Promise<void> {
  h = await startHarness(options);
}
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

const current = (): Promise<WireClient> => h.connect(TUI_171);

/** Runs one text turn with extra `turn/start` fields; resolves with its final status. */
async function turnStatus(client: WireClient, threadId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const done = await turnCompleted(client, await startTurn(client, threadId, text, extra));
  return (done.params.turn as { status: string }).status;
}

/** A wire thread with the 0.171 fields. */
type CurrentThread = WireThread & { projectId: string | null; model?: string | null; reasoningEffort?: string | null; recencyAt?: number | null };
const old = (): Promise<WireClient> => h.connect(TUI_130);

describe('generations', () => {
  it('are told apart from initialize: new capability keys or a codex-tui from 0.169 on', async () => {
    await start();
    expect(generationOf(TUI_171)).toBe('current');
    expect(generationOf(TUI_130)).toBe('0.130');
    expect(generationOf({ clientInfo: { name: 'codex-tui', version: '0.169.0' }, capabilities: null })).toBe('current');
    expect(generationOf({ clientInfo: { name: 'codex-tui', version: '0.168.9' }, capabilities: {} })).toBe('0.130');
    // Another product's version is not a protocol version.
    expect(generationOf({ clientInfo: { name: 'my-ide', version: '2.0.0' }, capabilities: {} })).toBe('0.130');
    expect(generationOf({ clientInfo: { name: 'my-ide', version: '2.0.0' }, capabilities: { extensions: {} } })).toBe('current');
  });

  it('render stored values per generation: new threadSource values and on-failure never reach a 0.130 client', async () => {
    await start();
    expect(threadSourceFor('0.130', 'thread_title')).toBeNull();
    expect(threadSourceFor('0.130', 'subagent')).toBe('subagent');
    expect(threadSourceFor('current', 'thread_title')).toBe('thread_title');
    const started = { thread: { id: 't', threadSource: 'thread_title' } };
    expect(paramsFor('0.130', started)).toEqual({ thread: { id: 't', threadSource: null } });
    expect(paramsFor('current', started)).toBe(started);
    expect(started.thread.threadSource).toBe('thread_title');
    expect(reportedApprovalPolicy('on-failure')).toBe('on-request');
    expect(reportedApprovalPolicy('untrusted')).toBe('untrusted');
  });

  it('answer both with the protocol version first in userAgent and Deputy named at the end', async () => {
    await start();
    for (const who of [TUI_171, TUI_130]) {
      const client = await h.connect({ initialize: false });
      const { userAgent } = await client.initialize(who.capabilities, who.clientInfo);
      const v = who.clientInfo.version.replaceAll('.', '\\.');
      expect(userAgent).toMatch(new RegExp(`^codex-tui/0\\.171\\.0 \\(.+\\) \\S+ \\(codex-tui; ${v}\\) deputy/\\d+\\.\\d+\\.\\d+$`));
    }
  });

  it('greet with remoteControl/status/changed carrying the host name and a stable installation id', async () => {
    await start();
    const a = await current();
    const b = await old();
    const greetingA = await a.waitForNotification('remoteControl/status/changed');
    const greetingB = await b.waitForNotification('remoteControl/status/changed');
    const stored = readFileSync(join(h.temp.home, 'installation_id'), 'utf8').trim();
    expect(greetingA.params).toMatchObject({ status: 'disabled', installationId: stored, environmentId: null });
    expect(greetingB.params).toEqual(greetingA.params);
    expect(typeof greetingA.params.serverName).toBe('string');
    expect(await a.call('remoteControl/status/read')).toEqual(greetingA.params);
  });

  it('report a configured on-failure as on-request to both, in config/read and thread results', async () => {
    await start({ approvalPolicy: 'on-failure' });
    for (const client of [await current(), await old()]) {
      const read = await client.call<{ config: Record<string, unknown>; layers: Array<{ config: Record<string, unknown> }> }>('config/read', {
        includeLayers: true,
      });
      expect(read.config.approval_policy).toBe('on-request');
      expect(read.layers.map((layer) => layer.config.approval_policy)).toContain('on-request');
      expect(JSON.stringify(read)).not.toContain('on-failure');
      const session = await client.call<{ approvalPolicy: string; thread: CurrentThread }>('thread/start', {});
      expect(session.approvalPolicy).toBe('on-request');
      expect(session.thread).toMatchObject({ projectId: null, model: 'mock-model' });
      expect(typeof session.thread.recencyAt).toBe('number');
    }
    // The file keeps what the user wrote.
    expect(readFileSync(join(h.temp.home, 'config.toml'), 'utf8')).toContain('approval_policy = "on-failure"');
  });

  it('accept reasoning efforts as open strings: max runs as xhigh, an unknown one is refused plainly', async () => {
    await start();
    const client = await current();
    const thread = await startThread(client);
    expect(await turnStatus(client, thread.id, 'hello', { effort: 'max' })).toBe('completed');
    const read = await client.call<{ thread: CurrentThread }>('thread/read', { threadId: thread.id });
    expect(read.thread.reasoningEffort).toBe('xhigh');
    const refused = await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'x' }], effort: 'galaxy' });
    expect(refused.error?.message).toMatch(/reasoning effort `galaxy` is not supported by this server/);
  });

  it('refuse an image by fileId and audio input with a clear message', async () => {
    await start();
    const client = await current();
    const thread = await startThread(client);
    const byFile = await client.request('turn/start', { threadId: thread.id, input: [{ type: 'image', fileId: 'file_1' }] });
    expect(byFile.error?.code).toBe(-32600);
    expect(byFile.error?.message).toMatch(/image input by `fileId` .* is not supported by this server/);
    const audio = await client.request('turn/start', { threadId: thread.id, input: [{ type: 'localAudio', path: '/tmp/a.wav' }] });
    expect(audio.error?.message).toMatch(/`localAudio` input is not supported by this server/);
  });
});

describe('permission profiles', () => {
  it('lists the three built-in profiles', async () => {
    await start();
    const client = await current();
    const list = await client.call<{ data: Array<{ id: string; allowed: boolean }> }>('permissionProfile/list', { cwd: h.temp.cwd, limit: 100 });
    expect(list.data.map((p) => [p.id, p.allowed])).toEqual([
      [':read-only', true],
      [':workspace', true],
      [':danger-full-access', true],
    ]);
  });

  it('select a sandbox by profile id on thread/start, refuse it with sandbox, and keep the 0.130 object', async () => {
    await start();
    const client = await current();
    const readOnly = await client.call<Record<string, unknown>>('thread/start', { permissions: ':read-only', approvalPolicy: 'never', sandbox: null });
    expect(readOnly).toMatchObject({ sandbox: { type: 'readOnly' }, activePermissionProfile: { id: ':read-only', extends: null } });
    const both = await client.request('thread/start', { permissions: ':workspace', sandbox: 'read-only' });
    expect(both.error?.message).toBe('Invalid request: `permissions` cannot be combined with `sandbox`');
    const unknown = await client.request('thread/start', { permissions: ':root' });
    expect(unknown.error?.message).toMatch(/unknown permission profile `:root`; this server offers :read-only, :workspace, :danger-full-access/);
    const legacy = await client.call<Record<string, unknown>>('thread/start', { permissions: { type: 'profile', id: ':workspace' } });
    expect(legacy).toMatchObject({ sandbox: { type: 'workspaceWrite' }, activePermissionProfile: { id: ':workspace' } });
  });

  it('thread/settings/update applies to the next turn, is persisted with it, and tells current subscribers only', async () => {
    await start({ sandbox: 'read-only' });
    const a = await current();
    const thread = await startThread(a);
    const b = await old();
    await b.call('thread/resume', { threadId: thread.id });
    await a.call('thread/settings/update', { threadId: thread.id, permissions: ':danger-full-access', approvalPolicy: 'never', approvalsReviewer: 'user' });
    const updated = await a.waitForNotification('thread/settings/updated');
    expect(updated.params).toMatchObject({
      threadId: thread.id,
      threadSettings: { sandboxPolicy: { type: 'dangerFullAccess' }, approvalPolicy: 'never', activePermissionProfile: { id: ':danger-full-access' } },
    });
    expect(await turnStatus(a, thread.id, 'hello')).toBe('completed');
    expect(b.notifications('thread/settings/updated')).toEqual([]);
    // Unloaded and resumed, the thread keeps the settings its last turn ran with.
    await a.call('thread/unsubscribe', { threadId: thread.id });
    await b.call('thread/unsubscribe', { threadId: thread.id });
    const c = await current();
    const resumed = await c.call<Record<string, unknown>>('thread/resume', { threadId: thread.id });
    expect(resumed).toMatchObject({ sandbox: { type: 'dangerFullAccess' }, activePermissionProfile: { id: ':danger-full-access' } });
    const refused = await c.request('thread/settings/update', { threadId: thread.id, permissions: ':workspace', sandboxPolicy: { type: 'readOnly' } });
    expect(refused.error?.message).toBe('Invalid request: `permissions` cannot be combined with `sandboxPolicy`');
  });

  it('turn/settings/update changes the running turn\'s later model requests only, and refuses what Deputy cannot do', async () => {
    await start({ sandbox: 'danger-full-access' });
    const client = await current();
    const thread = await startThread(client);
    const responses = () => h.model.requests.filter((r) => r.wire === 'responses');
    const turnId = await startTurn(client, thread.id, 'run: sleep 1', { approvalPolicy: 'never', model: 'gpt-5.2-codex', effort: 'low' });
    await client.waitForNotification('item/started', (p) => (p.item as { type: string }).type === 'commandExecution');
    const refused = [
      [{ approvalsReviewer: 'auto_review' }, 'approvalsReviewer auto_review is not supported by this server (approvals go to the client)'],
      [{ serviceTier: 'flex' }, 'serviceTier is not supported by this server'],
      [{ environments: [{ cwd: '/', environmentId: 'remote' }] }, 'environments are not supported by this server (commands run on this host)'],
    ] as const;
    for (const [fields, message] of refused) {
      const answer = await client.request('turn/settings/update', { threadId: thread.id, turnId, ...fields });
      expect(answer.error).toMatchObject({ code: -32600, message });
    }
    const update = { threadId: thread.id, turnId, effort: 'high', summary: 'detailed', approvalsReviewer: 'user', serviceTier: null, environments: [] };
    expect(await client.call('turn/settings/update', update)).toEqual({ status: 'applied' });
    await turnCompleted(client, turnId);
    const reasoningOf = (r: (typeof h.model.requests)[number]) => r.body.reasoning as { effort?: string; summary?: string } | undefined;
    // The first request went out before the change; the one after the command carries it.
    expect(responses().map(reasoningOf)).toMatchObject([{ effort: 'low' }, { effort: 'high', summary: 'detailed' }]);
    // A finished turn is no target, and the thread's next turn runs with the thread's settings.
    expect(await client.call('turn/settings/update', { threadId: thread.id, turnId, model: 'gpt-4.1' })).toEqual({ status: 'targetUnavailable' });
    const second = await startTurn(client, thread.id, 'run: sleep 1');
    await client.waitForNotification('item/started', (p) => (p.item as { type: string }).type === 'commandExecution' && p.turnId === second);
    expect(reasoningOf(responses().at(-1)!)).toMatchObject({ effort: 'low' });
    expect(await client.call('turn/settings/update', { threadId: thread.id, turnId: second, model: 'gpt-4.1' })).toEqual({ status: 'applied' });
    await turnCompleted(client, second);
    expect(responses().slice(-2).map((r) => r.body.model)).toEqual(['gpt-5.2-codex', 'gpt-4.1']);
    // Experimental, like the reference.
    const plain = await h.connect({ clientInfo: { name: 'codex-tui', version: '0.171.0' }, capabilities: { experimentalApi: false } });
    expect((await plain.request('turn/settings/update', { threadId: thread.id, turnId })).error?.message).toMatch(/turn\/settings\/update requires experimentalApi capability/);
  });

  it('turn/start takes permissions as a string and it stays the thread default', async () => {
    await start({ sandbox: 'danger-full-access' });
    const client = await current();
    const thread = await startThread(client);
    expect(await turnStatus(client, thread.id, 'hello', { permissions: ':read-only' })).toBe('completed');
    const resumed = await client.call<Record<string, unknown>>('thread/resume', { threadId: thread.id });
    expect(resumed).toMatchObject({ sandbox: { type: 'readOnly' }, activePermissionProfile: { id: ':read-only' } });
  });
});

describe('local answers and honest empty ones', () => {
  it('model providers: list the configured ones; set the default in config.toml', async () => {
    await start();
    const client = await current();
    const list = await client.call<{ data: Array<{ id: string; settings: unknown }>; defaultProviderId: string }>('modelProvider/list', {});
    expect(list.defaultProviderId).toBe('mock');
    expect(list.data.find((p) => p.id === 'mock')).toMatchObject({ baseUrl: h.model.url, canEdit: true, settings: { type: 'customGateway' } });
    expect(list.data.find((p) => p.id === 'openai')).toMatchObject({ canEdit: false, settings: { type: 'openai' } });
    const unknown = await client.request('modelProvider/default/set', { providerId: 'nope' });
    expect(unknown.error?.message).toMatch(/unknown model provider `nope`/);
    expect(await client.call('modelProvider/default/set', { providerId: 'openai' })).toEqual({});
    expect(readFileSync(join(h.temp.home, 'config.toml'), 'utf8')).toMatch(/^model_provider = "openai"$/m);
  });

  it('model providers: modelProvider/config/write edits a custom gateway in config.toml, keeping the file', async () => {
    await start({ extraToml: '# keep this comment' });
    const client = await current();
    const written = await client.call<{ provider: Record<string, unknown> }>('modelProvider/config/write', {
      settings: { type: 'customGateway', providerId: 'lab', name: 'Lab', baseUrl: 'https://llm.example/v1', envKey: 'LAB_API_KEY' },
    });
    expect(written.provider).toEqual({
      id: 'lab',
      name: 'Lab',
      baseUrl: 'https://llm.example/v1',
      canEdit: true,
      settings: { type: 'customGateway', auth: { mode: 'environmentVariable', envKey: 'LAB_API_KEY' } },
    });
    const file = readFileSync(join(h.temp.home, 'config.toml'), 'utf8');
    expect(file).toContain('# keep this comment');
    // The writer's own layout (here an inline table after the top-level keys); the values are what count.
    expect(file).toMatch(/model_providers\.lab\b[^\n]*name = "Lab"[^\n]*base_url = "https:\/\/llm\.example\/v1"[^\n]*env_key = "LAB_API_KEY"/);
    const list = await client.call<{ data: Array<{ id: string }> }>('modelProvider/list', {});
    expect(list.data.map((p) => p.id)).toContain('lab');
    // Without providerId, the current provider is edited.
    const renamed = await client.call<{ provider: { id: string; name: string } }>('modelProvider/config/write', { settings: { type: 'customGateway', name: 'Mock 2' } });
    expect(renamed.provider).toMatchObject({ id: 'mock', name: 'Mock 2' });
    const bedrock = await client.request('modelProvider/config/write', { settings: { type: 'bedrock', providerId: 'amazon-bedrock' } });
    expect(bedrock.error?.message).toBe('Invalid request: Amazon Bedrock providers are not supported by this server');
    const openai = await client.request('modelProvider/config/write', { settings: { type: 'customGateway', providerId: 'openai', name: 'x' } });
    expect(openai.error?.message).toMatch(/`openai` is not a custom gateway/);
  });

  it('answer what the TUI asks on start with defined empty values', async () => {
    await start();
    const client = await current();
    const thread = await startThread(client);
    expect(await client.call('plugin/installed', { cwds: [h.temp.cwd] })).toEqual({ marketplaces: [], marketplaceLoadErrors: [] });
    expect(await client.call('app/installed', {})).toEqual({ apps: [] });
    expect(await client.call('account/bedrock/checkGovCloudRequirements', {})).toEqual({ isGovCloud: false, shouldWarn: false });
    expect(await client.call('thread/backgroundTerminals/list', { threadId: thread.id })).toEqual({ data: [], nextCursor: null });
    expect(await client.call('thread/backgroundTerminals/terminate', { threadId: thread.id, processId: '1' })).toEqual({ terminated: false });
    expect(await client.call('account/usage/read')).toEqual({ summary: {}, dailyUsageBuckets: null, threadUsage: null });
    expect(await client.call('account/workspaceMessages/read')).toEqual({ featureEnabled: false, messages: [] });
    expect(await client.call('account/securitySetup/read')).toEqual({ notice: null });
    expect(await client.call('accountSession/list', {})).toEqual({ sessions: [], activeSessionId: null });
    expect(await client.call('account/gatewayOAuth/read')).toEqual({ providerId: 'mock', providerName: 'Mock', required: false });
    expect(await client.call('account/gatewayOAuth/cancel')).toEqual({});
    expect(await client.call('remoteControl/client/list', { environmentId: 'e' })).toEqual({ data: [], nextCursor: null });
    expect(await client.call('thread/realtime/list', { threadId: thread.id })).toMatchObject({ coverage: 'unsupported', data: [] });
    expect(await client.call('userVerification/status', {})).toMatchObject({ credentialId: null, unavailableReason: 'providerUnavailable' });
    expect(await client.call('userVerification/cancel', { requestId: 'r' })).toEqual({});
    expect(await client.call('userVerification/delete', {})).toEqual({});
    expect(await client.call('remoteControl/disable')).toMatchObject({ status: 'disabled', environmentId: null });
    expect(await client.call('plugin/search', { searchTerm: 'lint' })).toEqual({ data: [], nextCursor: null });
    expect(await client.call('plugin/reconcile', {})).toEqual({ changedPlugins: [], failedRemotePluginIds: [], failedMaterializationRemotePluginIds: [] });
    expect(await client.call('thread/memory/read', { threadId: thread.id })).toEqual({ summary: null });
    expect(await client.call('memory/status', {})).toEqual({ v2Ready: false, v2ConsolidatedThreads: 0 });
    expect((await client.request('thread/memory/read', { threadId: 'nope' })).error?.code).toBe(-32600);
  });

  it('refuse the backend features they do not have with a plain -32600, and experimental ones without the capability', async () => {
    await start();
    const client = await current();
    for (const method of ['remoteControl/enable', 'account/gcp/setup', 'environment/info']) {
      const answer = await client.request(method, {});
      expect(answer.error, method).toMatchObject({ code: -32600, message: `Invalid request: \`${method}\` is not supported by this server` });
    }
    const stable = await h.connect();
    expect((await stable.request('account/bedrock/checkGovCloudRequirements', {})).error?.message).toMatch(/requires experimentalApi capability/);
    expect(await stable.call('plugin/installed', {})).toEqual({ marketplaces: [], marketplaceLoadErrors: [] });
  });
});
