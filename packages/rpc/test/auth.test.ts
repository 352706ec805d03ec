/** WebSocket auth at the upgrade on a real listener: capability tokens and HS256 JWTs, plus flag validation. */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { createWsAuthenticator, resolveWsAuthFlags, WsAuthConfigError, type WsAuthConfig } from '../src/auth.js';
import { listenWebSocket, type WebSocketListener } from '../src/transport/websocket.js';
import { closeClient, inbox, openClient, serve, waitFor } from './helpers.js';

const TOKEN = 'capability-token-for-tests-0123456789';
const SECRET = 'a-shared-secret-that-is-at-least-32-bytes-long';
let dir: string;
let tokenFile: string;
let secretFile: string;
let listener: WebSocketListener | undefined;
const clients: WebSocket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'deputy-rpc-auth-'));
  tokenFile = path.join(dir, 'token');
  secretFile = path.join(dir, 'secret');
  await writeFile(tokenFile, `${TOKEN}\n`);
  await writeFile(secretFile, `  ${SECRET}\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map(closeClient));
  await listener?.close();
  listener = undefined;
});

async function listenWith(config: WsAuthConfig): Promise<string> {
  listener = await listenWebSocket({ host: '127.0.0.1', port: 0, auth: await createWsAuthenticator(config) });
  serve(listener);
  return listener.url;
}

async function connectWith(url: string, authorization?: string): Promise<WebSocket> {
  const ws = await openClient(url, authorization === undefined ? {} : { headers: { Authorization: authorization } });
  clients.push(ws);
  return ws;
}

async function roundTrip(ws: WebSocket): Promise<unknown> {
  const messages = inbox(ws);
  ws.send('{"id":1,"method":"ping"}');
  await waitFor(() => messages.length === 1);
  return messages[0];
}

function jwt(claims: { exp?: number; aud?: string; iss?: string }, secret = SECRET): Promise<string> {
  const builder = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt();
  if (claims.exp !== undefined) builder.setExpirationTime(claims.exp);
  if (claims.aud !== undefined) builder.setAudience(claims.aud);
  if (claims.iss !== undefined) builder.setIssuer(claims.iss);
  return builder.sign(new TextEncoder().encode(secret));
}

const now = (): number => Math.floor(Date.now() / 1000);

describe('capability-token auth', () => {
  it('accepts the right bearer token from a token file and serves the connection', async () => {
    const url = await listenWith({ mode: 'capability-token', tokenFile });
    const ws = await connectWith(url, `Bearer ${TOKEN}`);
    expect(await roundTrip(ws)).toEqual({ id: 1, result: { method: 'ping', params: null } });
  });

  it('accepts a token whose SHA-256 was given instead of a file, with any scheme casing', async () => {
    const sha = createHash('sha256').update(TOKEN).digest('hex');
    const url = await listenWith({ mode: 'capability-token', tokenSha256: sha.toUpperCase() });
    await expect(connectWith(url, `bearer ${TOKEN}`)).resolves.toBeDefined();
  });

  it('answers 401 without a token, with a wrong token, or with another scheme', async () => {
    const url = await listenWith({ mode: 'capability-token', tokenFile });
    await expect(connectWith(url)).rejects.toMatchObject({ status: 401, body: 'missing websocket bearer token' });
    await expect(connectWith(url, `Bearer ${TOKEN}x`)).rejects.toMatchObject({ status: 401, body: 'invalid websocket bearer token' });
    await expect(connectWith(url, `Basic ${TOKEN}`)).rejects.toMatchObject({ status: 401, body: 'invalid authorization header' });
  });
});

describe('signed-bearer-token auth', () => {
  const config = (): WsAuthConfig => ({
    mode: 'signed-bearer-token',
    sharedSecretFile: secretFile,
    audience: 'deputy',
    issuer: 'tests',
    maxClockSkewSeconds: 5,
  });

  it('accepts a valid HS256 token with the expected issuer and audience', async () => {
    const url = await listenWith(config());
    const ws = await connectWith(url, `Bearer ${await jwt({ exp: now() + 60, aud: 'deputy', iss: 'tests' })}`);
    expect(await roundTrip(ws)).toMatchObject({ id: 1 });
  });

  it('answers 401 for an expired token, a bad signature, a wrong audience or issuer, or no exp', async () => {
    const url = await listenWith(config());
    const cases: [Promise<string>, string][] = [
      [jwt({ exp: now() - 60, aud: 'deputy', iss: 'tests' }), 'expired websocket jwt'],
      [jwt({ exp: now() + 60, aud: 'deputy', iss: 'tests' }, `${SECRET}-other`), 'invalid websocket jwt'],
      [jwt({ exp: now() + 60, aud: 'someone-else', iss: 'tests' }), 'websocket jwt audience mismatch'],
      [jwt({ exp: now() + 60, aud: 'deputy', iss: 'elsewhere' }), 'websocket jwt issuer mismatch'],
      [jwt({ aud: 'deputy', iss: 'tests' }), 'invalid websocket jwt'],
    ];
    for (const [token, body] of cases) {
      await expect(connectWith(url, `Bearer ${await token}`)).rejects.toMatchObject({ status: 401, body });
    }
    await expect(connectWith(url, 'Bearer not.a.jwt')).rejects.toMatchObject({ status: 401, body: 'invalid websocket jwt' });
  });

  it('tolerates an expiry within the clock skew', async () => {
    const url = await listenWith(config());
    await expect(connectWith(url, `Bearer ${await jwt({ exp: now() - 2, aud: 'deputy', iss: 'tests' })}`)).resolves.toBeDefined();
  });

  it('refuses a shared secret shorter than 32 bytes at startup', async () => {
    const short = path.join(dir, 'short');
    await writeFile(short, 'too-short');
    await expect(createWsAuthenticator({ mode: 'signed-bearer-token', sharedSecretFile: short })).rejects.toBeInstanceOf(WsAuthConfigError);
  });
});

describe('resolveWsAuthFlags', () => {
  it('returns no config without flags and validates combinations like the reference', () => {
    expect(resolveWsAuthFlags({})).toBeUndefined();
    expect(() => resolveWsAuthFlags({ wsTokenFile: '/t' })).toThrow(/require `--ws-auth/);
    expect(() => resolveWsAuthFlags({ wsAuth: 'capability-token' })).toThrow(/--ws-token-file/);
    expect(() => resolveWsAuthFlags({ wsAuth: 'capability-token', wsTokenFile: 'relative' })).toThrow(/absolute path/);
    expect(() => resolveWsAuthFlags({ wsAuth: 'capability-token', wsTokenFile: '/t', wsIssuer: 'x' })).toThrow(/signed-bearer-token/);
    expect(() => resolveWsAuthFlags({ wsAuth: 'signed-bearer-token' })).toThrow(/--ws-shared-secret-file/);
    expect(() => resolveWsAuthFlags({ wsAuth: 'magic' })).toThrow(/unknown --ws-auth mode/);
    expect(resolveWsAuthFlags({ wsAuth: 'capability-token', wsTokenSha256: 'ab' })).toEqual({ mode: 'capability-token', tokenSha256: 'ab' });
    expect(resolveWsAuthFlags({ wsAuth: 'signed-bearer-token', wsSharedSecretFile: '/s', wsAudience: ' a ' })).toEqual({
      mode: 'signed-bearer-token',
      sharedSecretFile: '/s',
      issuer: undefined,
      audience: 'a',
      maxClockSkewSeconds: 30,
    });
  });
});
