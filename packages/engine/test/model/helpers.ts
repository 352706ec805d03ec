/** Test helpers for the model client: a provider pointed at a scripted server, a request, and a stream collector. */
import type { ScriptedModelServer } from '@deputy/test-support';
import type { ProviderConnection } from '../../src/model/provider.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../../src/model/types.js';

/** A provider connection for `server` with fast retries. */
export function providerFor(server: ScriptedModelServer, overrides: Partial<ProviderConnection> = {}): ProviderConnection {
  return {
    id: 'scripted',
    name: 'Scripted',
    baseUrl: server.url,
    apiKey: 'sk-test-key',
    wireApi: 'responses',
    queryParams: {},
    httpHeaders: {},
    requestMaxRetries: 2,
    streamMaxRetries: 2,
    streamIdleTimeoutMs: 5_000,
    retryBaseDelayMs: 1,
    ...overrides,
  };
}

/** A minimal request; fields can be overridden. */
export function requestOf(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'gpt-5.2-codex',
    instructions: 'You are a test.',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] }],
    tools: [],
    reasoning: null,
    promptCacheKey: 'thread-1',
    ...overrides,
  };
}

/** Everything a stream produced, and the error it ended with (null when it completed). */
export interface Collected {
  events: ModelStreamEvent[];
  error: unknown;
}

/** Drains a stream. */
export async function collect(client: ModelClient, request: ModelRequest = requestOf(), signal = new AbortController().signal): Promise<Collected> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of client.stream(request, signal)) events.push(event);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

/** The events of one type. */
export function ofType<T extends ModelStreamEvent['type']>(events: ModelStreamEvent[], type: T): Extract<ModelStreamEvent, { type: T }>[] {
  return events.filter((e): e is Extract<ModelStreamEvent, { type: T }> => e.type === type);
}
