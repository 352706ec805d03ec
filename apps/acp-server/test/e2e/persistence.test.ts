/**
 * Sessions are Deputy threads in DEPUTY_HOME (docs/acp.md, "Sessions"): a thread started from ACP
 * goes on with `deputy exec resume`, a thread started by `deputy exec` loads (with its replay) in
 * ACP; `session/resume` sends no replay; `session/close` frees the session (a prompt then gets
 * -32002) and it loads again; `session/delete` hides it from the list and is idempotent. A
 * command running when the agent is killed with SIGKILL replays as a failed tool call.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { waitFor } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../cli/test/cli-process.js';
import { useReferenceMock } from '../../../mcp-server/test/helpers/mock-model.js';
import { exited, startEnv, withAcp, type Env } from '../helpers/acp-harness.js';

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

  it('replays a command that was running when the agent was killed -9 as a failed tool call', async () => {
    const pidFile = join(env.temp.cwd, 'cut.pid');
    let sessionId = '';
    try {
      await withAcp(env, async (c) => {
        ({ sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] }));
        void c.prompt(sessionId, `run: echo $$ > ${pidFile}; exec sleep 20`).catch(() => undefined);
        // The command's pid file and its tool_call update travel separately (a file, the agent's
        // stdout): wait for both before the kill.
        const live = (): unknown[] => c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call');
        await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '' && live().length > 0, 20_000);
        expect(live()).toHaveLength(1);
        process.kill(c.child.pid ?? 0, 'SIGKILL');
        await exited(c.child, 5000);
      }).catch((error: unknown) => {
        // The SDK reports the connection closing under the pending prompt.
        if (!String(error).includes('connection closed')) throw error;
      });
    } finally {
      // The command outlived the killed agent (nothing was left to stop it): end it by its pid.
      const pid = Number(existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '0');
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    expect(sessionId).not.toBe('');
    await withAcp(env, async (c) => {
      await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: env.temp.cwd, mcpServers: [] });
      const replay = c.rec.of(sessionId);
      expect(texts(replay, 'user_message_chunk')).toEqual([`run: echo $$ > ${pidFile}; exec sleep 20`]);
      const calls = replay.filter((u) => u.sessionUpdate === 'tool_call');
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ kind: 'execute', status: 'failed', title: expect.stringContaining('exec sleep 20') });
      expect(replay.some((u) => u.sessionUpdate === 'tool_call_update')).toBe(false);
      // The session goes on after the crash.
      expect((await c.prompt(sessionId, 'after the crash')).stopReason).toBe('end_turn');
      expect(c.invalid).toEqual([]);
    });
  });
});
