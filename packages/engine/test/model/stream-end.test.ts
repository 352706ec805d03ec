/**
 * What happens to a model stream after its `completed` event (retry.ts `finishStream`): the
 * caller has its answer at once, and the rest of the stream is read to its end in the background
 * instead of being cut, so the request ends normally and its keep-alive connection serves the
 * next one. A provider that keeps the stream open after `completed` gets the request aborted
 * within the grace period. Observed from the provider's side: a raw HTTP server on 127.0.0.1
 * that counts connections and sees how each response ended.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { waitFor } from '@deputy/test-support';
import { createResponsesClient } from '../../src/model/responses-client.js';
import { STREAM_END_GRACE_MS } from '../../src/model/retry.js';
import type { ModelStreamEvent } from '../../src/model/types.js';
import { providerFor, requestOf } from './helpers.js';

/** How the server ends a response after its `response.completed` frame. */
type Ending = { kind: 'end-after'; ms: number } | { kind: 'never' };

interface Provider {
  url: string;
  connections: number;
  /** Per response: `finished` when it was sent to its end, `cut` when the client left first. */
  outcomes: ('finished' | 'cut')[];
  close(): Promise<void>;
}

const frame = (event: Record<string, unknown>): string => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;

async function startProvider(ending: Ending): Promise<Provider> {
  const sockets = new Set<Socket>();
  const provider: Provider = { url: '', connections: 0, outcomes: [], close: async () => undefined };
  let responses = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.once('end', () => {
      const id = `resp_${(responses += 1)}`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame({ type: 'response.created', sequence_number: 0, response: { id, object: 'response', status: 'in_progress', output: [] } }));
      res.write(frame({ type: 'response.completed', sequence_number: 1, response: { id, object: 'response', status: 'completed', output: [], usage: null } }));
      let sentAll = false;
      res.once('finish', () => (sentAll = true));
      res.once('close', () => provider.outcomes.push(sentAll ? 'finished' : 'cut'));
      if (ending.kind === 'end-after') setTimeout(() => res.end(), ending.ms);
    });
  });
  server.on('connection', (socket: Socket) => {
    provider.connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  provider.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return provider;
}

const providers: Provider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.close();
});

async function open(ending: Ending): Promise<{ provider: Provider; stream: () => Promise<ModelStreamEvent[]> }> {
  const provider = await startProvider(ending);
  providers.push(provider);
  const client = createResponsesClient(providerFor({ url: provider.url } as never, { requestMaxRetries: 0, streamMaxRetries: 0 }));
  const stream = async (): Promise<ModelStreamEvent[]> => {
    const events: ModelStreamEvent[] = [];
    for await (const event of client.stream(requestOf(), new AbortController().signal)) events.push(event);
    return events;
  };
  return { provider, stream };
}

describe('the end of a model stream after completed', () => {
  it('is read to its end, so the response finishes and the connection is reused', async () => {
    // The end comes a little after `completed`: cutting the stream at `completed` would close
    // this connection with the body unread, and the second request would need a new one.
    const { provider, stream } = await open({ kind: 'end-after', ms: 100 });
    for (let i = 0; i < 2; i++) {
      const events = await stream();
      expect(events.at(-1)).toMatchObject({ type: 'completed', responseId: `resp_${i + 1}` });
      await waitFor(() => provider.outcomes.length === i + 1, 5_000, 'the response to end');
      // The client reads that end in the background; give it a moment to put the connection back.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(provider.outcomes).toEqual(['finished', 'finished']);
    expect(provider.connections).toBe(1);
  });

  it('does not hold the answer back, and aborts a stream still open after the grace period', async () => {
    const { provider, stream } = await open({ kind: 'never' });
    const events = await stream();
    // The caller got `completed` while the provider still holds the response open.
    expect(events.at(-1)).toMatchObject({ type: 'completed', responseId: 'resp_1' });
    expect(provider.outcomes).toEqual([]);
    // Then the client gives up on the rest: the provider sees its response cut.
    await waitFor(() => provider.outcomes.length === 1, STREAM_END_GRACE_MS + 5_000, 'the client to leave the open stream');
    expect(provider.outcomes).toEqual(['cut']);
  });
});
