/**
 * Authentication (docs/acp.md, "Authentication"): a provider that needs an OpenAI key and has
 * none answers `session/new` with -32000 saying how to fix it; `deputy acp --login` (the
 * terminal method, offered only to clients with `auth.terminal`) stores a key in auth.json;
 * `authenticate` reads it again and the session works, the key reaching the model server;
 * `logout` deletes auth.json and prompts are -32000 again.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY } from '../../../cli/test/cli-process.js';
import { useReferenceMock } from '../../../mcp-server/test/helpers/mock-model.js';
import { exited, startEnv, turnRequests, withAcp, type Env } from '../helpers/acp-harness.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv();
  // The scripted provider asks for an OpenAI key (environment or auth.json), like `openai`.
  await appendFile(join(env.temp.home, 'config.toml'), '\nrequires_openai_auth = true\n');
  useReferenceMock(env.model);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

/** Runs `deputy acp --login` with `input` on stdin; resolves with its exit code. */
async function login(input: string): Promise<number | null> {
  const child = spawn(process.execPath, [CLI_ENTRY, 'acp', '--login'], {
    cwd: env.temp.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.temp.home, DEPUTY_HOME: env.temp.home },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  try {
    child.stdin.end(input);
    return await exited(child, 20_000);
  } finally {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  }
}

describe('deputy acp authentication', () => {
  it('offers the API key method, and the terminal login only to clients that can run it', async () => {
    await withAcp(env, async (c) => {
      expect(c.init.authMethods).toEqual([{ id: 'openai-api-key', name: 'OpenAI API key', description: expect.stringContaining('OPENAI_API_KEY') }]);
      expect(c.init.agentCapabilities?.auth).toEqual({ logout: {} });
      expect(c.invalid).toEqual([]);
    });
    await withAcp(
      env,
      async (c) => {
        expect(c.init.authMethods?.map((m) => m.id)).toEqual(['openai-api-key', 'deputy-login']);
        expect(c.init.authMethods?.[1]).toMatchObject({ type: 'terminal', args: ['--login'] });
        expect(c.invalid).toEqual([]);
      },
      { clientCapabilities: { auth: { terminal: true } } },
    );
  });

  it('answers -32000 without a key, works after --login and authenticate, and -32000 again after logout', async () => {
    await withAcp(env, async (c) => {
      const newSession = () => c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      const missing = await newSession().then(
        () => null,
        (error: unknown) => error as { code: number; message: string },
      );
      expect(missing?.code).toBe(-32000);
      expect(missing?.message).toMatch(/OPENAI_API_KEY/);
      expect(missing?.message).toMatch(/auth\.json/);
      expect(missing?.message).toMatch(/authenticate/);
      await expect(c.agent.request(acp.methods.agent.authenticate, { methodId: 'openai-api-key' })).rejects.toMatchObject({ code: -32000 });
      await expect(c.agent.request(acp.methods.agent.authenticate, { methodId: 'chatgpt' })).rejects.toMatchObject({ code: -32602 });

      // The terminal method, as a client runs it: the key on stdin, stored with mode 0600.
      expect(await login('sk-acp-test-key\n')).toBe(0);
      const authFile = join(env.temp.home, 'auth.json');
      expect(JSON.parse(await readFile(authFile, 'utf8'))).toMatchObject({ OPENAI_API_KEY: 'sk-acp-test-key' });
      expect(statSync(authFile).mode & 0o777).toBe(0o600);

      expect(await c.agent.request(acp.methods.agent.authenticate, { methodId: 'openai-api-key' })).toEqual({});
      const { sessionId } = await newSession();
      expect((await c.prompt(sessionId, 'with a key')).stopReason).toBe('end_turn');
      expect(turnRequests(env).at(-1)?.headers.authorization).toBe('Bearer sk-acp-test-key');

      expect(await c.agent.request(acp.methods.agent.logout, {})).toEqual({});
      expect(existsSync(authFile)).toBe(false);
      await expect(c.prompt(sessionId, 'without a key')).rejects.toMatchObject({ code: -32000 });
      expect(c.invalid).toEqual([]);
    });
  });

  it('stores nothing when --login gets an empty line', async () => {
    expect(await login('\n')).toBe(1);
    expect(existsSync(join(env.temp.home, 'auth.json'))).toBe(false);
  });
});
