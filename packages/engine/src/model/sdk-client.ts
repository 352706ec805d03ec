/**
 * Builds the openai SDK client for a provider connection. The SDK does the HTTP and SSE work;
 * Deputy owns retries (so `maxRetries: 0`), headers and query parameters come only from the
 * provider (the SDK's own `OPENAI_*` environment defaults are switched off), a provider
 * without a key sends no `Authorization` header, and requests go out through `modelFetch`
 * (model-fetch.ts: node:http under the SDK, and a request that meets a keep-alive connection the
 * server closed as it was reused is sent again on another one).
 */
import OpenAI from 'openai';
import type { ProviderConnection } from './provider.js';
import { modelFetch } from './model-fetch.js';

/** Placeholder for the SDK's required `apiKey` when the provider has none (its header is removed). */
const NO_KEY_PLACEHOLDER = 'deputy-no-api-key';

/** Creates an SDK client bound to `provider`. */
export function createOpenAiSdk(provider: ProviderConnection): OpenAI {
  // A null header value makes the SDK drop the header; the provider's own headers come after,
  // so an explicit `Authorization` (or Azure's `api-key`) from the config still wins.
  const dropAuth = provider.apiKey === null ? { Authorization: null } : {};
  return new OpenAI({
    baseURL: provider.baseUrl,
    apiKey: provider.apiKey ?? NO_KEY_PLACEHOLDER,
    organization: null,
    project: null,
    webhookSecret: null,
    defaultHeaders: { ...dropAuth, ...provider.httpHeaders },
    defaultQuery: provider.queryParams,
    maxRetries: 0,
    fetch: modelFetch,
    // The SDK's timeout only covers the wait for response headers; the idle watchdog in
    // retry.ts covers the stream itself.
    timeout: Math.max(1, provider.streamIdleTimeoutMs),
  });
}
