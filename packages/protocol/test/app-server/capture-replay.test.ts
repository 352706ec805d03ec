/**
 * Replays the captured reference traffic through our schemas. What the reference sends for a
 * method in our tables must be accepted (notifications, server requests, results); what clients
 * sent and the reference accepted must be accepted too; what the reference refused as
 * `Invalid request: …` must be refused by our params schema; and the experimental gate we compute
 * must name the same descriptor the reference used in its refusals.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  clientRequests,
  experimentalReasonOf,
  isClientRequestMethod,
  isServerNotificationMethod,
  isServerRequestMethod,
  serverNotifications,
  serverRequests,
} from '../../src/app-server/methods.js';
import { readCaptures, type CapturedMessage } from '../support/captures.js';

const captures = readCaptures();

function where(message: CapturedMessage): string {
  return `${message.file}:${message.line} ${message.method ?? '?'}`;
}

/** Collects every rejection so one failing run lists them all. */
function rejections(messages: readonly CapturedMessage[], schemaOf: (m: CapturedMessage) => z.ZodType): string[] {
  const problems: string[] = [];
  for (const message of messages) {
    const parsed = schemaOf(message).safeParse(message.payload);
    if (!parsed.success) problems.push(`${where(message)}: ${z.prettifyError(parsed.error)}`);
  }
  return problems;
}

function errorMessage(message: CapturedMessage | undefined): string | undefined {
  if (message?.kind !== 'error') return undefined;
  const payload = message.payload as { message?: unknown } | undefined;
  return typeof payload?.message === 'string' ? payload.message : undefined;
}

describe('captured server→client traffic', () => {
  it('contains enough traffic to be a meaningful replay', () => {
    expect(captures.filter((m) => m.direction === 's2c').length).toBeGreaterThan(1000);
  });

  it('every notification of a method in our table is accepted by our schema', () => {
    // The 0.130 reference sent remoteControl/status/changed without serverName and
    // installationId, which 0.171 requires; we always send the superset, so ours requires them.
    const notifications = captures.filter(
      (m) =>
        m.direction === 's2c' &&
        m.kind === 'notification' &&
        isServerNotificationMethod(m.method ?? '') &&
        m.method !== 'remoteControl/status/changed',
    );
    expect(notifications.length).toBeGreaterThan(900);
    expect(rejections(notifications, (m) => serverNotifications[m.method as keyof typeof serverNotifications].params)).toEqual(
      [],
    );
  });

  it('every server request of a method in our table is accepted by our schema', () => {
    const requests = captures.filter(
      (m) => m.direction === 's2c' && m.kind === 'request' && isServerRequestMethod(m.method ?? ''),
    );
    expect(requests.length).toBeGreaterThan(10);
    expect(rejections(requests, (m) => serverRequests[m.method as keyof typeof serverRequests].params)).toEqual([]);
  });

  it('every result to a method in our table is accepted by our result schema', () => {
    const results = captures.filter(
      (m) => m.direction === 's2c' && m.kind === 'result' && isClientRequestMethod(m.method ?? ''),
    );
    expect(results.length).toBeGreaterThan(300);
    expect(rejections(results, (m) => clientRequests[m.method as keyof typeof clientRequests].result)).toEqual([]);
  });
});

describe('captured client→server traffic', () => {
  const requests = captures.filter(
    (m) => m.direction === 'c2s' && m.kind === 'request' && isClientRequestMethod(m.method ?? ''),
  );
  const paramsOf = (m: CapturedMessage) => clientRequests[m.method as keyof typeof clientRequests].params;

  it('params the reference accepted are accepted by our params schema', () => {
    const accepted = requests.filter((m) => m.answer?.kind === 'result');
    expect(accepted.length).toBeGreaterThan(300);
    expect(rejections(accepted, paramsOf)).toEqual([]);
  });

  it('params the reference refused as an invalid request are refused by our params schema', () => {
    const refused = requests.filter((m) => errorMessage(m.answer)?.startsWith('Invalid request: ') === true);
    expect(refused.length).toBeGreaterThan(30);
    const wronglyAccepted = refused
      .filter((m) => paramsOf(m).safeParse(m.payload).success)
      .map((m) => `${where(m)} ${JSON.stringify(m.payload)} → ${errorMessage(m.answer)}`);
    expect(wronglyAccepted).toEqual([]);
  });

  it('approval answers the reference understood are accepted and the garbled ones refused', () => {
    const answers = captures.filter(
      (m) => m.direction === 'c2s' && m.kind === 'result' && isServerRequestMethod(m.method ?? ''),
    );
    expect(answers.length).toBeGreaterThan(15);
    const decisions = ['accept', 'acceptForSession', 'decline', 'cancel'];
    for (const answer of answers) {
      const schema = serverRequests[answer.method as keyof typeof serverRequests].result;
      const decision = (answer.payload as { decision?: unknown } | undefined)?.decision;
      const expected = typeof decision === 'string' && decisions.includes(decision);
      expect(schema.safeParse(answer.payload).success, `${where(answer)} ${JSON.stringify(answer.payload)}`).toBe(
        expected,
      );
    }
  });

  it('names the same experimental descriptor as the reference for every gated request', () => {
    // Experimental in 0.130, stable since 0.171: served to every client (docs/app-server.md).
    const stableSince0171 = new Set(['thread/goal/set', 'thread/goal/get', 'thread/goal/clear']);
    const gated = requests.filter(
      (m) => errorMessage(m.answer)?.endsWith(' requires experimentalApi capability') && !stableSince0171.has(m.method ?? ''),
    );
    expect(gated.length).toBeGreaterThanOrEqual(3);
    for (const request of gated) {
      const descriptor = errorMessage(request.answer)?.replace(' requires experimentalApi capability', '');
      const parsed = paramsOf(request).parse(request.payload);
      expect(experimentalReasonOf(request.method as keyof typeof clientRequests, parsed), where(request)).toBe(
        descriptor,
      );
    }
  });

  it('finds no experimental descriptor in requests the reference served without the capability', () => {
    const optedIn = (m: CapturedMessage) =>
      (m.payload as { capabilities?: { experimentalApi?: unknown } | null } | undefined)?.capabilities
        ?.experimentalApi === true;
    const experimentalFiles = new Set(captures.filter((m) => m.method === 'initialize' && optedIn(m)).map((m) => m.file));
    const served = requests.filter((m) => m.answer?.kind === 'result' && !experimentalFiles.has(m.file));
    expect(served.length).toBeGreaterThan(100);
    const flagged = served
      .map((m) => ({ at: where(m), reason: experimentalReasonOf(m.method as keyof typeof clientRequests, m.payload) }))
      .filter((m) => m.reason !== undefined);
    expect(flagged).toEqual([]);
  });
});
