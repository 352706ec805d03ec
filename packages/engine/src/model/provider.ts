/**
 * A resolved model provider connection (what config.toml's `model_providers.<id>` becomes once
 * keys and defaults are filled in) and the factory that picks the client for its wire. Holds no
 * state and performs no I/O.
 */
import { createChatClient } from './chat-client.js';
import { createResponsesClient } from './responses-client.js';
import type { ModelClient } from './types.js';

/** Everything the model client needs to talk to one provider. */
export interface ProviderConnection {
  /** Config id, e.g. `openai`, `ollama`, `demo`. */
  id: string;
  /** Display name, e.g. `OpenAI`. */
  name: string;
  /** Base URL including the API version path, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Bearer token; null sends no `Authorization` header at all. */
  apiKey: string | null;
  /** `responses` (POST /responses) or `chat` (POST /chat/completions). */
  wireApi: 'responses' | 'chat';
  /** Added to every request URL (e.g. Azure's `api-version`). */
  queryParams: Record<string, string>;
  /** Added to every request (e.g. `OpenAI-Organization`, Azure's `api-key`). */
  httpHeaders: Record<string, string>;
  /** Retries of a request that failed before its stream opened (429, 5xx, connection). */
  requestMaxRetries: number;
  /** Retries of a stream that broke or went idle before `response.completed`. */
  streamMaxRetries: number;
  /** An attempt with no event for this long is abandoned and retried. */
  streamIdleTimeoutMs: number;
  /** First backoff step in ms (default 200); doubles per retry, with full jitter. */
  retryBaseDelayMs?: number;
}

/** Creates the streaming client for the provider's wire. */
export function createModelClient(provider: ProviderConnection): ModelClient {
  return provider.wireApi === 'chat' ? createChatClient(provider) : createResponsesClient(provider);
}
