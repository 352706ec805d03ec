/**
 * Contract tests of the ids 0.171 added to turns and user messages, over the real server (real
 * rollouts under a temp home, the scripted model), every message checked against our schemas and
 * the reference of the client's generation: `Turn.rootTurnId` (the turn itself, or the
 * `rootTurnId` its `turn/start` named) and `userMessage.clientId` (the `clientUserMessageId` of
 * `turn/start`, `turn/steer` or a queued submission), live, in `thread/read`, and after a restart
 * in `thread/resume`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { harnessPerTest, restartServer, type Harness } from './support/harness.js';
import { startThread, startTurn, turnCompleted } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };

interface Turn {
  id: string;
  rootTurnId?: string | null;
  items: Array<{ type: string; clientId?: string | null; content?: Array<{ text?: string }> }>;
}

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

/** The userMessage items the client saw completed, as `[text, clientId]`. */
function userMessages(client: WireClient): Array<[string | undefined, string | null | undefined]> {
  return client
    .notifications('item/completed')
    .map((n) => n.params.item as Turn['items'][number])
    .filter((item) => item.type === 'userMessage')
    .map((item) => [item.content?.[0]?.text, item.clientId]);
}

const readTurns = async (client: WireClient, threadId: string) =>
  (await client.call<{ thread: { turns: Turn[] } }>('thread/read', { threadId, includeTurns: true })).thread.turns;

describe('turn and message ids', () => {
  it('echoes clientUserMessageId as the userMessage clientId and names each turn its own root unless told otherwise', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const threadId = (await startThread(client)).id;

    const first = await client.call<{ turn: Turn }>('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }], clientUserMessageId: 'c-1' });
    expect(first.turn.rootTurnId).toBe(first.turn.id);
    const done = await turnCompleted(client, first.turn.id);
    expect((done.params.turn as Turn).rootTurnId).toBe(first.turn.id);
    const started = client.notifications('item/started').map((n) => n.params.item as Turn['items'][number]).find((i) => i.type === 'userMessage');
    expect(started?.clientId).toBe('c-1');

    const second = await client.call<{ turn: Turn }>('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'slow: 60' }],
      clientUserMessageId: 'c-2',
      parentTurnId: first.turn.id,
      rootTurnId: first.turn.id,
    });
    expect(second.turn.rootTurnId).toBe(first.turn.id);
    await client.waitForNotification('item/agentMessage/delta');
    await client.call('turn/steer', { threadId, expectedTurnId: second.turn.id, input: [{ type: 'text', text: 'and this' }], clientUserMessageId: 'c-3' });
    expect((await turnCompleted(client, second.turn.id)).params.turn).toMatchObject({ rootTurnId: first.turn.id });

    const third = await client.call<{ turn: Turn }>('turn/start', { threadId, input: [{ type: 'text', text: 'no id' }] });
    await turnCompleted(client, third.turn.id);
    expect(userMessages(client)).toEqual([
      ['hello', 'c-1'],
      ['slow: 60', 'c-2'],
      ['and this', 'c-3'],
      ['no id', null],
    ]);

    const expected = (turns: Turn[]) => {
      expect(turns.map((t) => t.rootTurnId)).toEqual([first.turn.id, first.turn.id, third.turn.id]);
      expect(turns.flatMap((t) => t.items.filter((i) => i.type === 'userMessage').map((i) => i.clientId))).toEqual(['c-1', 'c-2', 'c-3', null]);
    };
    expected(await readTurns(client, threadId));

    const restarted = await restartServer(h, CURRENT);
    try {
      const resumed = await restarted.client.call<{ thread: { turns: Turn[] } }>('thread/resume', { threadId });
      expected(resumed.thread.turns);
      expected(await readTurns(restarted.client, threadId));
    } finally {
      await restarted.close();
    }
  });

  it('gives a queued submission its clientUserMessageId when it starts', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const threadId = (await startThread(client)).id;
    await client.call('thread/queue/add', { threadId, clientUserMessageId: 'queued-1', input: [{ type: 'text', text: 'from the queue' }] });
    const started = await client.call<{ turn: Turn }>('thread/queue/start', { threadId });
    expect(started.turn.rootTurnId).toBe(started.turn.id);
    await turnCompleted(client, started.turn.id);
    expect(userMessages(client)).toEqual([['from the queue', 'queued-1']]);
  });

  it('sends the new fields to a 0.130 client too, valid against its schema', async () => {
    const old = await h.connect({ capabilities: {}, clientInfo: { name: 'codex-tui', version: '0.130.0' } });
    const threadId = (await startThread(old)).id;
    const turnId = await startTurn(old, threadId, 'hello');
    expect((await turnCompleted(old, turnId)).params.turn).toMatchObject({ rootTurnId: turnId });
    expect(userMessages(old)).toEqual([['hello', null]]);
  });
});
