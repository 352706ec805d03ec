import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, text, type ScriptedModelServer } from '@deputy/test-support';
import {
  ContextTooLongError,
  ModelAbortedError,
  ModelResponseFailedError,
  ServerError,
  UnauthorizedError,
} from '../../src/model/errors.js';
import { createResponsesClient } from '../../src/model/responses-client.js';
import { collect, ofType, providerFor } from './helpers.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const client = (overrides = {}) => createResponsesClient(providerFor(server, overrides));
const finalText = (events: Awaited<ReturnType<typeof collect>>['events']) =>
  ofType(events, 'item.done').map((e) => (e.item.type === 'message' ? e.item.content.map((c) => ('text' in c ? c.text : '')).join('') : ''));

describe('Responses client retries and failures', () => {
  it('retries a 429 after the retry-after wait and then succeeds', async () => {
    server.enqueue({ fault: 'http', status: 429, headers: { 'retry-after': '0' } }, { output: [text('after the limit')] });
    const { events, error } = await collect(client());
    expect(error).toBeNull();
    expect(ofType(events, 'retrying')).toEqual([
      { type: 'retrying', attempt: 2, delayMs: 0, error: { code: 'usageLimitExceeded', httpStatus: 429, message: expect.stringContaining('rate limiting') } },
    ]);
    expect(finalText(events)).toEqual(['after the limit']);
    expect(server.requests).toHaveLength(2);
  });

  it('honours retry-after-ms from the provider', async () => {
    server.enqueue({ fault: 'http', status: 429, headers: { 'retry-after-ms': '3' } }, { output: [text('ok')] });
    const { events } = await collect(client());
    expect(ofType(events, 'retrying')[0]?.delayMs).toBe(3);
  });

  it('retries a 500 and then succeeds', async () => {
    server.enqueue({ fault: 'http', status: 500 }, { output: [text('recovered')] });
    const { events, error } = await collect(client());
    expect(error).toBeNull();
    expect(ofType(events, 'retrying')[0]?.error.code).toBe('internalServerError');
    expect(finalText(events)).toEqual(['recovered']);
  });

  it('throws the typed error once request retries are exhausted', async () => {
    server.enqueue({ fault: 'http', status: 503 }, { fault: 'http', status: 503 }, { fault: 'http', status: 503 });
    const { events, error } = await collect(client({ requestMaxRetries: 2 }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: 'serverOverloaded', httpStatus: 503, retryable: true });
    expect(ofType(events, 'retrying').map((e) => e.attempt)).toEqual([2, 3]);
    expect(server.requests).toHaveLength(3);
  });

  it('fails a 401 at once with UnauthorizedError and a message that says what to do', async () => {
    server.enqueue({ fault: 'http', status: 401 }, { output: [text('never sent')] });
    const { events, error } = await collect(client());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).toTurnError()).toEqual({
      code: 'unauthorized',
      httpStatus: 401,
      message: expect.stringMatching(/rejected the API key \(401\)\. Set OPENAI_API_KEY/),
    });
    expect((error as Error).message).not.toMatch(/\n\s+at /);
    expect(events).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('reports context_length_exceeded as ContextTooLongError without retrying', async () => {
    server.enqueue({ fault: 'context-too-long' });
    const { error } = await collect(client());
    expect(error).toBeInstanceOf(ContextTooLongError);
    expect((error as ContextTooLongError).toTurnError()).toMatchObject({ code: 'contextWindowExceeded', httpStatus: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream that drops mid-way and completes on the next attempt', async () => {
    server.enqueue({ fault: 'drop-mid-stream', after: 6 }, { output: [text('second try')] });
    const { events, error } = await collect(client());
    expect(error).toBeNull();
    const retrying = ofType(events, 'retrying');
    expect(retrying).toHaveLength(1);
    expect(retrying[0]?.error.code).toBe('connectionFailed');
    // The partial message of the failed attempt came first, then the retry notice, then the full answer.
    expect(events.findIndex((e) => e.type === 'retrying')).toBeGreaterThan(events.findIndex((e) => e.type === 'text.delta'));
    expect(finalText(events)).toEqual(['second try']);
  });

  it('abandons a stalled stream after the idle timeout and retries it', async () => {
    server.enqueue({ fault: 'stall', after: 3 }, { output: [text('not stalled')] });
    const started = Date.now();
    const { events, error } = await collect(client({ streamIdleTimeoutMs: 250 }));
    expect(error).toBeNull();
    expect(ofType(events, 'retrying')[0]?.error).toMatchObject({ code: 'connectionFailed', message: expect.stringContaining('went quiet for 250 ms') });
    expect(finalText(events)).toEqual(['not stalled']);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('gives up with StreamIdleTimeoutError-coded failure when every attempt stalls', async () => {
    server.enqueue({ fault: 'stall', after: 1 }, { fault: 'stall', after: 1 });
    const { error } = await collect(client({ streamIdleTimeoutMs: 100, streamMaxRetries: 1 }));
    expect(error).toMatchObject({ name: 'StreamIdleTimeoutError', idleTimeoutMs: 100, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it('retries response.failed and surfaces ModelResponseFailedError when it keeps failing', async () => {
    const failed = { fault: 'failed', error: { code: 'server_error', message: 'An error occurred while processing your request.' } } as const;
    server.enqueue(failed, failed);
    const { events, error } = await collect(client({ streamMaxRetries: 1 }));
    expect(error).toBeInstanceOf(ModelResponseFailedError);
    expect(error).toMatchObject({ providerCode: 'server_error', message: expect.stringContaining('An error occurred while processing') });
    expect(ofType(events, 'retrying')).toHaveLength(1);
  });

  it('turns a rate-limit response.failed into RateLimitedError with the hinted delay', async () => {
    server.enqueue({ fault: 'failed', error: { code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again in 4ms.' } }, { output: [text('ok')] });
    const { events, error } = await collect(client());
    expect(error).toBeNull();
    expect(ofType(events, 'retrying')[0]).toMatchObject({ delayMs: 4, error: { code: 'usageLimitExceeded' } });
  });

  it('maps a top-level error event to a typed error', async () => {
    server.enqueue({ fault: 'error-event', error: { code: 'context_length_exceeded', message: 'too long' } });
    const { error } = await collect(client());
    expect(error).toBeInstanceOf(ContextTooLongError);
  });

  it('fails an incomplete response without retrying and names the reason', async () => {
    server.enqueue({ fault: 'incomplete', reason: 'max_output_tokens' }, { output: [text('never')] });
    const { events, error } = await collect(client());
    expect(error).toBeInstanceOf(ModelResponseFailedError);
    expect(error).toMatchObject({ retryable: false, providerCode: 'max_output_tokens', message: expect.stringContaining('max_output_tokens') });
    expect(ofType(events, 'retrying')).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('ends promptly with ModelAbortedError when aborted mid-stream', async () => {
    // The stream stalls right after the first text delta, so only the abort can end it quickly.
    server.enqueue({ fault: 'stall', after: 5 });
    const controller = new AbortController();
    const seen: string[] = [];
    let caught: unknown = null;
    let abortedAt = 0;
    try {
      for await (const event of client().stream({ model: 'm', instructions: '', input: [], tools: [], reasoning: null, promptCacheKey: 't' }, controller.signal)) {
        seen.push(event.type);
        if (event.type === 'text.delta') {
          abortedAt = Date.now();
          controller.abort();
        }
      }
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ModelAbortedError);
    expect((caught as Error).name).toBe('AbortError');
    // Far below the 5 s idle timeout: only the abort can have ended the stalled stream.
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(seen).toContain('text.delta');
    expect(seen).not.toContain('completed');
    expect(seen).not.toContain('retrying');
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await collect(client(), undefined, controller.signal);
    expect(error).toBeInstanceOf(ModelAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('aborts a retry wait without sending another request', async () => {
    server.enqueue({ fault: 'http', status: 429, headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    let caught: unknown = null;
    try {
      for await (const event of client().stream({ model: 'm', instructions: '', input: [], tools: [], reasoning: null, promptCacheKey: 't' }, controller.signal)) {
        if (event.type === 'retrying') {
          expect(event.delayMs).toBe(30_000);
          controller.abort();
        }
      }
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ModelAbortedError);
    expect(server.requests).toHaveLength(1);
  });
});
