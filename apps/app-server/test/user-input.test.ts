/**
 * Questions to the user over the app-server (docs/extensions.md "Questions to the user"):
 * `request_user_input` is offered in plan collaboration mode only, a call becomes
 * `item/tool/requestUserInput` with `isBlocking`, and the answers go back to the model. Messages
 * are checked against 0.130 (the harness) and, for the methods this feature uses, 0.171.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { conversationTail, functionCall, text, toolNames, type StepHandler } from '@deputy/test-support';
import { harnessPerTest, type Harness } from './support/harness.js';
import { serverMessageProblems } from '../../../packages/protocol/test/support/reference-schema.js';
import { startThread, startTurn, turnCompleted } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const ASK = 'item/tool/requestUserInput';
const QUESTIONS = [
  {
    id: 'db',
    header: 'Database',
    question: 'Which database should the service use?',
    options: [
      { label: 'Postgres (Recommended)', description: 'Relational, already deployed.' },
      { label: 'SQLite', description: 'A file, no server.' },
    ],
  },
];

/** `ask` calls request_user_input; a tool output is echoed as `TOOL_RESULT: <output>`. */
const script: StepHandler = (request) => {
  const tail = conversationTail(request);
  if (tail.kind === 'tool-output') return { output: [text(`TOOL_RESULT: ${tail.output.output}`)] };
  if (tail.kind === 'user' && tail.text === 'ask') return { output: [functionCall('request_user_input', { questions: QUESTIONS })] };
  return { output: [text('ECHO')] };
};

const PLAN = { mode: 'plan', settings: { model: 'mock-model', reasoning_effort: null, developer_instructions: null } };

const harness = harnessPerTest();
let h: Harness;
let client: WireClient;

afterEach(() => {
  const owned = new Set([ASK, 'serverRequest/resolved', 'item/started', 'item/completed', 'turn/completed']);
  const problems = client.received.filter((m) => 'method' in m && owned.has(m.method)).flatMap((m) => serverMessageProblems(m, '0.171'));
  expect(problems).toEqual([]);
});

function lastToolOutput(): string {
  const items = (h.model.requests.at(-1)?.body.input as Array<Record<string, unknown>> | undefined) ?? [];
  return String(items.filter((i) => i.type === 'function_call_output').at(-1)?.output);
}

describe('request_user_input', () => {
  it('is offered in plan mode only', async () => {
    h = await harness({ handler: script });
    client = await h.connect({ capabilities: { experimentalApi: true } });
    const { id } = await startThread(client);
    await turnCompleted(client, await startTurn(client, id, 'hello'));
    expect(toolNames(h.model.requests[0]!)).not.toContain('request_user_input');
    await turnCompleted(client, await startTurn(client, id, 'hello', { collaborationMode: PLAN }));
    expect(toolNames(h.model.requests[1]!)).toContain('request_user_input');
    const spec = (h.model.requests[1]!.body.tools as Array<Record<string, unknown>>).find((t) => t.name === 'request_user_input');
    expect(spec).toMatchObject({ type: 'function', strict: false, parameters: { type: 'object', required: ['questions'], additionalProperties: false } });
  });

  it('asks the thread client with isBlocking and gives the answers to the model', async () => {
    h = await harness({ handler: script });
    client = await h.connect({ capabilities: { experimentalApi: true } });
    const { id } = await startThread(client);
    const turnId = await startTurn(client, id, 'ask', { collaborationMode: PLAN });
    const request = await client.waitForServerRequest(ASK);
    expect(request.params).toMatchObject({
      threadId: id,
      turnId,
      isBlocking: true,
      questions: [{ ...QUESTIONS[0], isOther: true, isSecret: false }],
    });
    expect(client.notifications('thread/status/changed').at(-1)?.params.status).toEqual({ type: 'active', activeFlags: ['waitingOnUserInput'] });
    await client.respond(request.id, { answers: { db: { answers: ['SQLite'] } } });
    const done = await turnCompleted(client, turnId);
    expect(done.params.turn).toMatchObject({ status: 'completed' });
    expect(client.notifications('serverRequest/resolved').map((n) => n.params)).toEqual([{ threadId: id, requestId: request.id }]);
    expect(JSON.parse(lastToolOutput())).toEqual({ answers: { db: { answers: ['SQLite'] } } });
    const statuses = client.notifications('thread/status/changed').map((n) => n.params.status);
    expect(statuses).toContainEqual({ type: 'active', activeFlags: [] });
    expect(statuses.at(-1)).toEqual({ type: 'idle' });
  });

  it('tells the model when the client answers with an error', async () => {
    h = await harness({ handler: script });
    client = await h.connect({ capabilities: { experimentalApi: true } });
    const { id } = await startThread(client);
    const turnId = await startTurn(client, id, 'ask', { collaborationMode: PLAN });
    const request = await client.waitForServerRequest(ASK);
    await client.send({ id: request.id, error: { code: -32000, message: 'dismissed' } });
    await turnCompleted(client, turnId);
    expect(lastToolOutput()).toBe('request_user_input was cancelled before receiving a response');
  });
});
