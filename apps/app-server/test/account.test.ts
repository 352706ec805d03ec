/**
 * Contract tests of API-key login, login cancel and logout (docs/app-server.md "Methods served"):
 * auth.json on disk, what `account/read` says afterwards, the key the next model request carries,
 * the broadcasts, and the refusal of ChatGPT logins. The key a request carried is read from the
 * scripted model server's recorded `Authorization` header.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessPerTest, type HarnessOptions, type Harness } from './support/harness.js';
import { runTurn, startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const harness = harnessPerTest();

/** A `mock` provider that takes the OpenAI key, started with `sk-old` in auth.json. */
const OPENAI_AUTH: HarnessOptions = {
  extraToml: 'requires_openai_auth = true',
  homeFiles: { 'auth.json': JSON.stringify({ OPENAI_API_KEY: 'sk-old' }) },
};
const CHATGPT_REFUSAL = { code: -32600, message: 'ChatGPT login is not supported by this server; use {type:"apiKey"}' };

/** The bearer token of the last model request. */
function lastBearer(server: Harness): unknown {
  return server.model.requests.filter((r) => r.wire === 'responses').at(-1)?.headers.authorization;
}

/** Methods of the account notifications a client received, with their params. */
function accountNotifications(client: WireClient): Array<{ method: string; params: Record<string, unknown> }> {
  return client.notifications().filter((n) => n.method.startsWith('account/'));
}

describe('account/login/start with an API key', () => {
  it('stores the key, answers, then broadcasts login/completed and updated, and the next turn uses the key', async () => {
    const server = await harness(OPENAI_AUTH);
    const client = await server.connect();
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'before');
    expect(lastBearer(server)).toBe('Bearer sk-old');

    const response = await client.request('account/login/start', { type: 'apiKey', apiKey: 'sk-new' });
    expect(response).toEqual({ id: expect.anything(), result: { type: 'apiKey' } });
    await client.waitForNotification('account/updated');
    // The response precedes the notifications it caused.
    const responseAt = client.received.findIndex((m) => 'id' in m && m.id === response.id && !('method' in m));
    const completedAt = client.received.findIndex((m) => 'method' in m && m.method === 'account/login/completed');
    expect(responseAt).toBeGreaterThanOrEqual(0);
    expect(completedAt).toBeGreaterThan(responseAt);
    expect(accountNotifications(client)).toEqual([
      { method: 'account/login/completed', params: { loginId: null, success: true, error: null } },
      { method: 'account/updated', params: { authMode: 'apikey', planType: null } },
    ]);

    const file = join(server.temp.home, 'auth.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-new' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await client.call('account/read', {})).toEqual({ account: { type: 'apiKey' }, requiresOpenaiAuth: true });

    await runTurn(client, thread.id, 'after');
    expect(lastBearer(server)).toBe('Bearer sk-new');
  });

  it('sends the account notifications to every initialized connection, not to one still in its handshake', async () => {
    const server = await harness();
    const caller = await server.connect({ name: 'caller' });
    const other = await server.connect({ name: 'other' });
    const fresh = await server.connect({ name: 'fresh', initialize: false });
    await caller.call('account/login/start', { type: 'apiKey', apiKey: 'sk-test-FAKE-0000' });
    await other.waitForNotification('account/updated');
    expect(accountNotifications(other).map((n) => n.method)).toEqual(['account/login/completed', 'account/updated']);
    await caller.call('account/logout');
    await other.waitForNotification('account/updated', (p) => p.authMode === null);
    expect(await fresh.call('initialize', { clientInfo: { name: 'late', version: '0.0.1' } })).toMatchObject({ platformFamily: 'unix' });
    expect(accountNotifications(fresh)).toEqual([]);
  });

  it('accepts a key with a provider that needs no OpenAI auth, which still reports no account (as the reference)', async () => {
    const server = await harness();
    const client = await server.connect();
    expect(await client.call('account/login/start', { type: 'apiKey', apiKey: 'sk-test-FAKE-0000' })).toEqual({ type: 'apiKey' });
    await client.waitForNotification('account/updated');
    expect(JSON.parse(await readFile(join(server.temp.home, 'auth.json'), 'utf8'))).toEqual({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-test-FAKE-0000' });
    expect(await client.call('account/read', {})).toEqual({ account: null, requiresOpenaiAuth: false });
    const thread = await startThread(client);
    await runTurn(client, thread.id, 'hello');
    expect(lastBearer(server)).toBeUndefined();
  });

  it('accepts an empty key, which leaves no usable key', async () => {
    const server = await harness(OPENAI_AUTH);
    const client = await server.connect();
    expect(await client.call('account/login/start', { type: 'apiKey', apiKey: '' })).toEqual({ type: 'apiKey' });
    await client.waitForNotification('account/updated');
    expect(JSON.parse(await readFile(join(server.temp.home, 'auth.json'), 'utf8'))).toEqual({ auth_mode: 'apikey', OPENAI_API_KEY: '' });
    expect(await client.call('account/read', {})).toEqual({ account: null, requiresOpenaiAuth: true });
  });

  it('rejects a missing key or an unknown type with the reference messages', async () => {
    const client = await (await harness()).connect();
    expect((await client.request('account/login/start', { type: 'apiKey' })).error).toMatchObject({ code: -32600, message: 'Invalid request: missing field `apiKey`' });
    expect((await client.request('account/login/start', { type: 'bogus' })).error).toMatchObject({
      code: -32600,
      message: 'Invalid request: unknown variant `bogus`, expected one of `apiKey`, `chatgpt`, `chatgptDeviceCode`, `chatgptAuthTokens`',
    });
  });
});

describe('ChatGPT logins', () => {
  it('refuses the browser and device-code logins and keeps serving', async () => {
    const server = await harness();
    const client = await server.connect();
    expect((await client.request('account/login/start', { type: 'chatgpt' })).error).toEqual(CHATGPT_REFUSAL);
    expect((await client.request('account/login/start', { type: 'chatgpt', codexStreamlinedLogin: true })).error).toEqual(CHATGPT_REFUSAL);
    expect((await client.request('account/login/start', { type: 'chatgptDeviceCode' })).error).toEqual(CHATGPT_REFUSAL);
    expect(accountNotifications(client)).toEqual([]);
    expect(await client.call('account/read', {})).toEqual({ account: null, requiresOpenaiAuth: false });
  });

  it('refuses host-supplied tokens: without experimentalApi as experimental, with it as unsupported', async () => {
    const server = await harness();
    const params = { type: 'chatgptAuthTokens', accessToken: 'at', chatgptAccountId: 'acct', chatgptPlanType: null };
    const plain = await server.connect();
    expect((await plain.request('account/login/start', params)).error).toEqual({
      code: -32600,
      message: 'account/login/start.chatgptAuthTokens requires experimentalApi capability',
    });
    const experimental = await server.connect({ capabilities: { experimentalApi: true } });
    expect((await experimental.request('account/login/start', params)).error).toEqual(CHATGPT_REFUSAL);
  });
});

describe('account/login/cancel', () => {
  it('finds no pending login for any UUID', async () => {
    const client = await (await harness()).connect();
    expect(await client.call('account/login/cancel', { loginId: '7dca5262-6d28-4845-ac88-b8c00ac36bb9' })).toEqual({ status: 'notFound' });
    expect(await client.call('account/login/cancel', { loginId: '7DCA52626D284845AC88B8C00AC36BB9' })).toEqual({ status: 'notFound' });
    expect(accountNotifications(client)).toEqual([]);
  });

  it('rejects a login id that is not a UUID', async () => {
    const client = await (await harness()).connect();
    expect((await client.request('account/login/cancel', { loginId: 'not-a-real-id' })).error).toEqual({ code: -32600, message: 'invalid login id: not-a-real-id' });
    expect((await client.request('account/login/cancel', { loginId: '' })).error).toEqual({ code: -32600, message: 'invalid login id: ' });
    expect((await client.request('account/login/cancel', {})).error).toMatchObject({ code: -32600, message: 'Invalid request: missing field `loginId`' });
  });
});

describe('account/logout', () => {
  it('deletes auth.json, broadcasts updated with no auth mode, and the server stops using the stored key', async () => {
    const server = await harness(OPENAI_AUTH);
    const client = await server.connect();
    const thread = await startThread(client);
    expect(await client.call('account/logout')).toEqual({});
    await client.waitForNotification('account/updated');
    expect(accountNotifications(client)).toEqual([{ method: 'account/updated', params: { authMode: null, planType: null } }]);
    await expect(stat(join(server.temp.home, 'auth.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await client.call('account/read', {})).toEqual({ account: null, requiresOpenaiAuth: true });

    const failed = await runTurn(client, thread.id, 'no key now');
    expect(failed.params.turn).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/^model provider "mock" needs an API key/) } });
    expect(server.model.requests.filter((r) => r.wire === 'responses')).toHaveLength(0);

    await client.call('account/login/start', { type: 'apiKey', apiKey: 'sk-again' });
    await runTurn(client, thread.id, 'key again');
    expect(lastBearer(server)).toBe('Bearer sk-again');
  });

  it('answers the same when nobody is logged in', async () => {
    const server = await harness();
    const client = await server.connect();
    expect(await client.call('account/logout')).toEqual({});
    expect(await client.call('account/logout')).toEqual({});
    await client.waitUntil(() => client.notifications('account/updated').length === 2 || undefined, 'two account/updated');
    expect(client.notifications('account/updated').map((n) => n.params)).toEqual([
      { authMode: null, planType: null },
      { authMode: null, planType: null },
    ]);
    await expect(stat(join(server.temp.home, 'auth.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
