/**
 * Sessions are Deputy threads in DEPUTY_HOME (docs/acp.md, "Sessions"): a thread started from ACP
 * goes on with `deputy exec resume`, a thread started by `deputy exec` loads (with its replay) in
 * ACP; `session/resume` sends no replay; `session/close` frees the session (a prompt then gets
 * -32002) and it loads again; `session/delete` hides it from the list and is idempotent.
 */
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../cli/test/cli-process.js';
import { useReferenceMock } from '../../../mcp-server/test/helpers/mock-model.js';
import { startEnv, withAcp, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv();
  useReferenceMock(env.model);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

const cliOptions = () => ({ home: env.temp.home, cwd: env.temp.cwd, env: { HOME: env.temp.home } });
const texts = (updates: acp.SessionUpdate[], kind: string) =>
  updates.filter((u) => u.sessionUpdate === kind).map((u) => ('content' in u && !Array.isArray(u.content) && u.content?.type === 'text' ? u.content.text : ''));

describe('deputy acp sessions are Deputy threads', () => {
  it('continues an ACP thread with deputy exec resume, and loads an exec thread in ACP', async () => {
    const sessionId = await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      await c.prompt(sessionId, 'from the editor');
      return sessionId;
    });
    const resumed = await runCli(['exec', 'resume', sessionId, 'from the terminal'], cliOptions(), 30_000);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('ECHO: from the terminal');
    const fresh = await runCli(['exec', 'made by exec'], cliOptions(), 30_000);
    expect(fresh.code).toBe(0);
    const execThread = /deputy: thread (\S+)/.exec(fresh.stderr)?.[1];
    expect(execThread).toBeDefined();
    await withAcp(env, async (c) => {
      await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: env.temp.cwd, mcpServers: [] });
      expect(texts(c.rec.of(sessionId), 'user_message_chunk')).toEqual(['from the editor', 'from the terminal']);
      expect(texts(c.rec.of(sessionId), 'agent_message_chunk')).toEqual(['ECHO: from the editor', 'ECHO: from the terminal']);
      await c.agent.request(acp.methods.agent.session.load, { sessionId: execThread ?? '', cwd: env.temp.cwd, mcpServers: [] });
      expect(texts(c.rec.of(execThread ?? ''), 'agent_message_chunk')).toEqual(['ECHO: made by exec']);
    });
  });

  it('resumes without replay, closes, loads again, and deletes idempotently', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      await c.prompt(sessionId, 'keep me');
      await c.agent.request(acp.methods.agent.session.close, { sessionId });
      await expect(c.prompt(sessionId, 'closed?')).rejects.toMatchObject({ code: -32002 });
      const before = c.rec.updates.length;
      const resumed = await c.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: env.temp.cwd });
      expect(resumed.modes?.currentModeId).toBe('full-access');
      expect(c.rec.updates.length).toBe(before);
      expect((await c.prompt(sessionId, 'after resume')).stopReason).toBe('end_turn');
      const listed = await c.agent.request(acp.methods.agent.session.list, { cwd: env.temp.cwd });
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.title).toBe('keep me');
      await c.agent.request(acp.methods.agent.session.delete, { sessionId });
      await c.agent.request(acp.methods.agent.session.delete, { sessionId });
      const after = await c.agent.request(acp.methods.agent.session.list, { cwd: env.temp.cwd });
      expect(after.sessions.map((s) => s.sessionId)).not.toContain(sessionId);
      await expect(c.agent.request(acp.methods.agent.session.list, { cwd: 'not/absolute' })).rejects.toMatchObject({ code: -32602 });
      expect(c.invalid).toEqual([]);
    });
  });
});
