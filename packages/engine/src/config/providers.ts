/**
 * Model providers: the built-in ones (`openai`, `ollama`, `lmstudio`, and the offline `demo`),
 * merged with the user's `[model_providers.<id>]` tables (user fields win), and resolution of a
 * provider into what a model client needs (URL, key, headers, retry limits). Resolving checks
 * the API key; a missing one is a `MissingApiKeyError` naming the variable. Never logs keys.
 */
import { MissingApiKeyError } from './errors.js';
import type { ModelProviderToml, WireApi } from './schema.js';

/** The OpenAI API, used when no `base_url` / `OPENAI_BASE_URL` says otherwise. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Default retries of a failed request. */
export const DEFAULT_REQUEST_MAX_RETRIES = 4;
/** Default reconnects of a dropped stream. */
export const DEFAULT_STREAM_MAX_RETRIES = 5;
/** Default idle time before a stream counts as dropped. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;
/** Upper bound on both retry settings (as in the reference). */
const MAX_RETRIES_CAP = 100;

/** The id of the built-in offline scripted model. */
export const DEMO_PROVIDER_ID = 'demo';

/** A provider definition before its key and env headers are resolved. */
export interface ModelProviderInfo {
  id: string;
  name: string;
  /** `null` only for `demo`, whose server the engine runs itself (`model/local-providers.ts`). */
  baseUrl: string | null;
  envKey: string | null;
  envKeyInstructions: string | null;
  wireApi: WireApi;
  queryParams: Record<string, string>;
  httpHeaders: Record<string, string>;
  /** Header name → environment variable; sent only when the variable is set. */
  envHttpHeaders: Record<string, string>;
  requestMaxRetries: number;
  streamMaxRetries: number;
  streamIdleTimeoutMs: number;
  /** Falls back to the OpenAI key (OPENAI_API_KEY, then auth.json). */
  requiresOpenaiAuth: boolean;
}

/** A provider ready for a model client. */
export interface ResolvedProvider {
  id: string;
  name: string;
  baseUrl: string | null;
  envKey: string | null;
  /** `null` when the provider sends no key (or, from `loadConfig`, when it is missing). */
  apiKey: string | null;
  wireApi: WireApi;
  queryParams: Record<string, string>;
  /** `http_headers` plus the `env_http_headers` whose variables are set. */
  httpHeaders: Record<string, string>;
  requestMaxRetries: number;
  streamMaxRetries: number;
  streamIdleTimeoutMs: number;
}

/** Where keys come from. */
export interface KeySources {
  env: NodeJS.ProcessEnv;
  /** `OPENAI_API_KEY` from auth.json, if any. */
  storedOpenaiKey: string | null;
}

function baseProvider(id: string, name: string, baseUrl: string | null, wireApi: WireApi): ModelProviderInfo {
  return {
    id,
    name,
    baseUrl,
    envKey: null,
    envKeyInstructions: null,
    wireApi,
    queryParams: {},
    httpHeaders: {},
    envHttpHeaders: {},
    requestMaxRetries: DEFAULT_REQUEST_MAX_RETRIES,
    streamMaxRetries: DEFAULT_STREAM_MAX_RETRIES,
    streamIdleTimeoutMs: DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    requiresOpenaiAuth: false,
  };
}

/** The built-in providers for `env` (`OPENAI_BASE_URL` moves the openai one). */
export function builtInProviders(env: NodeJS.ProcessEnv): Record<string, ModelProviderInfo> {
  const openaiBase = nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_DEFAULT_BASE_URL;
  return {
    openai: { ...baseProvider('openai', 'OpenAI', openaiBase, 'responses'), envKey: 'OPENAI_API_KEY', requiresOpenaiAuth: true },
    ollama: baseProvider('ollama', 'Ollama', 'http://localhost:11434/v1', 'chat'),
    lmstudio: baseProvider('lmstudio', 'LM Studio', 'http://localhost:1234/v1', 'chat'),
    [DEMO_PROVIDER_ID]: baseProvider(DEMO_PROVIDER_ID, 'Deputy demo (offline scripted model)', null, 'responses'),
  };
}

/**
 * Merges `[model_providers.*]` over the built-ins: a table for a built-in id overrides the fields
 * it sets; a new id defaults to its id as name, the OpenAI URL and the responses wire.
 */
export function mergeProviders(builtIns: Record<string, ModelProviderInfo>, user: Record<string, ModelProviderToml>): Record<string, ModelProviderInfo> {
  const out: Record<string, ModelProviderInfo> = { ...builtIns };
  for (const [id, t] of Object.entries(user)) {
    const base = builtIns[id] ?? baseProvider(id, id, OPENAI_DEFAULT_BASE_URL, 'responses');
    out[id] = {
      id,
      name: t.name ?? base.name,
      baseUrl: t.base_url ?? base.baseUrl,
      envKey: t.env_key ?? base.envKey,
      envKeyInstructions: t.env_key_instructions ?? base.envKeyInstructions,
      wireApi: t.wire_api ?? base.wireApi,
      queryParams: t.query_params ?? base.queryParams,
      httpHeaders: t.http_headers ?? base.httpHeaders,
      envHttpHeaders: t.env_http_headers ?? base.envHttpHeaders,
      requestMaxRetries: Math.min(t.request_max_retries ?? base.requestMaxRetries, MAX_RETRIES_CAP),
      streamMaxRetries: Math.min(t.stream_max_retries ?? base.streamMaxRetries, MAX_RETRIES_CAP),
      streamIdleTimeoutMs: t.stream_idle_timeout_ms ?? base.streamIdleTimeoutMs,
      requiresOpenaiAuth: t.requires_openai_auth ?? base.requiresOpenaiAuth,
    };
  }
  return out;
}

/** The OpenAI key from `OPENAI_API_KEY`, else auth.json; `null` when neither has one. */
export function openaiKey(keys: KeySources): string | null {
  return nonEmpty(keys.env.OPENAI_API_KEY) ?? keys.storedOpenaiKey;
}

/** True when the provider needs a key at all. */
export function providerNeedsKey(info: ModelProviderInfo): boolean {
  return info.envKey !== null || info.requiresOpenaiAuth;
}

/**
 * Resolves a provider. With `strict`, a provider that needs a key and has none throws
 * `MissingApiKeyError`; without, `apiKey` is `null` then.
 */
export function resolveProviderInfo(info: ModelProviderInfo, keys: KeySources, strict: boolean): ResolvedProvider {
  const fromEnv = info.envKey !== null ? nonEmpty(keys.env[info.envKey]) : null;
  const apiKey = fromEnv ?? (info.requiresOpenaiAuth ? openaiKey(keys) : null);
  if (apiKey === null && strict && providerNeedsKey(info)) throw missingKey(info);
  const httpHeaders = { ...info.httpHeaders };
  for (const [header, variable] of Object.entries(info.envHttpHeaders)) {
    const value = nonEmpty(keys.env[variable]);
    if (value !== null) httpHeaders[header] = value;
  }
  return {
    id: info.id,
    name: info.name,
    baseUrl: info.baseUrl,
    envKey: info.envKey,
    apiKey,
    wireApi: info.wireApi,
    queryParams: { ...info.queryParams },
    httpHeaders,
    requestMaxRetries: info.requestMaxRetries,
    streamMaxRetries: info.streamMaxRetries,
    streamIdleTimeoutMs: info.streamIdleTimeoutMs,
  };
}

function missingKey(info: ModelProviderInfo): MissingApiKeyError {
  const where =
    info.envKey !== null && info.requiresOpenaiAuth
      ? `set the environment variable ${info.envKey} or put OPENAI_API_KEY in auth.json in the Deputy home`
      : info.envKey !== null
        ? `set the environment variable ${info.envKey}`
        : 'set OPENAI_API_KEY or put it in auth.json in the Deputy home';
  const help = info.envKeyInstructions !== null ? ` ${info.envKeyInstructions}` : '';
  return new MissingApiKeyError(info.id, info.envKey, `model provider "${info.id}" needs an API key: ${where}.${help}`);
}

function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== '' ? value.trim() : null;
}
