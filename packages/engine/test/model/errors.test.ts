import { APIConnectionError, APIError, APIUserAbortError, InternalServerError, RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConnectionError,
  ContextTooLongError,
  ModelAbortedError,
  ModelApiError,
  ModelResponseFailedError,
  QuotaExceededError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  parseRetryAfter,
  parseRetryHint,
} from '../../src/model/errors.js';

const body = (code: string | null, message = 'detail') => ({ error: { code, message, type: 'x' } });

/** [status, body, class, TurnError code, retryable]. */
const HTTP_FIXTURES: Array<[number, unknown, new (...args: never[]) => ModelApiError, string, boolean]> = [
  [401, body('invalid_api_key'), UnauthorizedError, 'unauthorized', false],
  [403, body(null), UnauthorizedError, 'unauthorized', false],
  [429, body('rate_limit_exceeded'), RateLimitedError, 'usageLimitExceeded', true],
  [429, body('insufficient_quota'), QuotaExceededError, 'usageLimitExceeded', false],
  [400, body('context_length_exceeded'), ContextTooLongError, 'contextWindowExceeded', false],
  [400, body(null, "This model's maximum context length is 128000 tokens."), ContextTooLongError, 'contextWindowExceeded', false],
  [400, body('invalid_value'), BadRequestError, 'badRequest', false],
  [404, body('model_not_found'), BadRequestError, 'badRequest', false],
  [500, body('server_error'), ServerError, 'internalServerError', true],
  [502, 'Bad Gateway', ServerError, 'internalServerError', true],
  [503, body(null), ServerError, 'serverOverloaded', true],
  [408, null, ServerError, 'internalServerError', true],
];

describe('ModelApiError.fromResponse', () => {
  it.each(HTTP_FIXTURES)('maps %i (%j) to its class', (status, errorBody, errorClass, code, retryable) => {
    const error = ModelApiError.fromResponse(status, errorBody);
    expect(error).toBeInstanceOf(errorClass);
    expect(error.toTurnError()).toEqual({ code, httpStatus: status, message: error.message });
    expect(error.retryable).toBe(retryable);
  });

  it('quotes the provider detail briefly and never includes a stack trace', () => {
    const error = ModelApiError.fromResponse(400, body('bad', `Unknown parameter: 'foo'. ${'x'.repeat(1000)}`));
    expect(error.message).toMatch(/^The model provider rejected the request \(400\): Unknown parameter: 'foo'/);
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).not.toContain('\n');
  });

  it('carries the retry-after wait on rate limits and server errors', () => {
    expect(ModelApiError.fromResponse(429, body('rate_limit_exceeded'), { 'Retry-After': '2' }).retryAfterMs).toBe(2000);
    expect(ModelApiError.fromResponse(503, null, new Headers({ 'retry-after-ms': '150' })).retryAfterMs).toBe(150);
  });
});

describe('ModelApiError.fromSdkError', () => {
  it('maps SDK status errors through fromResponse with their headers', () => {
    const headers = new Headers({ 'retry-after': '1' });
    const rate = ModelApiError.fromSdkError(new RateLimitError(429, { code: 'rate_limit_exceeded', message: 'slow down' }, undefined, headers));
    expect(rate).toBeInstanceOf(RateLimitedError);
    expect(rate.retryAfterMs).toBe(1000);
    expect(ModelApiError.fromSdkError(new InternalServerError(500, undefined, 'boom', new Headers()))).toBeInstanceOf(ServerError);
  });

  it('maps connection failures, broken bodies and status-less stream errors', () => {
    const refused = ModelApiError.fromSdkError(new APIConnectionError({ cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }));
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused.message).toBe('Could not reach the model provider: connect ECONNREFUSED 127.0.0.1:1.');
    // fetch wraps the socket's error in its own `fetch failed`: the message names the innermost one.
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const wrapped = ModelApiError.fromSdkError(new APIConnectionError({ cause: new TypeError('fetch failed', { cause: reset }) }));
    expect(wrapped.message).toBe('Could not reach the model provider: read ECONNRESET.');
    expect(ModelApiError.fromSdkError(new TypeError('terminated'))).toBeInstanceOf(ConnectionError);
    expect(ModelApiError.fromSdkError(new APIError(undefined, { code: 'server_error', message: 'x' }, undefined, undefined))).toBeInstanceOf(ModelResponseFailedError);
    expect(ModelApiError.fromSdkError(new APIUserAbortError())).toBeInstanceOf(ConnectionError);
  });

  it('returns a ModelApiError unchanged', () => {
    const error = new ContextTooLongError();
    expect(ModelApiError.fromSdkError(error)).toBe(error);
  });
});

describe('ModelAbortedError', () => {
  it('is recognisable by class and by the AbortError name, and is not a ModelApiError', () => {
    const error = new ModelAbortedError();
    expect(error).toBeInstanceOf(ModelAbortedError);
    expect(error.name).toBe('AbortError');
    expect(error).not.toBeInstanceOf(ModelApiError);
  });
});

describe('parseRetryAfter and parseRetryHint', () => {
  it('reads milliseconds, seconds and HTTP dates, and ignores junk', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(parseRetryAfter({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '1.5' }, now)).toBe(1500);
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 12:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('reads the wait from OpenAI rate-limit messages', () => {
    expect(parseRetryHint('Rate limit reached for gpt-5 on tokens per min. Please try again in 1.898s. Visit…')).toBe(1898);
    expect(parseRetryHint('Please try again in 35ms.')).toBe(35);
    expect(parseRetryHint('no hint here')).toBeNull();
  });
});
