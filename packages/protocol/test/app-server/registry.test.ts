/**
 * Registry completeness, for each kept reference version (0.130 and 0.171): every method of the
 * reference schema (client requests, server notifications, server requests, client
 * notifications) is either in our tables or listed with its reason in `unsupported.ts` (0.130's
 * gap) or `unsupported-current.ts` (what only 0.171 has), never both, and the lists name only
 * reference methods. Also checks the accepted-name list against both schemas and the captured
 * 0.130 `unknown variant` error.
 */
import { describe, expect, it } from 'vitest';
import {
  clientNotifications,
  clientRequests,
  serverNotifications,
  serverRequests,
} from '../../src/app-server/methods.js';
import {
  CURRENT_ONLY_CLIENT_REQUESTS,
  CURRENT_ONLY_SERVER_NOTIFICATIONS,
  CURRENT_UNSERVED,
} from '../../src/app-server/unsupported-current.js';
import {
  ACCEPTED_CLIENT_REQUEST_METHODS,
  DELIBERATELY_UNSUPPORTED,
  LEGACY_CLIENT_REQUESTS,
  NOT_YET,
} from '../../src/app-server/unsupported.js';
import { readCaptures } from '../support/captures.js';
import { referenceMethods } from '../support/reference-schema.js';

const reference = referenceMethods('0.130');
const current = referenceMethods('0.171');

interface Direction {
  readonly name: string;
  readonly referenceNames: readonly string[];
  readonly ours: readonly string[];
  readonly notYet: readonly string[];
  readonly unsupported: readonly string[];
}

const directions: readonly Direction[] = [
  {
    name: 'client requests',
    referenceNames: reference.clientRequests,
    ours: Object.keys(clientRequests),
    notYet: NOT_YET.clientRequests,
    unsupported: Object.keys(DELIBERATELY_UNSUPPORTED.clientRequests),
  },
  {
    name: 'server notifications',
    referenceNames: reference.serverNotifications,
    ours: Object.keys(serverNotifications),
    notYet: NOT_YET.serverNotifications,
    unsupported: Object.keys(DELIBERATELY_UNSUPPORTED.serverNotifications),
  },
  {
    name: 'server requests',
    referenceNames: reference.serverRequests,
    ours: Object.keys(serverRequests),
    notYet: NOT_YET.serverRequests,
    unsupported: Object.keys(DELIBERATELY_UNSUPPORTED.serverRequests),
  },
];

/** The 0.171 side of each direction: its names, and what only it has that we do not serve. */
const currentOf: Record<string, { names: readonly string[]; unserved: Readonly<Record<string, string>> }> = {
  'client requests': { names: current.clientRequests, unserved: CURRENT_UNSERVED.clientRequests },
  'server notifications': { names: current.serverNotifications, unserved: CURRENT_UNSERVED.serverNotifications },
  'server requests': { names: current.serverRequests, unserved: CURRENT_UNSERVED.serverRequests },
};

describe.each(directions)('$name', ({ name, referenceNames, ours, notYet, unsupported }) => {
  const { names: currentNames, unserved } = currentOf[name] as (typeof currentOf)[string];
  const currentOnly = currentNames.filter((method) => !referenceNames.includes(method));
  const currentUnserved = Object.keys(unserved);

  it('every 0.130 reference method is implemented, not yet implemented, or deliberately unsupported', () => {
    const listed = new Set([...ours, ...notYet, ...unsupported]);
    const unaccounted = referenceNames.filter((method) => !listed.has(method));
    expect(unaccounted, `add these ${name} to methods.ts or unsupported.ts`).toEqual([]);
  });

  it('every 0.171 reference method is implemented or listed with its reason', () => {
    const listed = new Set([...ours, ...notYet, ...unsupported, ...currentUnserved]);
    const unaccounted = currentNames.filter((method) => !listed.has(method));
    expect(unaccounted, `add these ${name} to methods.ts or unsupported-current.ts`).toEqual([]);
    for (const [method, reason] of Object.entries(unserved)) expect(reason.length, method).toBeGreaterThan(10);
  });

  it('lists only methods a reference has; the 0.171 list only what 0.130 lacks', () => {
    const known = new Set([...referenceNames, ...currentNames]);
    expect([...ours, ...notYet, ...unsupported].filter((method) => !known.has(method))).toEqual([]);
    expect(currentUnserved.filter((method) => !currentOnly.includes(method))).toEqual([]);
  });

  it('lists each method in exactly one place', () => {
    const all = [...ours, ...notYet, ...unsupported, ...currentUnserved];
    expect(all.filter((method, i) => all.indexOf(method) !== i)).toEqual([]);
  });

  it('keeps our table in reference order: 0.130 methods first in 0.130 order, then 0.171 ones in 0.171 order', () => {
    const old = ours.filter((method) => referenceNames.includes(method));
    expect(old).toEqual(referenceNames.filter((method) => ours.includes(method)));
    expect(ours.filter((method) => !referenceNames.includes(method))).toEqual(currentOnly.filter((method) => ours.includes(method)));
  });

  it('reports the gap per version: the reference methods we do not implement', () => {
    const gap = referenceNames.filter((method) => !ours.includes(method));
    console.info(`${name} (0.130): ${ours.length} implemented, ${gap.length} not: ${gap.join(', ')}`);
    expect([...gap].sort()).toEqual([...notYet, ...unsupported].sort());
    const currentGap = currentNames.filter((method) => !ours.includes(method));
    console.info(`${name} (0.171): ${currentNames.length - currentGap.length} of ${currentNames.length} implemented; not: ${currentGap.join(', ')}`);
    const removed = referenceNames.filter((method) => !currentNames.includes(method));
    const listed = new Set([...notYet, ...unsupported, ...currentUnserved]);
    expect(currentGap.filter((method) => !listed.has(method))).toEqual([]);
    // What 0.171 dropped we keep serving to 0.130 clients (thread/rollback, thread/turns/items/list).
    expect(removed.filter((method) => !ours.includes(method) && !listed.has(method))).toEqual([]);
  });
});

describe('notifications only current clients get', () => {
  it('are exactly the 0.171 notifications 0.130 lacks', () => {
    const currentOnly = current.serverNotifications.filter((method) => !reference.serverNotifications.includes(method));
    expect([...CURRENT_ONLY_SERVER_NOTIFICATIONS].sort()).toEqual([...currentOnly].sort());
  });
});

describe('client notifications', () => {
  it('match both references exactly', () => {
    expect(Object.keys(clientNotifications)).toEqual([...reference.clientNotifications]);
    expect(Object.keys(clientNotifications)).toEqual([...current.clientNotifications]);
  });
});

describe('accepted request names', () => {
  it('are the 0.130 schema methods in order plus the legacy names, then what only 0.171 has, in its order', () => {
    const withoutLegacy = ACCEPTED_CLIENT_REQUEST_METHODS.filter(
      (method) => !(LEGACY_CLIENT_REQUESTS as readonly string[]).includes(method),
    );
    const currentOnly = current.clientRequests.filter((method) => !reference.clientRequests.includes(method));
    expect(CURRENT_ONLY_CLIENT_REQUESTS).toEqual(currentOnly);
    expect(withoutLegacy).toEqual([...reference.clientRequests, ...currentOnly]);
    expect(ACCEPTED_CLIENT_REQUEST_METHODS.length).toBe(
      reference.clientRequests.length + LEGACY_CLIENT_REQUESTS.length + currentOnly.length,
    );
  });

  it('begin with the list in the 0.130 reference unknown-variant error, in order', () => {
    const unknownVariant = readCaptures().find((m) => {
      const text = (m.payload as { message?: unknown } | undefined)?.message;
      return m.kind === 'error' && typeof text === 'string' && text.includes('unknown variant `no/such/method`');
    });
    expect(unknownVariant).toBeDefined();
    const text = (unknownVariant?.payload as { message: string }).message;
    const listed = [...text.slice(text.indexOf('expected one of')).matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    expect(listed).toEqual(ACCEPTED_CLIENT_REQUEST_METHODS.slice(0, listed.length));
    expect(ACCEPTED_CLIENT_REQUEST_METHODS.slice(listed.length)).toEqual([...CURRENT_ONLY_CLIENT_REQUESTS]);
  });
});
