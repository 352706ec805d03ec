/**
 * Slash commands (docs/acp.md, "Slash commands"): advertised after session/new, `/status` answered
 * locally without a model call, `/compact` run as a compaction turn, an unknown `/word` passed to
 * the model unchanged.
 */
import * as acp from '@agentclientprotocol/sdk';
import { waitFor } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useReferenceMock } from '../../../mcp-server/test/helpers/mock-model.js';
import { startEnv, turnRequests, withAcp, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv();
  useReferenceMock(env.model);
}, 120_000);

afterAll(async () => {
  await env?.close();
});


const answer = (updates: acp.SessionUpdate[]) => updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');

describe('deputy acp slash commands', () => {
  it('advertises the handled commands, answers /status locally, compacts, and passes unknown commands to the model', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      await waitFor(() => c.rec.of(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'));
      const advertised = c.rec.of(sessionId).find((u) => u.sessionUpdate === 'available_commands_update');
      expect(advertised?.sessionUpdate === 'available_commands_update' && advertised.availableCommands.map((a) => a.name)).toEqual(['compact', 'review', 'review-branch', 'review-commit', 'status']);

      const before = turnRequests(env).length;
      const status = c.rec.updates.length;
      expect((await c.prompt(sessionId, '/status')).stopReason).toBe('end_turn');
      expect(turnRequests(env).length).toBe(before);
      const statusText = answer(c.rec.updates.slice(status).map((u) => u.update));
      expect(statusText).toContain('Model: gpt-5.2-codex');
      expect(statusText).toContain(`Directory: ${env.temp.cwd}`);

      const unknown = c.rec.updates.length;
      await c.prompt(sessionId, '/frobnicate now');
      expect(answer(c.rec.updates.slice(unknown).map((u) => u.update))).toBe('ECHO: /frobnicate now');

      const beforeCompact = turnRequests(env).length;
      expect((await c.prompt(sessionId, '/compact')).stopReason).toBe('end_turn');
      expect(turnRequests(env).length).toBeGreaterThan(beforeCompact);
      expect(c.invalid).toEqual([]);
    });
  });
});
