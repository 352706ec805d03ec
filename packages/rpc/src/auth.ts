/**
 * WebSocket authentication, checked once at the HTTP upgrade (reference:
 * codex-rs/app-server/src/transport/auth.rs). The client sends `Authorization: Bearer <token>`.
 * `capability-token` compares the SHA-256 of the presented token with the expected digest in
 * constant time (the expected token comes from `--ws-token-file` or as `--ws-token-sha256`);
 * `signed-bearer-token` verifies an HS256 JWT with jose against the shared secret from
 * `--ws-shared-secret-file`, with an optional issuer and audience and a clock-skew allowance.
 * A failure is a 401 with a short reason; this module never logs or echoes tokens. jose is loaded
 * only when a signed-bearer-token authenticator is created.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';

/** Default allowance for `exp`/`nbf` checks, in seconds (the reference's). */
export const DEFAULT_MAX_CLOCK_SKEW_SECONDS = 30;
/** Shortest accepted JWT shared secret, in bytes (the reference's). */
export const MIN_SHARED_SECRET_BYTES = 32;

/** How WebSocket clients must authenticate. */
export type WsAuthConfig =
  | {
      mode: 'capability-token';
      /** Absolute path of the file holding the token (trimmed, non-empty). */
      tokenFile: string;
      tokenSha256?: undefined;
    }
  | {
      mode: 'capability-token';
      /** Hex SHA-256 of the token, when the token itself is not on disk. */
      tokenSha256: string;
      tokenFile?: undefined;
    }
  | {
      mode: 'signed-bearer-token';
      /** Absolute path of the file holding the HMAC secret (trimmed, at least 32 bytes). */
      sharedSecretFile: string;
      /** Expected `iss` claim, if any. */
      issuer?: string;
      /** Expected `aud` claim (string or one of an array), if any. */
      audience?: string;
      /** Defaults to {@link DEFAULT_MAX_CLOCK_SKEW_SECONDS}. */
      maxClockSkewSeconds?: number;
    };

/** The outcome of checking one upgrade request. */
export type WsAuthResult = { ok: true } | { ok: false; status: 401; message: string };

/** Checks the headers of an upgrade request. */
export interface WsAuthenticator {
  /** The configured mode. */
  readonly mode: WsAuthConfig['mode'];
  /** Resolves to `ok: false` (never rejects) when the credential is missing or wrong. */
  authorize(headers: IncomingHttpHeaders): Promise<WsAuthResult>;
}

/** The `--ws-*` flags as the CLI parsed them. */
export interface WsAuthFlags {
  /** `--ws-auth`: `capability-token` or `signed-bearer-token`. */
  wsAuth?: string;
  /** `--ws-token-file`: absolute path of the capability token. */
  wsTokenFile?: string;
  /** `--ws-token-sha256`: hex SHA-256 of the capability token, instead of the file. */
  wsTokenSha256?: string;
  /** `--ws-shared-secret-file`: absolute path of the JWT HMAC secret. */
  wsSharedSecretFile?: string;
  /** `--ws-issuer`: expected `iss`. */
  wsIssuer?: string;
  /** `--ws-audience`: expected `aud`. */
  wsAudience?: string;
  /** `--ws-max-clock-skew-seconds`. */
  wsMaxClockSkewSeconds?: number;
}

/** Thrown for inconsistent `--ws-*` flags or an unreadable or weak secret. */
export class WsAuthConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WsAuthConfigError';
  }
}

function trimmedOrUndefined(value: string | undefined): string | undefined {
  const t = value?.trim();
  return t === undefined || t === '' ? undefined : t;
}

function absolute(flag: string, value: string): string {
  if (!path.isAbsolute(value)) throw new WsAuthConfigError(`${flag} must be an absolute path`);
  return value;
}

/**
 * Validates the flag combination the way the reference does and returns the config, or
 * `undefined` when no `--ws-auth` was given (and no other auth flag either).
 */
export function resolveWsAuthFlags(flags: WsAuthFlags): WsAuthConfig | undefined {
  const jwtOnly = [flags.wsSharedSecretFile, flags.wsIssuer, flags.wsAudience, flags.wsMaxClockSkewSeconds];
  const tokenOnly = [flags.wsTokenFile, flags.wsTokenSha256];
  const isSet = (v: unknown): boolean => v !== undefined;
  if (flags.wsAuth === undefined) {
    if ([...jwtOnly, ...tokenOnly].some(isSet)) {
      throw new WsAuthConfigError(
        'websocket auth flags require `--ws-auth capability-token` or `--ws-auth signed-bearer-token`',
      );
    }
    return undefined;
  }
  if (flags.wsAuth === 'capability-token') {
    if (jwtOnly.some(isSet)) {
      throw new WsAuthConfigError(
        '`--ws-shared-secret-file`, `--ws-issuer`, `--ws-audience`, and `--ws-max-clock-skew-seconds` require `--ws-auth signed-bearer-token`',
      );
    }
    if (isSet(flags.wsTokenFile) === isSet(flags.wsTokenSha256)) {
      throw new WsAuthConfigError(
        'exactly one of `--ws-token-file` and `--ws-token-sha256` is required when `--ws-auth capability-token` is set',
      );
    }
    if (flags.wsTokenFile !== undefined) {
      return { mode: 'capability-token', tokenFile: absolute('--ws-token-file', flags.wsTokenFile) };
    }
    return { mode: 'capability-token', tokenSha256: flags.wsTokenSha256 as string };
  }
  if (flags.wsAuth === 'signed-bearer-token') {
    if (tokenOnly.some(isSet)) {
      throw new WsAuthConfigError('`--ws-token-file` and `--ws-token-sha256` require `--ws-auth capability-token`');
    }
    if (flags.wsSharedSecretFile === undefined) {
      throw new WsAuthConfigError('`--ws-shared-secret-file` is required when `--ws-auth signed-bearer-token` is set');
    }
    return {
      mode: 'signed-bearer-token',
      sharedSecretFile: absolute('--ws-shared-secret-file', flags.wsSharedSecretFile),
      issuer: trimmedOrUndefined(flags.wsIssuer),
      audience: trimmedOrUndefined(flags.wsAudience),
      maxClockSkewSeconds: flags.wsMaxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS,
    };
  }
  throw new WsAuthConfigError(`unknown --ws-auth mode \`${flags.wsAuth}\`; expected \`capability-token\` or \`signed-bearer-token\``);
}

async function readSecret(file: string): Promise<string> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (e) {
    throw new WsAuthConfigError(`failed to read websocket auth secret ${file}: ${(e as Error).message}`);
  }
  const trimmed = raw.trim();
  if (trimmed === '') throw new WsAuthConfigError(`websocket auth secret ${file} must not be empty`);
  return trimmed;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

const unauthorized = (message: string): WsAuthResult => ({ ok: false, status: 401, message });

/** Extracts the token of `Authorization: Bearer <token>` (scheme case-insensitive). */
export function bearerToken(headers: IncomingHttpHeaders): { token: string } | { error: string } {
  const header = headers.authorization;
  if (header === undefined) return { error: 'missing websocket bearer token' };
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return { error: 'invalid authorization header' };
  const token = header.slice(space + 1).trim();
  return token === '' ? { error: 'invalid authorization header' } : { token };
}

type Jose = typeof import('jose');

function jwtFailure(e: unknown, joseErrors: Jose['errors']): string {
  if (e instanceof joseErrors.JWTExpired) return 'expired websocket jwt';
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return 'websocket jwt issuer mismatch';
    if (e.claim === 'aud') return 'websocket jwt audience mismatch';
    if (e.claim === 'nbf') return 'websocket jwt is not valid yet';
  }
  return 'invalid websocket jwt';
}

/**
 * Builds the authenticator for a config, reading the secret file now so that a bad file fails at
 * startup rather than at the first connection.
 */
export async function createWsAuthenticator(config: WsAuthConfig): Promise<WsAuthenticator> {
  if (config.mode === 'capability-token') {
    let expected: Buffer;
    if (config.tokenFile !== undefined) {
      expected = sha256(await readSecret(config.tokenFile));
    } else {
      const hex = config.tokenSha256.trim().toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(hex)) throw new WsAuthConfigError('--ws-token-sha256 must be 64 hexadecimal digits');
      expected = Buffer.from(hex, 'hex');
    }
    return {
      mode: config.mode,
      async authorize(headers) {
        const bearer = bearerToken(headers);
        if ('error' in bearer) return unauthorized(bearer.error);
        // Comparing fixed-size digests keeps the comparison constant-time whatever the token length.
        return timingSafeEqual(sha256(bearer.token), expected) ? { ok: true } : unauthorized('invalid websocket bearer token');
      },
    };
  }
  const secret = Buffer.from(await readSecret(config.sharedSecretFile), 'utf8');
  if (secret.length < MIN_SHARED_SECRET_BYTES) {
    throw new WsAuthConfigError(
      `signed websocket bearer secret ${config.sharedSecretFile} must be at least ${MIN_SHARED_SECRET_BYTES} bytes`,
    );
  }
  const key = new Uint8Array(secret);
  const { errors: joseErrors, jwtVerify } = await import('jose');
  return {
    mode: config.mode,
    async authorize(headers) {
      const bearer = bearerToken(headers);
      if ('error' in bearer) return unauthorized(bearer.error);
      try {
        await jwtVerify(bearer.token, key, {
          algorithms: ['HS256'],
          issuer: config.issuer,
          audience: config.audience,
          clockTolerance: config.maxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS,
          requiredClaims: ['exp'],
        });
        return { ok: true };
      } catch (e) {
        return unauthorized(jwtFailure(e, joseErrors));
      }
    },
  };
}
