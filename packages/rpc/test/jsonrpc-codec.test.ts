/**
 * The envelope codec of `@deputy/protocol` (docs/app-server.md "Envelope and errors"): what is a
 * message, what is dropped, and the exact output.
 */
import { describe, expect, it } from 'vitest';
import { INVALID_REQUEST, PARSE_ERROR, decodeMessage, encodeMessage, isJsonRpcErrorResponse } from '@deputy/protocol';
import { readIdOfTruncated, topLevelMemberText } from '@deputy/protocol/jsonrpc';

function decoded(text: string, versionField: 'omit' | 'require' = 'omit'): unknown {
  const r = decodeMessage(text, { versionField });
  if (!r.ok) throw new Error(`expected ${text} to decode, got ${r.error.message}`);
  return r.message;
}

function rejected(text: string, versionField: 'omit' | 'require' = 'omit'): { code: number; id?: unknown } {
  const r = decodeMessage(text, { versionField });
  if (r.ok) throw new Error(`expected ${text} to be rejected`);
  return { code: r.error.code, ...(r.id === undefined ? {} : { id: r.id }) };
}

describe('decodeMessage', () => {
  it('decodes a request, keeping string and integer ids with their JSON type', () => {
    expect(decoded('{"method":"thread/list","id":"7","params":{}}')).toEqual({ method: 'thread/list', id: '7', params: {} });
    expect(decoded('{"method":"thread/list","id":7}')).toEqual({ method: 'thread/list', id: 7 });
    expect(decoded('{"method":"thread/list","id":-3,"params":{}}')).toEqual({ method: 'thread/list', id: -3, params: {} });
  });

  it('decodes a notification and treats params null as absent', () => {
    expect(decoded('{"method":"initialized"}')).toEqual({ method: 'initialized' });
    expect(decoded('{"method":"x","params":null}')).toEqual({ method: 'x' });
    expect(decoded('{"id":1,"method":"x","params":null}')).toEqual({ id: 1, method: 'x' });
  });

  it('keeps non-object params for the method table to judge', () => {
    expect(decoded('{"id":1005,"method":"thread/read","params":[]}')).toEqual({ id: 1005, method: 'thread/read', params: [] });
  });

  it('decodes success and error responses', () => {
    expect(decoded('{"id":0,"result":{"decision":"accept"}}')).toEqual({ id: 0, result: { decision: 'accept' } });
    expect(decoded('{"id":0,"result":null}')).toEqual({ id: 0, result: null });
    const err = decodeMessage('{"id":"a","error":{"code":-1,"message":"x","data":{"k":1}}}');
    expect(err.ok && isJsonRpcErrorResponse(err.message)).toBe(true);
    expect(err.ok && err.message).toEqual({ id: 'a', error: { code: -1, message: 'x', data: { k: 1 } } });
  });

  it('ignores the jsonrpc member whatever its value in the omit dialect, and drops unknown top-level keys', () => {
    expect(decoded('{"jsonrpc":"2.0","id":1010,"method":"m","params":{}}')).toEqual({ id: 1010, method: 'm', params: {} });
    expect(decoded('{"jsonrpc":"1.0","id":1011,"method":"m","extra":true}')).toEqual({ id: 1011, method: 'm' });
  });

  it('requires "jsonrpc":"2.0" in the require dialect and reports the id so a strict peer can answer', () => {
    expect(decoded('{"jsonrpc":"2.0","id":1,"method":"m"}', 'require')).toEqual({ id: 1, method: 'm' });
    expect(rejected('{"id":1,"method":"m"}', 'require')).toEqual({ code: INVALID_REQUEST, id: 1 });
    expect(rejected('{"jsonrpc":"1.0","method":"m"}', 'require')).toEqual({ code: INVALID_REQUEST });
  });

  it('answers text that is not exactly one JSON value with a parse error', () => {
    for (const text of ['{not json', '', '   ', '{"id":1,"method":"a"}{"id":2,"method":"b"}']) {
      expect(rejected(text).code).toBe(PARSE_ERROR);
    }
  });

  it('rejects batches, non-objects and objects that are neither request, response nor notification', () => {
    expect(rejected('[{"id":1,"method":"a"}]').code).toBe(INVALID_REQUEST);
    expect(rejected('42').code).toBe(INVALID_REQUEST);
    expect(rejected('"text"').code).toBe(INVALID_REQUEST);
    expect(rejected('null').code).toBe(INVALID_REQUEST);
    expect(rejected('{"id":1012,"params":{}}')).toEqual({ code: INVALID_REQUEST, id: 1012 });
    expect(rejected('{"params":{}}').code).toBe(INVALID_REQUEST);
    expect(rejected('{"id":1,"method":5}')).toEqual({ code: INVALID_REQUEST, id: 1 });
  });

  it('rejects null, fractional, object and array ids', () => {
    for (const id of ['null', '7.5', '{"a":1}', '[1]', 'true']) {
      expect(rejected(`{"id":${id},"method":"thread/loaded/list","params":{}}`)).toEqual({ code: INVALID_REQUEST });
    }
  });

  it('rejects responses with both or neither of result and error, or a malformed error object', () => {
    expect(rejected('{"id":1,"result":1,"error":{"code":1,"message":"x"}}').code).toBe(INVALID_REQUEST);
    expect(rejected('{"id":1,"error":{"code":"x","message":"y"}}').code).toBe(INVALID_REQUEST);
    expect(rejected('{"id":1,"error":{"code":1.5,"message":"y"}}').code).toBe(INVALID_REQUEST);
  });
});

describe('encodeMessage', () => {
  it('writes no jsonrpc member and the reference key order in the omit dialect', () => {
    expect(encodeMessage({ id: 3, method: 'turn/start', params: { a: 1 } })).toBe('{"method":"turn/start","id":3,"params":{"a":1}}');
    expect(encodeMessage({ params: { s: 1 }, method: 'thread/started' })).toBe('{"method":"thread/started","params":{"s":1}}');
    expect(encodeMessage({ method: 'initialized' })).toBe('{"method":"initialized"}');
    expect(encodeMessage({ result: { ok: true }, id: 'x' })).toBe('{"id":"x","result":{"ok":true}}');
    expect(encodeMessage({ id: 1, error: { message: 'Not initialized', code: -32600 } })).toBe(
      '{"error":{"code":-32600,"message":"Not initialized"},"id":1}',
    );
  });

  it('writes jsonrpc 2.0 first in the require dialect', () => {
    expect(encodeMessage({ id: 1, method: 'm' }, { versionField: 'require' })).toBe('{"jsonrpc":"2.0","method":"m","id":1}');
    expect(encodeMessage({ id: 1, error: { code: 1, message: 'x', data: 2 } }, { versionField: 'require' })).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","data":2}}',
    );
  });

  it('writes an absent result as null and round-trips through decodeMessage', () => {
    expect(encodeMessage({ id: 1, result: undefined })).toBe('{"id":1,"result":null}');
    const message = { method: 'item/agentMessage/delta', params: { delta: 'héllo\n' } };
    expect(decoded(encodeMessage(message))).toEqual(message);
  });
});

describe('ids beyond ±(2^53−1)', () => {
  it('decodes an integer token a number would round as a bigint, and encodes it digit for digit', () => {
    for (const digits of ['9223372036854775807', '-9223372036854775808', '123456789012345678901234567890']) {
      const text = `{"method":"thread/list","params":{"id":1.5},"id":${digits}}`;
      expect(decoded(text)).toEqual({ method: 'thread/list', id: BigInt(digits), params: { id: 1.5 } });
      expect(encodeMessage({ id: BigInt(digits), result: { ok: true } })).toBe(`{"id":${digits},"result":{"ok":true}}`);
      expect(encodeMessage({ id: BigInt(digits), error: { code: -1, message: 'm' } }, { versionField: 'require' })).toBe(`{"jsonrpc":"2.0","id":${digits},"error":{"code":-1,"message":"m"}}`);
    }
    // The last "id" wins, as in JSON.parse; nested ones and strings holding the key are skipped.
    expect(decoded('{"id":1,"method":"m","params":{"id":"x\\"id\\":2"},"id":9223372036854775807}')).toMatchObject({ id: 9223372036854775807n });
    // Escaped backslashes before a quote, brackets and braces inside strings, deep nesting and a
    // megabyte string before the id do not confuse the walk.
    const tricky = `{"method":"m","params":{"a":["\\\\",{"b":"]}\\"{["}],"c":[[[]]],"d":"${'q'.repeat(1 << 20)}"},"x":"\\\\\\"","id":9223372036854775807}`;
    expect(decoded(tricky)).toMatchObject({ id: 9223372036854775807n });
    expect(topLevelMemberText(tricky, 'x')).toBe('"\\\\\\""');
    expect(topLevelMemberText('{"id":[1,{"id":2}], "z" : -3 }', 'z')).toBe('-3');
    // An exponent or fraction spelling is not an integer id.
    expect(rejected('{"method":"m","id":1e300}').code).toBe(INVALID_REQUEST);
    expect(rejected('{"method":"m","id":9223372036854775807.5}').code).toBe(INVALID_REQUEST);
  });

  it('reads the id of a frame too large to parse from its ends', () => {
    expect(readIdOfTruncated('{"method":"thread/list","id":"a\\"b","params":{"x":"xxx', '')).toBe('a"b');
    expect(readIdOfTruncated('{"method":"m","params":{"id":3,', 'xxx"},"id":9223372036854775807}')).toBe(9223372036854775807n);
    expect(readIdOfTruncated('{"method":"m","params":{"id":3,', 'xx","id":4}}')).toBeUndefined();
    expect(readIdOfTruncated('{"params":{"id":3,', 'xx"}}')).toBeUndefined();
  });
});
