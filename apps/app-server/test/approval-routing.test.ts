/**
 * Contract tests of approval routing between several connections (docs/app-server.md "Approvals"):
 * fan-out, first answer wins, `serverRequest/resolved` to everyone, late subscribers, and what
 * happens when the clients holding a request go away.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { startThread, startTurn, turnCompleted } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const EXEC = 'item/commandExecution/requestApproval';

let h: Harness;
let a: WireClient;
let threadId: string;
beforeEach(async () => {
  h = await startHarness({ approvalPolicy: 'untrusted' });
  a = await h.connect({ name: 'A' });
  threadId = (await startThread(a)).id;
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

async function subscriber(name: string): Promise<WireClient> {
  const client = await h.connect({ name });
  await client.call('thread/resume', { threadId });
  return client;
}

function commandStatus(client: WireClient): unknown {
  return client.notifications('item/completed').map((n) => n.params.item as { type: string; status: string }).find((i) => i.type === 'commandExecution')?.status;
}

async function turnStatus(client: WireClient, turnId: string): Promise<unknown> {
  return ((await turnCompleted(client, turnId)).params.turn as { status: string }).status;
}

describe('several subscribers', () => {
  it('sends the request to every subscriber; the first answer wins and everyone hears it was resolved', async () => {
    const b = await subscriber('B');
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'race.txt')}`);
    const [ra, rb] = await Promise.all([a.waitForServerRequest(EXEC), b.waitForServerRequest(EXEC)]);
    expect(rb.params).toEqual(ra.params);
    await b.respond(rb.id, { decision: 'accept' });
    await b.waitForNotification('serverRequest/resolved');
    await a.respond(ra.id, { decision: 'decline' });
    expect(await turnStatus(a, turnId)).toBe('completed');
    expect(commandStatus(a)).toBe('completed');
    expect(a.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId, requestId: ra.id }]);
    expect(b.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId, requestId: rb.id }]);
  });

  it('gives both subscribers identical notification sequences for the same turn', async () => {
    const b = await subscriber('B');
    a.policy = (request) => (request.method === EXEC ? { decision: 'accept' } : undefined);
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'same.txt')}`);
    await Promise.all([turnCompleted(a, turnId), turnCompleted(b, turnId)]);
    const ofTurn = (c: WireClient) => {
      const all = c.notifications().filter((n) => n.params.threadId === threadId || n.params.turnId === turnId);
      return all.slice(all.findIndex((n) => n.method === 'turn/started'));
    };
    expect(ofTurn(b)).toEqual(ofTurn(a));
    expect(ofTurn(a).length).toBeGreaterThan(8);
  });

  it('offers a pending request to a connection that subscribes after it was sent', async () => {
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'late.txt')}`);
    await a.waitForServerRequest(EXEC);
    const c = await h.connect({ name: 'C' });
    const resumed = await c.request('thread/resume', { threadId });
    const request = await c.waitForServerRequest(EXEC);
    const order = c.received.indexOf(c.received.find((m) => 'id' in m && m.id === resumed.id) as never);
    expect(c.received.indexOf(request)).toBeGreaterThan(order);
    await c.respond(request.id, { decision: 'accept' });
    expect(await turnStatus(a, turnId)).toBe('completed');
  });
});

describe('clients going away', () => {
  it('lets the remaining subscriber answer when another one disconnects', async () => {
    const b = await subscriber('B');
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'gone.txt')}`);
    const rb = await b.waitForServerRequest(EXEC);
    await a.waitForServerRequest(EXEC);
    await a.close();
    await b.respond(rb.id, { decision: 'accept' });
    expect(await turnStatus(b, turnId)).toBe('completed');
  });

  it('resolves as cancel when the last subscriber disconnects, so the turn ends interrupted', async () => {
    const observer = await h.connect({ name: 'observer' });
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'orphan.txt')}`);
    await a.waitForServerRequest(EXEC);
    await a.close();
    await observer.waitForNotification('thread/status/changed', (p) => p.threadId === threadId && (p.status as { type: string }).type === 'idle');
    const read = await observer.call<{ thread: { turns: Array<{ id: string; status: string }> } }>('thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns.find((t) => t.id === turnId)?.status).toBe('interrupted');
  });

  it('resolves as cancel when the only holder unsubscribes', async () => {
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'unsub.txt')}`);
    await a.waitForServerRequest(EXEC);
    expect(await a.call('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
    await a.waitForNotification('thread/status/changed', (p) => p.threadId === threadId && (p.status as { type: string }).type === 'idle');
    const read = await a.call<{ thread: { turns: Array<{ id: string; status: string }> } }>('thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns.find((t) => t.id === turnId)?.status).toBe('interrupted');
  });

  it('does not hang a turn started by a connection that is not subscribed', async () => {
    await a.call('thread/unsubscribe', { threadId });
    const turnId = await startTurn(a, threadId, `run: touch ${join(h.temp.cwd, 'nobody.txt')}`);
    await a.waitForNotification('thread/status/changed', (p) => p.threadId === threadId && (p.status as { type: string }).type === 'idle');
    expect(a.serverRequests).toEqual([]);
    const read = await a.call<{ thread: { turns: Array<{ id: string; status: string }> } }>('thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns.find((t) => t.id === turnId)?.status).toBe('interrupted');
  });
});
