/**
 * Session config options (docs/acp.md, "Modes and config options"): the model option lists the
 * provider's models (`GET /models` of the scripted server) with the configured one first, the
 * reasoning effort option follows the chosen model, and the chosen model and effort reach the
 * next model request; `config_option_update` and `current_mode_update` keep the client in sync
 * when the other side of mode/options changes; `session_info_update` ends each turn before its
 * response; `compaction_update` replaces the "Context compacted" thought for clients that
 * advertise `session.compaction`, live and on replay.
 */
import * as acp from '@agentclientprotocol/sdk';
import { waitFor } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useReferenceMock } from '../../../mcp-server/test/helpers/mock-model.js';
import { startEnv, turnRequests, withAcp, type Client, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv('approval_policy = "never"\nsandbox_mode = "danger-full-access"');
  useReferenceMock(env.model);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

/** The options the client holds now: the response's, then every `config_option_update`. */
function currentOptions(c: Client, sessionId: string, initial: acp.SessionConfigOption[]): acp.SessionConfigOption[] {
  const pushed = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'config_option_update');
  const last = pushed.at(-1);
  return last?.sessionUpdate === 'config_option_update' ? last.configOptions : initial;
}
const option = (options: acp.SessionConfigOption[], id: string) => options.find((o) => o.id === id);
const values = (o: acp.SessionConfigOption | undefined) => (o?.type === 'select' ? o.options.flatMap((v) => ('value' in v ? [v.value] : [])) : []);

describe('deputy acp config options', () => {
  it('offers the provider models and the model efforts, and the chosen ones reach the model request', async () => {
    await withAcp(env, async (c) => {
      const created = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      const { sessionId } = created;
      const initial = created.configOptions ?? [];
      expect(initial.map((o) => o.id)).toEqual(['mode', 'model', 'reasoning_effort']);
      // The catalogue arrives with the response or right after it, as an update.
      await waitFor(() => values(option(currentOptions(c, sessionId, initial), 'model')).includes('gpt-4.1'));
      const model = option(currentOptions(c, sessionId, initial), 'model');
      expect(model).toMatchObject({ category: 'model', currentValue: 'gpt-5.2-codex' });
      expect(values(model)).toEqual(['gpt-5.2-codex', 'gpt-5.2', 'gpt-4.1']);
      expect(option(initial, 'reasoning_effort')).toMatchObject({ category: 'thought_level' });
      expect(values(option(initial, 'reasoning_effort'))).toEqual(['low', 'medium', 'high', 'xhigh']);

      const set = await c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'gpt-5.2' });
      expect(option(set.configOptions, 'model')?.currentValue).toBe('gpt-5.2');
      expect(values(option(set.configOptions, 'reasoning_effort'))).toEqual(['none', 'low', 'medium', 'high', 'xhigh']);
      const effort = await c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'reasoning_effort', value: 'high' });
      expect(option(effort.configOptions, 'reasoning_effort')?.currentValue).toBe('high');
      await c.prompt(sessionId, 'which model?');
      const request = turnRequests(env).at(-1);
      expect(request?.body).toMatchObject({ model: 'gpt-5.2', reasoning: { effort: 'high' } });

      // A model without reasoning has no effort option; bad ids and values are refused.
      const plain = await c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'gpt-4.1' });
      expect(plain.configOptions.map((o) => o.id)).toEqual(['mode', 'model']);
      await expect(c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'no-such-model' })).rejects.toMatchObject({ code: -32602 });
      await expect(c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'temperature', value: 'hot' })).rejects.toMatchObject({ code: -32602 });
      await c.prompt(sessionId, 'and now?');
      expect(turnRequests(env).at(-1)?.body).toMatchObject({ model: 'gpt-4.1' });
      expect(c.invalid).toEqual([]);
    });
  });

  it('pushes config_option_update after set_mode and current_mode_update after a mode option change', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      await c.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'read-only' });
      await waitFor(() => c.rec.of(sessionId).some((u) => u.sessionUpdate === 'config_option_update' && option(u.configOptions, 'mode')?.currentValue === 'read-only'));
      await c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'mode', value: 'auto' });
      await waitFor(() => c.rec.of(sessionId).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'auto'));
      expect(c.invalid).toEqual([]);
    });
  });

  it('ends each turn with session_info_update (title, updatedAt) before the response', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      await c.prompt(sessionId, 'name me\nplease');
      const response = c.rec.timeline.findIndex((e) => e.kind === 'response' && e.sessionId === sessionId);
      const info = c.rec.timeline.findIndex((e) => e.kind === 'update' && e.n.sessionId === sessionId && e.n.update.sessionUpdate === 'session_info_update');
      expect(info).toBeGreaterThan(-1);
      expect(info).toBeLessThan(response);
      const update = c.rec.timeline[info];
      expect(update?.kind === 'update' && update.n.update).toMatchObject({ title: 'name me please', updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
      const listed = await c.agent.request(acp.methods.agent.session.list, { cwd: env.temp.cwd });
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.title).toBe('name me please');
      expect(c.invalid).toEqual([]);
    });
  });

  it('shows a compaction as compaction_update to clients that advertise session.compaction, live and on replay', async () => {
    const sessionId = await withAcp(
      env,
      async (c) => {
        const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
        await c.prompt(sessionId, 'something to compact');
        expect((await c.prompt(sessionId, '/compact')).stopReason).toBe('end_turn');
        const compactions = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'compaction_update');
        expect(compactions.map((u) => u.sessionUpdate === 'compaction_update' && u.status)).toEqual(['in_progress', 'completed']);
        expect(new Set(compactions.map((u) => u.sessionUpdate === 'compaction_update' && u.compactionId)).size).toBe(1);
        expect(c.rec.of(sessionId).some((u) => u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' && u.content.text === 'Context compacted')).toBe(false);
        expect(c.invalid).toEqual([]);
        return sessionId;
      },
      { clientCapabilities: { session: { compaction: {} } } },
    );
    await withAcp(
      env,
      async (c) => {
        await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: env.temp.cwd, mcpServers: [] });
        expect(c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'compaction_update').map((u) => u.sessionUpdate === 'compaction_update' && u.status)).toEqual(['completed']);
        expect(c.invalid).toEqual([]);
      },
      { clientCapabilities: { session: { compaction: {} } } },
    );
    // A client without the capability gets the thought instead.
    await withAcp(env, async (c) => {
      await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: env.temp.cwd, mcpServers: [] });
      expect(c.rec.of(sessionId).some((u) => u.sessionUpdate === 'compaction_update')).toBe(false);
      expect(c.rec.of(sessionId).some((u) => u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' && u.content.text === 'Context compacted')).toBe(true);
    });
  });
});
