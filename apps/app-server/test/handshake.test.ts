/**
 * Contract tests of the handshake, the experimental gate and the error texts (docs/app-server.md
 * "Envelope and errors" and "Handshake").
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

describe('initialize', () => {
  it('answers with the user agent, the home and the platform, then reports remote control disabled', async () => {
    const client = await h.connect({ initialize: false });
    const result = await client.call('initialize', { clientInfo: { name: 'probe', title: 'Probe', version: '1.2.3' } });
    expect(result).toMatchObject({ codexHome: h.temp.home, platformFamily: 'unix' });
    expect(String(result.userAgent)).toMatch(/^probe\/0\.171\.0 \(.+; .+\) \S+ \(probe; 1\.2\.3\) deputy\/\S+$/);
    const status = await client.waitForNotification('remoteControl/status/changed');
    expect(status.params).toMatchObject({ status: 'disabled', environmentId: null });
    expect(Object.keys(status.params).sort()).toEqual(['environmentId', 'installationId', 'serverName', 'status']);
  });

  it('sends the configuration warnings after initialize', async () => {
    await h.close();
    h = await startHarness({ approvalPolicy: 'on-failure' });
    const client = await h.connect();
    const warning = await client.waitForNotification('configWarning');
    expect(warning.params).toEqual({ summary: expect.stringContaining('on-failure'), details: null });
  });

  it('refuses requests before initialize and lets a failed initialize be retried', async () => {
    const client = await h.connect({ initialize: false });
    expect((await client.request('thread/list', {})).error).toEqual({ code: -32600, message: 'Not initialized' });
    expect((await client.request('initialize')).error?.message).toBe('Invalid request: missing field `params`');
    expect((await client.request('initialize', {})).error?.message).toBe('Invalid request: missing field `clientInfo`');
    expect((await client.request('initialize', { clientInfo: { name: 'x' } })).error?.message).toBe('Invalid request: missing field `version`');
    await client.initialize();
    expect((await client.call('thread/loaded/list', {}))).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a second initialize and accepts the initialized notification twice', async () => {
    const client = await h.connect();
    await client.notify('initialized');
    const second = await client.request('initialize', { clientInfo: { name: 'x', version: '1' } });
    expect(second.error).toEqual({ code: -32600, message: 'Already initialized' });
    expect((await client.call('thread/loaded/list', {}))).toBeDefined();
  });

  it('echoes string, integer and negative ids with their JSON type', async () => {
    const client = await h.connect();
    expect((await client.request('thread/loaded/list', {}, 'startup-skills-list-1')).id).toBe('startup-skills-list-1');
    expect((await client.request('thread/loaded/list', {}, -7)).id).toBe(-7);
    expect((await client.request('thread/loaded/list', {}, 0)).id).toBe(0);
  });
});

describe('experimental gate', () => {
  it('refuses experimental methods and fields without the capability, after parsing the params', async () => {
    const stable = await h.connect();
    expect((await stable.request('collaborationMode/list', {})).error?.message).toBe('collaborationMode/list requires experimentalApi capability');
    const thread = await stable.call<{ thread: { id: string } }>('thread/start', {});
    const gated = await stable.request('thread/resume', { threadId: thread.thread.id, excludeTurns: true });
    expect(gated.error?.message).toBe('thread/resume.excludeTurns requires experimentalApi capability');
    const badFirst = await stable.request('thread/resume', { threadId: 5, excludeTurns: true });
    expect(badFirst.error?.message).toMatch(/^Invalid request: invalid type/);
    expect((await stable.request('thread/start', { approvalPolicy: { granular: { sandbox_approval: true, rules: true, mcp_elicitations: false } } })).error?.message).toBe(
      'askForApproval.granular requires experimentalApi capability',
    );
  });

  it('serves experimental methods to a client that opted in', async () => {
    const client = await h.connect({ capabilities: { experimentalApi: true } });
    const modes = await client.call<{ data: Array<{ mode: string }> }>('collaborationMode/list', {});
    expect(modes.data.map((m) => m.mode)).toEqual(['plan', 'default']);
  });
});

describe('errors', () => {
  it('answers an unknown method with the list of accepted names', async () => {
    const client = await h.connect();
    const response = await client.request('thread/explode', {});
    expect(response.error?.code).toBe(-32600);
    expect(response.error?.message).toMatch(/^Invalid request: unknown variant `thread\/explode`, expected one of `initialize`, `thread\/start`, /);
  });

  it('answers a method the reference has but this server does not serve with a well-formed error', async () => {
    const client = await h.connect();
    const response = await client.request('plugin/list', {});
    expect(response.error).toEqual({ code: -32600, message: 'Invalid request: `plugin/list` is not supported by this server' });
  });

  it('answers missing and malformed params with the deserializer text', async () => {
    const client = await h.connect();
    expect((await client.request('account/read')).error?.message).toBe('Invalid request: missing field `params`');
    expect((await client.request('thread/read', {})).error?.message).toBe('Invalid request: missing field `threadId`');
    expect((await client.request('thread/start', { sandbox: 'workspaceWrite' })).error?.message).toMatch(/^Invalid request: unknown variant `workspaceWrite`/);
    expect((await client.request('thread/read', { threadId: 'not-a-uuid' })).error?.message).toBe(
      'invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
    );
  });

  it('ignores the jsonrpc member and unknown params fields, and treats null params as missing', async () => {
    const client = await h.connect();
    expect(await client.call('thread/loaded/list', { limit: 5, somethingNew: true })).toEqual({ data: [], nextCursor: null });
    expect((await client.request('account/read', null)).error?.message).toBe('Invalid request: missing field `params`');
  });
});

describe('notification opt-out', () => {
  it('suppresses only the opted-out notifications of a connection', async () => {
    const quiet = await h.connect({ capabilities: { optOutNotificationMethods: ['thread/started', 'remoteControl/status/changed'] } });
    const loud = await h.connect();
    const { thread } = await quiet.call<{ thread: { id: string } }>('thread/start', {});
    await loud.waitForNotification('thread/started', (p) => (p.thread as { id: string }).id === thread.id);
    await quiet.call('thread/loaded/list', {});
    expect(quiet.notifications('thread/started')).toEqual([]);
    expect(quiet.notifications('remoteControl/status/changed')).toEqual([]);
  });
});
