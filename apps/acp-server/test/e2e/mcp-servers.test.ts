/**
 * MCP servers from `session/new` (docs/acp.md, "MCP servers"): a stdio server the client passes
 * is started for the thread, its tool reaches the model and its call shows as a `tool_call`; an
 * SSE entry is skipped without failing the session.
 */
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { functionCall, text, toolNames } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, turnRequests, withAcp, type Env } from '../helpers/acp-harness.js';

const TINY = fileURLToPath(new URL('../../../../packages/engine/test/mcp/fixtures/tiny-server.mjs', import.meta.url));

let env: Env;

beforeAll(async () => {
  env = await startEnv();
}, 120_000);

afterAll(async () => {
  await env?.close();
});

describe('deputy acp MCP servers from session/new', () => {
  it('connects a stdio server given by the client and shows its tool call', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, {
        cwd: env.temp.cwd,
        mcpServers: [
          { name: 'tiny', command: process.execPath, args: [TINY], env: [] },
          { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] },
        ],
      });
      // Let the server start, then check the model is offered its tools (the `mcp__tiny__` namespace).
      const seen = turnRequests(env).length;
      env.model.enqueue({ output: [text('warm')] });
      const deadline = Date.now() + 15_000;
      for (;;) {
        await c.prompt(sessionId, 'warm up');
        const last = turnRequests(env).at(-1);
        if (last && toolNames(last).includes('mcp__tiny__')) break;
        if (Date.now() > deadline) throw new Error(`the tiny server never reached the model\n${c.stderr()}`);
        env.model.enqueue({ output: [text('warm')] });
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(turnRequests(env).length).toBeGreaterThan(seen);
      env.model.enqueue({ output: [functionCall('mcp__tiny__plain', { text: 'from acp' })] }, { output: [text('done')] });
      expect((await c.prompt(sessionId, 'call tiny')).stopReason).toBe('end_turn');
      const calls = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call');
      expect(calls.at(-1)).toMatchObject({ kind: 'other', title: 'tiny.plain', rawInput: { text: 'from acp' } });
      const final = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1);
      expect(final).toMatchObject({ status: 'completed' });
      expect(c.stderr()).toMatch(/SSE servers are not supported/);
      expect(c.invalid).toEqual([]);
    });
  });
});
