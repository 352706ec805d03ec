/**
 * `toRpcError` and the serde-like wording of zod issues (docs/app-server.md "Envelope and errors").
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, SERVER_OVERLOADED } from '@deputy/protocol';
import { RpcError, toRpcError } from '../src/errors.js';

function zodError(schema: z.ZodType, value: unknown): z.ZodError {
  const r = schema.safeParse(value, { reportInput: true });
  if (r.success) throw new Error('expected a parse failure');
  return r.error;
}

const ThreadRead = z.object({ threadId: z.string(), includeTurns: z.boolean().optional() });

describe('toRpcError', () => {
  it('maps a missing field to the reference text with -32600 and lists the issues in data', () => {
    const e = toRpcError(zodError(ThreadRead, {}));
    expect(e.code).toBe(INVALID_REQUEST);
    expect(e.message).toBe('Invalid request: missing field `threadId`');
    expect(e.data).toEqual({ issues: [{ code: 'invalid_type', path: ['threadId'], message: expect.any(String) }] });
  });

  it('words wrong types, absent params and bad enum strings like serde', () => {
    expect(toRpcError(zodError(ThreadRead, { threadId: 42 })).message).toBe(
      'Invalid request: invalid type: integer `42`, expected a string',
    );
    expect(toRpcError(zodError(ThreadRead, undefined)).message).toBe('Invalid request: missing field `params`');
    const Sandbox = z.object({ sandbox: z.enum(['read-only', 'workspace-write', 'danger-full-access']).optional() });
    expect(toRpcError(zodError(Sandbox, { sandbox: 'workspaceWrite' })).message).toBe(
      'Invalid request: unknown variant `workspaceWrite`, expected one of `read-only`, `workspace-write`, `danger-full-access`',
    );
  });

  it('words a union of strings and objects by its string variants, and a tagged union by its tags', () => {
    const Policy = z.object({
      approvalPolicy: z.union([z.enum(['untrusted', 'never']), z.object({ granular: z.object({ sandbox_approval: z.boolean() }) })]),
    });
    expect(toRpcError(zodError(Policy, { approvalPolicy: 'bogus' })).message).toBe(
      'Invalid request: unknown variant `bogus`, expected one of `untrusted`, `never`',
    );
    expect(toRpcError(zodError(Policy, { approvalPolicy: { granular: {} } })).message).toBe(
      'Invalid request: missing field `sandbox_approval`',
    );
    const Input = z.object({
      input: z.array(z.discriminatedUnion('type', [z.object({ type: z.literal('text'), text: z.string() }), z.object({ type: z.literal('image'), url: z.string() })])),
    });
    expect(toRpcError(zodError(Input, { input: [{ type: 'audio' }] })).message).toBe(
      'Invalid request: unknown variant `audio`, expected one of `text`, `image`',
    );
    expect(toRpcError(zodError(Input, { input: [{ type: 'text' }] })).message).toBe('Invalid request: missing field `text`');
  });

  it('uses -32602 and an "Invalid params" prefix in the jsonrpc dialect', () => {
    const e = toRpcError(zodError(ThreadRead, {}), { dialect: 'jsonrpc' });
    expect(e.code).toBe(INVALID_PARAMS);
    expect(e.message).toBe('Invalid params: missing field `threadId`');
    expect(RpcError.unknownMethod('x/y', ['a'], 'jsonrpc').code).toBe(METHOD_NOT_FOUND);
  });

  it('passes an RpcError through unchanged', () => {
    const original = RpcError.overloaded();
    expect(toRpcError(original)).toBe(original);
    expect(original.toJSON()).toEqual({ code: SERVER_OVERLOADED, message: 'Server overloaded; retry later.' });
  });

  it('maps engine error codes through the table and keeps their message', () => {
    class ThreadNotFoundError extends Error {
      readonly code = 'thread_not_found';
    }
    const e = toRpcError(new ThreadNotFoundError('thread not found: 01a2'));
    expect(e.toJSON()).toEqual({ code: INVALID_REQUEST, message: 'thread not found: 01a2' });
  });

  it('keeps an explicit rpcCode or a JSON-RPC-range numeric code', () => {
    expect(toRpcError(Object.assign(new Error('gone'), { rpcCode: -32099, data: { a: 1 } })).toJSON()).toEqual({
      code: -32099,
      message: 'gone',
      data: { a: 1 },
    });
    expect(toRpcError(Object.assign(new Error('mcp said no'), { code: -32002 })).code).toBe(-32002);
  });

  it('maps anything else to -32603 with the first line of its message, or "Internal error"', () => {
    const e = toRpcError(Object.assign(new Error("ENOENT: no such file or directory, open '/x'\n    at stack"), { code: 'ENOENT' }));
    expect(e.toJSON()).toEqual({ code: INTERNAL_ERROR, message: "ENOENT: no such file or directory, open '/x'" });
    expect(toRpcError(42).toJSON()).toEqual({ code: INTERNAL_ERROR, message: 'Internal error' });
    expect(toRpcError(new Error('')).message).toBe('Internal error');
    expect(toRpcError(new Error('x'.repeat(1000))).message.length).toBeLessThan(400);
  });

  it('offers factories for the reference texts handlers throw', () => {
    expect(RpcError.notFound('thread', 'abc').toJSON()).toEqual({ code: INVALID_REQUEST, message: 'thread not found: abc' });
    expect(RpcError.missingField('threadId').message).toBe('Invalid request: missing field `threadId`');
    expect(RpcError.notInitialized().message).toBe('Not initialized');
    expect(RpcError.alreadyInitialized().message).toBe('Already initialized');
    expect(RpcError.experimentalRequired('thread/resume.excludeTurns').message).toBe(
      'thread/resume.excludeTurns requires experimentalApi capability',
    );
    expect(RpcError.unknownMethod('no/such', ['initialize', 'thread/start']).message).toBe(
      'Invalid request: unknown variant `no/such`, expected one of `initialize`, `thread/start`',
    );
  });
});
