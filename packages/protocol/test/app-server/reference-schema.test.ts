/**
 * The test-side reference validator itself (test/support/reference-schema.ts), which every suite
 * uses to check payloads against Codex 0.130.0 and 0.171.0: a definition named directly and a
 * whole server message each accept a valid payload and report what is wrong with a bad one, so a
 * suite asserting "no problems" cannot pass because the check saw nothing.
 */
import { describe, expect, it } from 'vitest';
import { problemsAgainstDefinition, serverMessageProblems } from '../support/reference-schema.js';

const exited = { processHandle: 'p1', exitCode: 0, stdout: '', stderr: '', stdoutCapReached: false, stderrCapReached: false };

describe('problemsAgainstDefinition', () => {
  it('accepts a valid payload and names each problem of a bad one', () => {
    expect(problemsAgainstDefinition('ProcessExitedNotification', exited, '0.171')).toEqual([]);
    const { stdout: _dropped, ...missing } = exited;
    expect(problemsAgainstDefinition('ProcessExitedNotification', missing, '0.171')).toEqual([
      `ProcessExitedNotification: / must have required property 'stdout' {"missingProperty":"stdout"}`,
    ]);
  });

  it('checks the integer widths the generator writes (int32 here)', () => {
    expect(problemsAgainstDefinition('ProcessExitedNotification', { ...exited, exitCode: 2 ** 31 }, '0.171')).toEqual([
      `ProcessExitedNotification: /exitCode must match format "int32" {"format":"int32"}`,
    ]);
  });

  it('throws for a name the reference does not define', () => {
    expect(() => problemsAgainstDefinition('NoSuchDefinition', {}, '0.171')).toThrow('the 0.171 reference has no definition NoSuchDefinition');
  });
});

describe('serverMessageProblems', () => {
  it('checks a notification\'s params and a response\'s result against the version asked for', () => {
    expect(serverMessageProblems({ method: 'process/exited', params: exited }, '0.171')).toEqual([]);
    expect(serverMessageProblems({ method: 'process/exited', params: { ...exited, exitCode: 'zero' } }, '0.171')).toEqual([
      'notification process/exited (reference 0.171 v2/ProcessExitedNotification): /exitCode must be integer {"type":"integer"}',
    ]);
    expect(serverMessageProblems({ id: 1, result: { data: 'not a list' } }, '0.171', 'hooks/list')).toHaveLength(1);
  });

  it('checks a server request\'s params', () => {
    expect(serverMessageProblems({ id: 7, method: 'item/tool/requestUserInput', params: {} }, '0.171').length).toBeGreaterThan(0);
  });

  it('skips a method the version does not have, an error response and a result without its method', () => {
    expect(serverMessageProblems({ method: 'deputy/notAReferenceMethod', params: 1 }, '0.171')).toEqual([]);
    expect(serverMessageProblems({ id: 1, error: { code: -32600, message: 'bad' } }, '0.171', 'hooks/list')).toEqual([]);
    expect(serverMessageProblems({ id: 1, result: 'anything' }, '0.171')).toEqual([]);
  });
});
