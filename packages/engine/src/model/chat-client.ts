/**
 * The Chat Completions model client for `wire_api = "chat"` providers: converts the request
 * (chat-request.ts), streams `chat.completions.create({ stream: true })` through the openai
 * SDK, and assembles chunks into model events (chat-stream.ts). Retries, idle timeouts and
 * aborts are retry.ts's, exactly as on the Responses wire.
 */
import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { buildChatRequest } from './chat-request.js';
import { ChatStreamAssembler } from './chat-stream.js';
import type { ProviderConnection } from './provider.js';
import { retryPolicyOf, streamWithRetry } from './retry.js';
import { createOpenAiSdk } from './sdk-client.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './types.js';

/** Maps the SDK chunk stream to batches of model events, ending with the completed items. */
async function* assemble(stream: AsyncIterable<ChatCompletionChunk>, customToolNames: ReadonlySet<string>): AsyncGenerator<ModelStreamEvent[]> {
  const assembler = new ChatStreamAssembler(customToolNames);
  for await (const chunk of stream) yield assembler.push(chunk);
  yield assembler.finish();
}

/** Opens one streaming attempt of `request` on `sdk`. */
function openAttempt(sdk: OpenAI, request: ModelRequest) {
  const body = buildChatRequest(request);
  const customToolNames = new Set(request.tools.filter((t) => t.type === 'custom').map((t) => t.name));
  return async (signal: AbortSignal): Promise<AsyncIterable<ModelStreamEvent[]>> => {
    const stream = await sdk.chat.completions.create(body, { signal });
    return assemble(stream, customToolNames);
  };
}

/** A `ModelClient` speaking Chat Completions to `provider`. */
export function createChatClient(provider: ProviderConnection): ModelClient {
  const sdk = createOpenAiSdk(provider);
  const policy = retryPolicyOf(provider);
  return {
    stream: (request, signal) => streamWithRetry(openAttempt(sdk, request), policy, signal),
  };
}
