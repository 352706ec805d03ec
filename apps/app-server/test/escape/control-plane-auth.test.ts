/**
 * Control-plane auth rows that held and had no test yet, on the built server's ws:// listener:
 * signed bearer tokens with `alg: none`, with another algorithm than HS256 (HS384/HS512 with the
 * right secret, RS256 carrying its own `jwk`: algorithm and key confusion), with a future `nbf`
 * or an unknown `crit` extension are refused at the upgrade (401) while the same claims signed
 * properly get in; a DNS-rebinding upgrade (attacker Host and Origin) is refused (403) even with
 * a valid token; and the capability token is compared in constant time (every presented token,
 * whatever its length, goes through `timingSafeEqual` on two 32-byte digests). The assertions
 * are on the HTTP status of real upgrades and on the comparison, never on text for a model.
 * Expiry, issuer, audience, bad signatures, Origin and non-loopback binds are tested in
 * packages/rpc/test/auth.test.ts, packages/rpc/test/transport/websocket.test.ts and
 * apps/app-server/test/e2e/transports.test.ts.
 */
import * as crypto from 'node:crypto';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWsAuthenticator } from '@deputy/rpc';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import type { WireClient } from '../support/wire-client.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, spawnServer, wsClient, type ServerProcess } from '../e2e/support/server-process.js';

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

const SECRET = 'a-control-plane-secret-of-at-least-32-bytes';
const AUDIENCE = 'deputy-escape';
const ISSUER = 'escape-suite';
const SKEW_SECONDS = 5;

let temp: TempHome;
let server: ServerProcess;
let url: string;
const clients: WireClient[] = [];

const now = (): number => Math.floor(Date.now() / 1000);
const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const claims = (extra: Record<string, unknown> = {}) => ({ iat: now(), exp: now() + 300, aud: AUDIENCE, iss: ISSUER, ...extra });

/** An HMAC-signed JWT; `alg` picks the hash, `header` adds header members. */
function hmacJwt(body: Record<string, unknown>, alg: 'HS256' | 'HS384' | 'HS512' = 'HS256', header: Record<string, unknown> = {}): string {
  const signed = `${part({ alg, typ: 'JWT', ...header })}.${part(body)}`;
  return `${signed}.${createHmac(`sha${alg.slice(2)}`, SECRET).update(signed).digest('base64url')}`;
}

/** Opens a ws client with `Authorization: Bearer <token>` (and more headers) and initializes it. */
async function connect(token: string, headers: Record<string, string> = {}): Promise<unknown> {
  const client = await wsClient(url, undefined, { Authorization: `Bearer ${token}`, ...headers });
  clients.push(client);
  return client.initialize();
}

beforeAll(async () => {
  await ensureBuilt();
  temp = await makeTempHome('deputy-escape-auth-');
  const secretFile = join(temp.home, 'ws-secret');
  await writeFile(secretFile, `${SECRET}\n`, { mode: 0o600 });
  const flags = ['--ws-auth', 'signed-bearer-token', '--ws-shared-secret-file', secretFile];
  flags.push('--ws-audience', AUDIENCE, '--ws-issuer', ISSUER, '--ws-max-clock-skew-seconds', String(SKEW_SECONDS));
  server = await spawnServer(temp, ['ws://127.0.0.1:0'], flags);
  url = server.urls[0] as string;
}, BUILD_TIMEOUT_MS);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
});

afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

describe('signed bearer tokens at the ws upgrade of the built server', () => {
  it('serves a properly signed HS256 token (the control for every refusal below)', async () => {
    await expect(connect(hmacJwt(claims()))).resolves.toMatchObject({ platformFamily: 'unix' });
  });

  it('refuses an unsigned token with alg none', async () => {
    const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part(claims())}.`;
    await expect(connect(unsigned)).rejects.toMatchObject({ status: 401 });
    const noneUpper = `${part({ alg: 'NONE', typ: 'JWT' })}.${part(claims())}.`;
    await expect(connect(noneUpper)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses HS384 and HS512 signed with the right secret: only HS256 is accepted', async () => {
    await expect(connect(hmacJwt(claims(), 'HS384'))).rejects.toMatchObject({ status: 401 });
    await expect(connect(hmacJwt(claims(), 'HS512'))).rejects.toMatchObject({ status: 401 });
  });

  it('refuses an RS256 token that carries the public key it was signed with (key confusion)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const header = { alg: 'RS256', typ: 'JWT', jwk: publicKey.export({ format: 'jwk' }) };
    const signed = `${part(header)}.${part(claims())}`;
    const token = `${signed}.${sign('sha256', Buffer.from(signed), privateKey).toString('base64url')}`;
    await expect(connect(token)).rejects.toMatchObject({ status: 401 });
    // The same key's PEM used as an HMAC secret (the classic RS→HS confusion) is just a wrong secret.
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const hsSigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims())}`;
    const confused = `${hsSigned}.${createHmac('sha256', pem).update(hsSigned).digest('base64url')}`;
    await expect(connect(confused)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a token whose nbf is later than now plus the clock skew, and serves one within it', async () => {
    await expect(connect(hmacJwt(claims({ nbf: now() + 600 })))).rejects.toMatchObject({ status: 401 });
    await expect(connect(hmacJwt(claims({ nbf: now() + SKEW_SECONDS - 3 })))).resolves.toMatchObject({ platformFamily: 'unix' });
  });

  it('refuses a token marking an extension it does not know as critical (crit)', async () => {
    const token = hmacJwt(claims(), 'HS256', { crit: ['x-deputy-escape'], 'x-deputy-escape': true });
    await expect(connect(token)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a DNS-rebinding upgrade (attacker Host and Origin) with 403 even with a valid token', async () => {
    const port = new URL(url.replace('ws:', 'http:')).port;
    const rebinding = { Host: `rebind.attacker.example:${port}`, Origin: `http://rebind.attacker.example:${port}` };
    await expect(connect(hmacJwt(claims()), rebinding)).rejects.toMatchObject({ status: 403 });
  });
});

describe('capability tokens', () => {
  it('compares every presented token in constant time: timingSafeEqual on two 32-byte digests, whatever its length', async () => {
    const token = 'capability-token-for-the-escape-suite';
    const tokenFile = join(temp.home, 'ws-token');
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    const auth = await createWsAuthenticator({ mode: 'capability-token', tokenFile });
    const compare = vi.mocked(crypto.timingSafeEqual);
    const presented = [token, `${token}x`, token.slice(0, -1), `${token.slice(0, -1)}X`, 'c', 'x'.repeat(4096)];
    for (const candidate of presented) {
      compare.mockClear();
      const result = await auth.authorize({ authorization: `Bearer ${candidate}` });
      expect(result.ok).toBe(candidate === token);
      expect(compare).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0] as [Buffer, Buffer];
      expect([a.length, b.length]).toEqual([32, 32]);
    }
  });
});
