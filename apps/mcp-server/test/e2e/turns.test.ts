/**
 * Turns through the built server over stdio: the echo turn's event order and tags
 * (docs/mcp-server.md "Events and progress"), the result shape and the exact error texts
 * ("Results"), `codex-reply` with either id form and after a server restart, on the model provider
 * the thread was created with ("`codex-reply` — continue a session"), a busy thread and two threads
 * in parallel ("Cancellation").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectV1, type V1Session } from '../helpers/clients.js';
import { startScriptedModelServer } from '@deputy/test-support';
import { startHarness, type Harness } from '../helpers/harness.js';
import { useReferenceMock } from '../helpers/mock-model.js';
import { RawClient } from '../helpers/raw-client.js';

let harness: Harness;
let session: V1Session;

beforeAll(async () => {
  harness = await startHarness({ topToml: '[profiles.fast]\nmodel = "gpt-5.2"' });
  useReferenceMock(harness.model);
  session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd });
});

afterAll(async () => {
  await session?.close();
  await harness?.close();
});

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: { threadId: string; content: string }; isError?: boolean };

function call(name: string, args: Record<string, unknown> | undefined, s: V1Session = session): Promise<ToolResult> {
  return s.client.callTool({ name, ...(args ? { arguments: args } : {}) }) as Promise<ToolResult>;
}

/** Keeps the first occurrence order of `types` in `msgs`. */
function order(msgs: Record<string, unknown>[], types: string[]): string[] {
  return msgs.map((m) => m.type as string).filter((t) => types.includes(t));
}

describe('an echo turn', () => {
  it('streams the reference event sequence, every event tagged, then answers with the final message', async () => {
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await raw.initialize();
      const response = await raw.request(7, 'tools/call', { name: 'codex', arguments: { prompt: 'hello there', cwd: harness.temp.cwd } });
      const threadId = (response.result?.structuredContent as { threadId: string }).threadId;
      // The structured result also comes as a second text block, for hosts whose model sees only text.
      const structuredContent = { threadId, content: 'ECHO: hello there' };
      expect(response.result).toEqual({ content: [{ type: 'text', text: 'ECHO: hello there' }, { type: 'text', text: JSON.stringify(structuredContent) }], structuredContent });
      expect(threadId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);

      const notes = raw.messages.filter((m) => m.method === 'codex/event');
      for (const note of notes) {
        expect(note.params?._meta).toEqual({ requestId: 7, threadId });
        const msg = note.params?.msg as Record<string, unknown>;
        const setup = msg.type === 'session_configured' || msg.type === 'mcp_startup_complete';
        expect(note.params?.id).toBe(setup ? '' : '7');
        if ('turn_id' in msg) expect(msg.turn_id).toBe('7');
      }
      const msgs = raw.events(7);
      expect(order(msgs, ['session_configured', 'mcp_startup_complete', 'task_started', 'user_message', 'agent_message', 'task_complete'])).toEqual([
        'session_configured',
        'mcp_startup_complete',
        'task_started',
        'user_message',
        'agent_message',
        'task_complete',
      ]);
      const items = msgs.filter((m) => m.type === 'item_started' || m.type === 'item_completed').map((m) => `${m.type}:${(m.item as { type: string }).type}`);
      expect(items).toEqual(['item_started:UserMessage', 'item_completed:UserMessage', 'item_started:AgentMessage', 'item_completed:AgentMessage']);
      expect(msgs.filter((m) => m.type === 'agent_message_content_delta').map((m) => m.delta).join('')).toBe('ECHO: hello there');
      expect(msgs.some((m) => m.type === 'raw_response_item')).toBe(true);
      expect(msgs.find((m) => m.type === 'session_configured')).toMatchObject({ thread_id: threadId, session_id: threadId, model: 'gpt-5.2-codex', model_provider_id: 'mock', cwd: harness.temp.cwd });
      expect(msgs.at(-1)).toMatchObject({ type: 'task_complete', last_agent_message: 'ECHO: hello there' });
      // The response comes after the last event of its stream.
      const responseAt = raw.messages.findIndex((m) => m.id === 7);
      const lastEventAt = raw.messages.findLastIndex((m) => m.method === 'codex/event');
      expect(responseAt).toBeGreaterThan(lastEventAt);
    } finally {
      await raw.kill();
    }
  });

  it('accepts an empty prompt and starts a normal turn', async () => {
    const result = await call('codex', { prompt: '' });
    expect(result.isError).toBeUndefined();
    expect(result.content[0]?.text).toBe('ECHO: ');
  });

  it('applies model and profile arguments and ignores unknown argument names', async () => {
    const result = await call('codex', { prompt: 'hi', profile: 'fast', approvalPolicy: 'ignored', foo: 1 });
    expect(result.isError).toBeUndefined();
    const last = harness.model.requests.at(-1);
    expect(last?.body.model).toBe('gpt-5.2');
    const withModel = await call('codex', { prompt: 'hi', model: 'gpt-4.1', 'base-instructions': 'BASE', 'developer-instructions': 'DEV NOTE' });
    expect(withModel.isError).toBeUndefined();
    const request = harness.model.requests.at(-1);
    expect(request?.body.model).toBe('gpt-4.1');
    expect(request?.body.instructions).toBe('BASE');
    expect(JSON.stringify(request?.body.input)).toContain('DEV NOTE');
  });
});

describe('codex-reply', () => {
  it('continues a thread by threadId, by conversationId, and prefers threadId when both are given', async () => {
    const first = await call('codex', { prompt: 'one' });
    const threadId = first.structuredContent?.threadId as string;
    const byThread = await call('codex-reply', { prompt: 'two', threadId });
    const structuredContent = { threadId, content: 'ECHO: two' };
    expect(byThread).toEqual({ content: [{ type: 'text', text: 'ECHO: two' }, { type: 'text', text: JSON.stringify(structuredContent) }], structuredContent });
    const byConversation = await call('codex-reply', { prompt: 'three', conversationId: threadId });
    expect(byConversation.structuredContent).toEqual({ threadId, content: 'ECHO: three' });
    const both = await call('codex-reply', { prompt: 'four', threadId, conversationId: '00000000-0000-7000-8000-000000000000' });
    expect(both.structuredContent).toEqual({ threadId, content: 'ECHO: four' });
    const input = JSON.stringify(harness.model.requests.at(-1)?.body.input);
    for (const earlier of ['one', 'two', 'three']) expect(input).toContain(earlier);
  });

  it('tags reply events with a fresh turn id and sends no session_configured', async () => {
    const first = await call('codex', { prompt: 'first' });
    const before = session.notifications.length;
    await call('codex-reply', { prompt: 'again', threadId: first.structuredContent?.threadId });
    const msgs = session.notifications.slice(before).filter((n) => n.method === 'codex/event');
    expect(msgs.some((n) => (n.params?.msg as { type: string }).type === 'session_configured')).toBe(false);
    const ids = new Set(msgs.map((n) => n.params?.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers the reference error texts for missing, malformed and unknown ids', async () => {
    expect((await call('codex-reply', undefined)).content[0]?.text).toBe('Missing arguments for codex-reply tool-call; the `thread_id` and `prompt` fields are required.');
    expect((await call('codex-reply', { threadId: '0190ad52-2a2f-7d6b-9f3e-6c1b2a3d4e5f' })).content[0]?.text).toBe('Failed to parse configuration for Codex tool: missing field `prompt`');
    expect((await call('codex-reply', { prompt: 'x' })).content[0]?.text).toBe('Failed to parse thread_id: either threadId or conversationId must be provided');
    expect((await call('codex-reply', { prompt: 'x', threadId: 'not-a-uuid' })).content[0]?.text).toBe(
      'Failed to parse thread_id: invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
    );
    const unknownId = '0190ad52-2a2f-7d6b-9f3e-6c1b2a3d4e5f';
    const unknown = await call('codex-reply', { prompt: 'x', threadId: unknownId });
    const structuredContent = { threadId: unknownId, content: `Session not found for thread_id: ${unknownId}` };
    expect(unknown).toEqual({
      content: [{ type: 'text', text: `Session not found for thread_id: ${unknownId}` }, { type: 'text', text: JSON.stringify(structuredContent) }],
      structuredContent,
      isError: true,
    });
  });
});

describe('codex errors', () => {
  it('answers the reference error texts for bad arguments', async () => {
    expect((await call('codex', undefined)).content[0]?.text).toBe('Missing arguments for codex tool-call; the `prompt` field is required.');
    expect((await call('codex', {})).content[0]?.text).toBe('Failed to parse configuration for Codex tool: missing field `prompt`');
    expect((await call('codex', { prompt: 42 })).content[0]?.text).toBe('Failed to parse configuration for Codex tool: invalid type: integer `42`, expected a string');
    expect((await call('codex', { prompt: 'x', 'approval-policy': 'sometimes' })).content[0]?.text).toBe(
      'Failed to parse configuration for Codex tool: unknown variant `sometimes`, expected one of `untrusted`, `on-failure`, `on-request`, `never`',
    );
    expect((await call('codex', { prompt: 'x', sandbox: 'open' })).content[0]?.text).toBe(
      'Failed to parse configuration for Codex tool: unknown variant `open`, expected one of `read-only`, `workspace-write`, `danger-full-access`',
    );
    const profile = await call('codex', { prompt: 'x', profile: 'nope' });
    expect(profile).toEqual({ content: [{ type: 'text', text: 'Failed to load Codex configuration from overrides: config profile `nope` not found' }], isError: true });
  });

  it('rejects a working directory that does not exist', async () => {
    const missing = `${harness.temp.cwd}/does-not-exist`;
    const result = await call('codex', { prompt: 'x', cwd: missing });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(`\`${missing}\` does not exist or is not a directory`);
  });

  it('reports a bad config value as a configuration error', async () => {
    const result = await call('codex', { prompt: 'x', config: { approval_policy: 'sometimes' } });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^Failed to load Codex configuration from overrides: .*approval_policy/);
  });

  it('turns a model failure into an isError result with the thread id', async () => {
    harness.model.enqueue({ fault: 'http', status: 400 });
    const result = await call('codex', { prompt: 'boom' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.structuredContent?.content).toBe(result.content[0]?.text);
    expect(result.content[0]?.text.length).toBeGreaterThan(0);
  });
});

describe('concurrency', () => {
  it('answers a second call on a busy thread at once and still completes the first', async () => {
    const first = await call('codex', { prompt: 'start' });
    const threadId = first.structuredContent?.threadId as string;
    const slow = call('codex-reply', { prompt: 'slow: 1500', threadId });
    await new Promise<void>((resolve) => {
      const check = () => (harness.model.requests.some((r) => JSON.stringify(r.body.input).includes('slow: 1500')) ? resolve() : setTimeout(check, 10));
      check();
    });
    const started = Date.now();
    const busy = await call('codex-reply', { prompt: 'in between', threadId });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(busy.isError).toBe(true);
    expect(busy.content[0]?.text).toContain(`thread ${threadId} is busy`);
    expect((await slow).content[0]?.text).toBe('slow answer after 1500 ms');
  });

  it('runs calls on different threads in parallel and tags their streams apart', async () => {
    const started = Date.now();
    const before = session.notifications.length;
    const [a, b] = await Promise.all([call('codex', { prompt: 'slow: 1000' }), call('codex', { prompt: 'slow: 1000' })]);
    expect(Date.now() - started).toBeLessThan(1900);
    expect(a.structuredContent?.threadId).not.toBe(b.structuredContent?.threadId);
    const tags = session.notifications.slice(before).map((n) => n.params?._meta as { requestId: unknown; threadId: string });
    const threadsByRequest = new Map<unknown, Set<string>>();
    for (const tag of tags) threadsByRequest.set(tag.requestId, (threadsByRequest.get(tag.requestId) ?? new Set()).add(tag.threadId));
    expect(threadsByRequest.size).toBe(2);
    for (const threads of threadsByRequest.values()) expect(threads.size).toBe(1);
  });
});

describe('persistence', () => {
  it('resumes a thread from its rollout after the server restarts', async () => {
    const first = await connectV1({ env: harness.env(), cwd: harness.temp.cwd });
    let threadId: string;
    try {
      threadId = ((await call('codex', { prompt: 'remember the word kiwi' }, first)).structuredContent as { threadId: string }).threadId;
    } finally {
      await first.close();
    }
    const second = await connectV1({ env: harness.env(), cwd: harness.temp.cwd });
    try {
      const reply = await call('codex-reply', { prompt: 'what was the word?', threadId }, second);
      const structuredContent = { threadId, content: 'ECHO: what was the word?' };
      expect(reply).toEqual({ content: [{ type: 'text', text: 'ECHO: what was the word?' }, { type: 'text', text: JSON.stringify(structuredContent) }], structuredContent });
      expect(JSON.stringify(harness.model.requests.at(-1)?.body.input)).toContain('remember the word kiwi');
    } finally {
      await second.close();
    }
  });

  it('resumes a thread after a restart on the provider its first call chose', async () => {
    const other = await startScriptedModelServer();
    useReferenceMock(other);
    const own = await startHarness({
      extraToml: ['[model_providers.other]', 'name = "Other"', `base_url = "${other.url}"`, 'wire_api = "responses"', 'request_max_retries = 0'].join('\n'),
    });
    useReferenceMock(own.model);
    try {
      const first = await connectV1({ env: own.env(), cwd: own.temp.cwd });
      let threadId: string;
      try {
        const started = await call('codex', { prompt: 'remember the word fig', config: { model_provider: 'other' } }, first);
        threadId = (started.structuredContent as { threadId: string }).threadId;
      } finally {
        await first.close();
      }
      expect([own.model.requests.length, other.requests.length]).toEqual([0, 1]);
      const second = await connectV1({ env: own.env(), cwd: own.temp.cwd });
      try {
        const reply = await call('codex-reply', { prompt: 'which fruit?', threadId }, second);
        expect(reply.structuredContent).toEqual({ threadId, content: 'ECHO: which fruit?' });
      } finally {
        await second.close();
      }
      expect([own.model.requests.length, other.requests.length]).toEqual([0, 2]);
      expect(JSON.stringify(other.requests.at(-1)?.body.input)).toContain('remember the word fig');
    } finally {
      await own.close();
      await other.close();
    }
  });
});
