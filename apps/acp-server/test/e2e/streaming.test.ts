/**
 * What a turn streams over ACP (docs/acp.md, "What the editor sees"): reasoning as thought
 * chunks, the plan as a full `plan` replacement, usage, then the answer; an image prompt reaches
 * the model as a data URL, an embedded resource as a context block; audio is refused with
 * invalid params; a failed model request answers the prompt with a -32603 error carrying the
 * engine's code.
 */
import * as acp from '@agentclientprotocol/sdk';
import { functionCall, reasoning, text } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, turnRequests, withAcp, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv();
}, 120_000);

afterAll(async () => {
  await env?.close();
});

describe('deputy acp streaming', () => {
  it('streams thoughts, the plan and usage before the answer', async () => {
    env.model.enqueue(
      {
        output: [reasoning('Thinking about the plan'), functionCall('update_plan', { plan: [{ step: 'look around', status: 'in_progress' }, { step: 'answer', status: 'pending' }] })],
        usage: { input_tokens: 1200, output_tokens: 30 },
      },
      { output: [text('All done')], usage: { input_tokens: 1300, output_tokens: 5 } },
    );
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      expect((await c.prompt(sessionId, 'plan something')).stopReason).toBe('end_turn');
      const updates = c.rec.of(sessionId);
      const kinds = updates.map((u) => u.sessionUpdate);
      const thought = updates.filter((u) => u.sessionUpdate === 'agent_thought_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');
      expect(thought).toContain('Thinking about the plan');
      expect(updates.find((u) => u.sessionUpdate === 'plan')).toEqual({
        sessionUpdate: 'plan',
        entries: [
          { content: 'look around', status: 'in_progress', priority: 'medium' },
          { content: 'answer', status: 'pending', priority: 'medium' },
        ],
      });
      expect(kinds.indexOf('agent_thought_chunk')).toBeLessThan(kinds.indexOf('plan'));
      expect(kinds.lastIndexOf('plan')).toBeLessThan(kinds.indexOf('agent_message_chunk'));
      const usage = updates.filter((u) => u.sessionUpdate === 'usage_update');
      expect(usage.length).toBeGreaterThan(0);
      expect(usage.at(-1)).toMatchObject({ used: expect.any(Number), size: expect.any(Number) });
      expect(c.invalid).toEqual([]);
    });
  });

  it('passes images as data URLs and embedded resources as context, and refuses audio', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      const seen = turnRequests(env).length;
      env.model.enqueue({ output: [text('seen')] });
      const png = Buffer.from('not really a png').toString('base64');
      const response = await c.prompt(sessionId, [
        { type: 'text', text: 'look at these' },
        { type: 'image', mimeType: 'image/png', data: png },
        { type: 'resource', resource: { uri: 'file:///work/notes.md', text: 'remember the milk', mimeType: 'text/markdown' } },
      ]);
      expect(response.stopReason).toBe('end_turn');
      const body = JSON.stringify(turnRequests(env).slice(seen).at(-1)?.body);
      expect(body).toContain(`data:image/png;base64,${png}`);
      expect(body).toContain('<context ref=\\"file:///work/notes.md\\">\\nremember the milk\\n</context>');
      await expect(c.prompt(sessionId, [{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }])).rejects.toMatchObject({ code: -32602 });
      expect(c.invalid).toEqual([]);
    });
  });

  it('answers a failed turn with -32603 and the engine error code, never end_turn', async () => {
    env.model.enqueue({ fault: 'http', status: 400, body: { error: { message: 'bad request from the test' } } });
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      await expect(c.prompt(sessionId, 'fail please')).rejects.toMatchObject({ code: -32603, data: { code: expect.any(String), threadId: sessionId } });
      expect(c.invalid).toEqual([]);
    });
  });
});
