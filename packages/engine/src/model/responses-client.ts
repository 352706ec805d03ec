/**
 * The Responses API model client: builds the body (request.ts), opens the stream through the
 * openai SDK (`responses.create({ stream: true })`, so the SDK parses the SSE), maps each
 * event (stream-events.ts) and leaves retries, idle timeouts and aborts to retry.ts. Owns no
 * state between calls.
 */
import type OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ProviderConnection } from './provider.js';
import { buildResponsesRequest } from './request.js';
import { retryPolicyOf, streamWithRetry } from './retry.js';
import { createOpenAiSdk } from './sdk-client.js';
import { mapResponsesStreamEvent } from './stream-events.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './types.js';

/** Maps the SDK stream to batches of model events; throws the typed error of a failed response. */
async function* mapStream(stream: AsyncIterable<ResponseStreamEvent>): AsyncGenerator<ModelStreamEvent[]> {
  for await (const raw of stream) {
    const outcome = mapResponsesStreamEvent(raw);
    if (outcome.kind === 'error') throw outcome.error;
    yield outcome.events;
  }
}

/** Opens one streaming attempt of `request` on `sdk`. */
function openAttempt(sdk: OpenAI, request: ModelRequest) {
  const body = buildResponsesRequest(request);
  return async (signal: AbortSignal): Promise<AsyncIterable<ModelStreamEvent[]>> => {
    const stream = await sdk.responses.create(body, { signal });
    return mapStream(stream);
  };
}

/** A `ModelClient` speaking the Responses API to `provider`. */
export function createResponsesClient(provider: ProviderConnection): ModelClient {
  const sdk = createOpenAiSdk(provider);
  const policy = retryPolicyOf(provider);
  return {
    stream: (request, signal) => streamWithRetry(openAttempt(sdk, request), policy, signal),
  };
}
