import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../src/scripted-model-server.js';
import { text } from '../src/scripted-steps.js';
import { parseSse, postJson, readEvents } from './sse.js';

type Data = Record<string, unknown>;

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const post = (path = '/responses', extra: Data = {}): Promise<Response> =>
  postJson(`${server.url}${path}`, { model: 'm', stream: true, input: [], messages: [], ...extra });

describe('ScriptedModelServer faults', () => {
  it('answers an http fault with its status, headers and OpenAI error body', async () => {
    server.enqueue({ fault: 'http', status: 429, headers: { 'retry-after': '0' } });
    const res = await post();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('0');
    expect(await res.json()).toMatchObject({ error: { code: 'rate_limit_exceeded', type: 'requests' } });
  });

  it('answers context-too-long with a 400 carrying context_length_exceeded', async () => {
    server.enqueue({ fault: 'context-too-long' });
    const res = await post();
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'context_length_exceeded', type: 'invalid_request_error', param: 'input' } });
  });

  it('drops the connection after the given number of events', async () => {
    server.enqueue({ fault: 'drop-mid-stream', after: 4 });
    const res = await post();
    const reader = res.body!.getReader();
    const events = await readEvents(reader, 4);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    await expect(reader.read()).rejects.toThrow();
  });

  it('stalls after the given number of events and keeps the socket open until the server closes', async () => {
    server.enqueue({ fault: 'stall', after: 2, output: [text('never finished')] });
    const res = await post();
    const reader = res.body!.getReader();
    expect((await readEvents(reader, 2)).map((e) => e.event)).toEqual(['response.created', 'response.in_progress']);
    const next = reader.read().then(
      () => 'ended',
      () => 'errored',
    );
    const pending = Symbol('pending');
    // The stalled read has not settled by the time another full request round-trips.
    await post('/nowhere').then((r) => r.text());
    expect(await Promise.race([next, Promise.resolve(pending)])).toBe(pending);
    await server.close();
    expect(await next).toBe('errored');
    server = await startScriptedModelServer();
  });

  it('streams response.failed, a top-level error event and response.incomplete', async () => {
    server.enqueue(
      { fault: 'failed', error: { code: 'server_error', message: 'boom' } },
      { fault: 'error-event', error: { code: 'bad_thing', message: 'bad' } },
      { fault: 'incomplete', reason: 'max_output_tokens' },
    );
    const failed = parseSse(await (await post()).text());
    expect(failed.at(-1)).toMatchObject({ event: 'response.failed', data: { response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } } });
    const errored = parseSse(await (await post()).text());
    expect(errored.at(-1)).toMatchObject({ event: 'error', data: { type: 'error', code: 'bad_thing', message: 'bad' } });
    const incomplete = parseSse(await (await post()).text());
    expect(incomplete.at(-1)).toMatchObject({ event: 'response.incomplete', data: { response: { incomplete_details: { reason: 'max_output_tokens' } } } });
  });

  it('applies the same faults on the chat wire', async () => {
    server.enqueue(
      { fault: 'failed', error: { code: 'server_error', message: 'boom' } },
      { fault: 'incomplete', reason: 'max_output_tokens' },
      { fault: 'http', status: 500 },
    );
    const failed = parseSse(await (await post('/chat/completions')).text());
    expect(failed.at(-1)).toMatchObject({ event: null, data: { error: { code: 'server_error', message: 'boom' } } });
    const incomplete = parseSse(await (await post('/chat/completions')).text());
    expect(incomplete.at(-2)).toMatchObject({ data: { choices: [{ finish_reason: 'length' }] } });
    expect(incomplete.at(-1)?.data).toBe('[DONE]');
    expect((await post('/chat/completions')).status).toBe(500);
  });
});
