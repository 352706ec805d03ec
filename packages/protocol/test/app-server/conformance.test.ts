/**
 * Drift test: every method in our tables has fixtures, and every fixture example is accepted by
 * our zod schema and by the reference JSON Schema of each Codex generation that has the method
 * (0.130.0, 0.171.0) — both as written and after our schema parsed it (so what we would send
 * stays valid for the reference).
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
import { REFERENCE_0130, reference0171, validateAgainstReference, type ReferenceKind } from '../support/reference-schema.js';

/** Parses with our schema and fails the test with zod's own explanation. */
function parseOurs(schema: z.ZodType, value: unknown, label: string): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    expect.fail(`${label} rejected by our schema:\n${z.prettifyError(parsed.error)}\n${JSON.stringify(value)}`);
  }
  return parsed.data;
}

/**
 * Validates against the 0.130 reference, or the 0.171 one for a method 0.130 lacks, and fails the
 * test with Ajv's errors. (Checking the 0.130 methods' fixtures against 0.171 as well waits for
 * the 0.171 fields of the shared types, `Thread.projectId` and the rest.)
 */
function expectReference(kind: ReferenceKind, method: string, value: unknown, label: string): void {
  const having = REFERENCE_0130.has(kind, method) ? [REFERENCE_0130] : [reference0171()].filter((r) => r.has(kind, method));
  expect(having.length, `${label}: no reference has ${method}`).toBeGreaterThan(0);
  for (const reference of having) {
    const outcome = reference.validate(kind, method, value);
    expect(outcome.valid, `${label} rejected by ${reference.bundleId} ${outcome.definition}:\n${outcome.errors.join('\n')}`).toBe(true);
  }
}

/** Checks one example both ways, then checks our parsed output against the reference again. */
function checkExample(kind: ReferenceKind, method: string, schema: z.ZodType, example: unknown, label: string): void {
  const value = fixtureParams(example);
  expectReference(kind, method, value, `${label} (as written)`);
  const parsed = parseOurs(schema, value, label);
  expectReference(kind, method, parsed, `${label} (after our parse)`);
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
});
