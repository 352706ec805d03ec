/**
 * Drift test: every method in our tables has fixtures, and every fixture example is accepted by
 * our zod schema and by the reference JSON Schemas (Codex 0.130.0 and 0.171.0). An example as
 * written must match at least one reference version that has the method (a 0.130 client's
 * request need not be a valid 0.171 request); what we send, i.e. a result, notification or
 * server request after our schema parsed it, must match every version that has the method, since
 * one server answers both generations with superset shapes. Client requests after our parse
 * must still match at least one version.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  clientNotifications,
  clientRequests,
  serverNotifications,
  serverRequests,
} from '../../src/app-server/methods.js';
import { fixtureMethods, fixtureParams, hasFixture, readFixture } from '../support/fixtures.js';
import {
  validateAgainstEveryReference,
  validateAgainstReference,
  type ReferenceKind,
} from '../support/reference-schema.js';

/** Parses with our schema and fails the test with zod's own explanation. */
function parseOurs(schema: z.ZodType, value: unknown, label: string): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    expect.fail(`${label} rejected by our schema:\n${z.prettifyError(parsed.error)}\n${JSON.stringify(value)}`);
  }
  return parsed.data;
}

/**
 * Validates against the reference versions that have the method (`every` of them, or at least
 * one) and fails the test with Ajv's errors.
 */
function expectReference(kind: ReferenceKind, method: string, value: unknown, label: string, every: boolean): void {
  const outcomes = validateAgainstEveryReference(kind, method, value);
  const failed = outcomes.filter((outcome) => !outcome.valid);
  const ok = every ? failed.length === 0 : failed.length < outcomes.length;
  const detail = failed.map((o) => `reference ${o.version} ${o.definition}:\n${o.errors.join('\n')}`).join('\n');
  expect(ok, `${label} rejected by ${detail}`).toBe(true);
}

/** What the server sends (as opposed to what a client sends). */
const isOutbound = (kind: ReferenceKind): boolean => kind !== 'request' && kind !== 'serverResponse';

/** Checks one example both ways, then checks our parsed output against the references again. */
function checkExample(kind: ReferenceKind, method: string, schema: z.ZodType, example: unknown, label: string): void {
  const value = fixtureParams(example);
  expectReference(kind, method, value, `${label} (as written)`, false);
  const parsed = parseOurs(schema, value, label);
  expectReference(kind, method, parsed, `${label} (after our parse)`, isOutbound(kind));
}

describe('fixture coverage', () => {
  it('has a fixture file for every method in our tables and none for other methods', () => {
    expect(fixtureMethods('client-requests')).toEqual(Object.keys(clientRequests).sort());
    expect(fixtureMethods('server-notifications')).toEqual(Object.keys(serverNotifications).sort());
    expect(fixtureMethods('server-requests')).toEqual(Object.keys(serverRequests).sort());
    expect(fixtureMethods('client-notifications')).toEqual(Object.keys(clientNotifications).sort());
  });
});

describe('client request fixtures', () => {
  for (const [method, spec] of Object.entries(clientRequests)) {
    it(`${method}: params and results match our schema and the reference`, () => {
      expect(hasFixture('client-requests', method)).toBe(true);
      const fixture = readFixture('client-requests', method);
      expect(fixture.params.length).toBeGreaterThan(0);
      expect(fixture.results?.length ?? 0).toBeGreaterThan(0);
      fixture.params.forEach((example, i) => checkExample('request', method, spec.params, example, `params[${i}]`));
      fixture.results?.forEach((example, i) => checkExample('response', method, spec.result, example, `results[${i}]`));
    });
  }
});

describe('server notification fixtures', () => {
  for (const [method, { params: schema }] of Object.entries(serverNotifications)) {
    it(`${method}: params match our schema and the reference`, () => {
      const fixture = readFixture('server-notifications', method);
      expect(fixture.params.length).toBeGreaterThan(0);
      fixture.params.forEach((example, i) => checkExample('notification', method, schema, example, `params[${i}]`));
    });
  }
});

describe('server request fixtures', () => {
  for (const [method, spec] of Object.entries(serverRequests)) {
    it(`${method}: params and client results match our schema and the reference`, () => {
      const fixture = readFixture('server-requests', method);
      expect(fixture.params.length).toBeGreaterThan(0);
      expect(fixture.results?.length ?? 0).toBeGreaterThan(0);
      fixture.params.forEach((example, i) => checkExample('serverRequest', method, spec.params, example, `params[${i}]`));
      fixture.results?.forEach((example, i) =>
        checkExample('serverResponse', method, spec.result, example, `results[${i}]`),
      );
    });
  }
});

describe('client notification fixtures', () => {
  it('initialized carries no params and our schema accepts that', () => {
    const fixture = readFixture('client-notifications', 'initialized');
    for (const example of fixture.params) {
      expect(fixtureParams(example)).toBeUndefined();
      parseOurs(clientNotifications.initialized, fixtureParams(example), 'initialized');
    }
  });
});

describe('the reference validator', () => {
  it('rejects a thread/start result that lacks the thread', () => {
    const fixture = readFixture('client-requests', 'thread/start');
    const { thread: _thread, ...withoutThread } = fixture.results?.[0] as Record<string, unknown>;
    const outcome = validateAgainstReference('response', 'thread/start', withoutThread);
    expect(outcome.valid).toBe(false);
    expect(outcome.definition).toBe('v2/ThreadStartResponse');
    expect(outcome.errors.join('\n')).toContain("must have required property 'thread'");
  });

  it('accepts no params and rejects an object for a method the reference defines without params', () => {
    expect(validateAgainstReference('request', 'account/logout', undefined).valid).toBe(true);
    expect(validateAgainstReference('request', 'account/logout', { x: 1 }).valid).toBe(false);
  });

  it('throws for a method the reference does not have', () => {
    expect(() => validateAgainstReference('request', 'no/such/method', {})).toThrow(/no request method no\/such\/method/);
  });

  it('checks a method against every version that has it', () => {
    expect(validateAgainstEveryReference('request', 'thread/start', {}).map((o) => o.version)).toEqual(['0.130', '0.171']);
    expect(validateAgainstEveryReference('request', 'thread/rollback', { threadId: 't', numTurns: 1 }).map((o) => o.version)).toEqual(['0.130']);
    expect(validateAgainstEveryReference('request', 'permissionProfile/list', {}).map((o) => o.version)).toEqual(['0.171']);
  });

  it('tells the generations apart: a string permissions is 0.171 only, on-failure 0.130 only', () => {
    const byVersion = (kind: ReferenceKind, method: string, value: unknown) =>
      Object.fromEntries(validateAgainstEveryReference(kind, method, value).map((o) => [o.version, o.valid]));
    expect(byVersion('request', 'thread/start', { permissions: ':read-only' })).toEqual({ '0.130': false, '0.171': true });
    expect(byVersion('request', 'turn/start', { threadId: 't', input: [], approvalPolicy: 'on-failure' })).toEqual({
      '0.130': true,
      '0.171': false,
    });
  });
});
