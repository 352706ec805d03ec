/**
 * Registry completeness: every method of the reference schema (client requests, server
 * notifications, server requests, client notifications) is either in our tables or listed in
 * `unsupported.ts`, never both, and the lists name only reference methods. Also checks the
 * reference's accepted-name list against the schema and the captured `unknown variant` error.
 */
import { describe, expect, it } from 'vitest';
import {
  clientNotifications,
  clientRequests,
  serverNotifications,
  serverRequests,
} from '../../src/app-server/methods.js';
import {
  ACCEPTED_CLIENT_REQUEST_METHODS,
  DELIBERATELY_UNSUPPORTED,
  LEGACY_CLIENT_REQUESTS,
  NOT_YET,
} from '../../src/app-server/unsupported.js';
import { readCaptures } from '../support/captures.js';
import { reference0171, referenceMethods } from '../support/reference-schema.js';

const reference = referenceMethods();
/** Methods of the later generation (0.171) that our tables may also serve. */
const later = reference0171().methods();

interface Direction {
  readonly name: string;
  readonly referenceNames: readonly string[];
  readonly laterNames: readonly string[];
  readonly ours: readonly string[];
  readonly notYet: readonly string[];
  readonly unsupported: readonly string[];
}

const directions: readonly Direction[] = [
  {
    name: 'client requests',
    referenceNames: reference.clientRequests,
    laterNames: later.clientRequests,
    ours: Object.keys(clientRequests),
    notYet: NOT_YET.clientRequests,
    unsupported: Object.keys(DELIBERATELY_UNSUPPORTED.clientRequests),
  },
  {
    name: 'server notifications',
    referenceNames: reference.serverNotifications,
    laterNames: later.serverNotifications,
    ours: Object.keys(serverNotifications),
    notYet: NOT_YET.serverNotifications,
    unsupported: Object.keys(DELIBERATELY_UNSUPPORTED.serverNotifications),
  },
  {
    name: 'server requests',
    referenceNames: reference.serverRequests,
    laterNames: later.serverRequests,
    ours: Object.keys(serverRequests),
    notYet: NOT_YET.serverRequests,
    unsupported: Object.keys(DELIBERATELY_UNSUPPORTED.serverRequests),
  },
];

describe.each(directions)('$name', ({ name, referenceNames, laterNames, ours, notYet, unsupported }) => {
  it('every reference method is implemented, not yet implemented, or deliberately unsupported', () => {
    const listed = new Set([...ours, ...notYet, ...unsupported]);
    const unaccounted = referenceNames.filter((method) => !listed.has(method));
    expect(unaccounted, `add these ${name} to methods.ts or unsupported.ts`).toEqual([]);
  });

  it('lists only methods the reference has (0.130, or 0.171 for what we serve)', () => {
    const known = new Set(referenceNames);
    const later = new Set(laterNames);
    expect([...notYet, ...unsupported].filter((method) => !known.has(method))).toEqual([]);
    expect(ours.filter((method) => !known.has(method) && !later.has(method))).toEqual([]);
  });

  it('lists each method in exactly one place', () => {
    const all = [...ours, ...notYet, ...unsupported];
    expect(all.filter((method, i) => all.indexOf(method) !== i)).toEqual([]);
  });

  it('keeps our table in the reference order', () => {
    expect(ours.filter((method) => referenceNames.includes(method))).toEqual(referenceNames.filter((method) => ours.includes(method)));
    expect(ours.filter((method) => laterNames.includes(method))).toEqual(laterNames.filter((method) => ours.includes(method)));
  });

  it('reports the gap: the reference methods we do not implement', () => {
    const gap = referenceNames.filter((method) => !ours.includes(method));
    console.info(`${name}: ${ours.length} implemented, ${gap.length} not: ${gap.join(', ')}`);
    expect([...gap].sort()).toEqual([...notYet, ...unsupported].sort());
  });
});

describe('client notifications', () => {
  it('match the reference exactly', () => {
    expect(Object.keys(clientNotifications)).toEqual([...reference.clientNotifications]);
  });
});

describe('accepted request names', () => {
  it('are the reference schema methods in order plus the legacy names', () => {
    const withoutLegacy = ACCEPTED_CLIENT_REQUEST_METHODS.filter(
      (method) => !(LEGACY_CLIENT_REQUESTS as readonly string[]).includes(method),
    );
    expect(withoutLegacy).toEqual([...reference.clientRequests]);
    expect(ACCEPTED_CLIENT_REQUEST_METHODS.length).toBe(reference.clientRequests.length + LEGACY_CLIENT_REQUESTS.length);
  });

  it('match the list in the reference unknown-variant error, in order', () => {
    const unknownVariant = readCaptures().find((m) => {
      const text = (m.payload as { message?: unknown } | undefined)?.message;
      return m.kind === 'error' && typeof text === 'string' && text.includes('unknown variant `no/such/method`');
    });
    expect(unknownVariant).toBeDefined();
    const text = (unknownVariant?.payload as { message: string }).message;
    const listed = [...text.slice(text.indexOf('expected one of')).matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    expect(listed).toEqual([...ACCEPTED_CLIENT_REQUEST_METHODS]);
  });
});
