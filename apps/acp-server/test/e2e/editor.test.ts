/**
 * The editor's files and the session's roots (docs/acp.md, "Patches and the editor's files",
 * "Additional directories"), asserted on the host: with a client that advertises
 * `fs.readTextFile`/`fs.writeTextFile`, patch writes inside the writable roots go through
 * `fs/write_text_file` (the client writes the disk), a file with unsaved editor changes is not
 * overwritten, a path outside the writable roots never reaches the client, and a client without
 * the capabilities gets no `fs/*` at all. `additionalDirectories` are writable roots of the
 * thread's sandbox: a command writes there, and not elsewhere outside the cwd.
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { conversationTail, customToolCall } from '@deputy/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { referenceStep } from '../../../mcp-server/test/helpers/mock-model.js';
import { startEnv, turnRequests, withAcp, type Env } from '../helpers/acp-harness.js';

let env: Env;
let outside: string;
let extra: string;
const fsClient = { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } };

beforeAll(async () => {
  // Workspace-write without /tmp, so only the cwd and the additional directories are writable.
  env = await startEnv('approval_policy = "on-request"\nsandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true');
  outside = realpathSync(await mkdtemp(join(tmpdir(), 'deputy-acp-outside-')));
  extra = realpathSync(await mkdtemp(join(tmpdir(), 'deputy-acp-extra-')));
  // `update: NAME|OLD|NEW` → an apply_patch replacing line OLD by NEW; the rest as the reference mock.
  env.model.setHandler((request) => {
    const tail = conversationTail(request);
    const prompt = tail.kind === 'user' ? tail.text : '';
    if (prompt.startsWith('update: ')) {
      const [name, from, to] = prompt.slice(8).split('|') as [string, string, string];
      return { output: [customToolCall('apply_patch', `*** Begin Patch\n*** Update File: ${name}\n@@\n-${from}\n+${to}\n*** End Patch\n`)] };
    }
    return referenceStep(tail);
  });
}, 120_000);

afterAll(async () => {
  await env?.close();
  await rm(outside, { recursive: true, force: true });
  await rm(extra, { recursive: true, force: true });
});

beforeEach(async () => {
  for (const f of ['made.txt', 'hello.txt', 'refused.txt']) await rm(join(env.temp.cwd, f), { force: true });
});

const newSession = (c: { agent: acp.ClientContext }, additionalDirectories?: string[]) =>
  c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [], ...(additionalDirectories ? { additionalDirectories } : {}) });

describe('deputy acp and the editor files', () => {
  it('writes a new file through fs/write_text_file', async () => {
    await withAcp(
      env,
      async (c) => {
        const { sessionId } = await newSession(c);
        expect((await c.prompt(sessionId, 'patch: made.txt=from the editor')).stopReason).toBe('end_turn');
        const path = join(env.temp.cwd, 'made.txt');
        expect(c.rec.fsCalls).toEqual([{ method: 'write', params: { sessionId, path, content: 'from the editor\n' } }]);
        expect(await readFile(path, 'utf8')).toBe('from the editor\n');
        expect(c.rec.permissions).toHaveLength(0);
        expect(c.invalid).toEqual([]);
      },
      fsClient,
    );
  });

  it('refuses to overwrite unsaved editor changes, and edits through the editor once they are saved', async () => {
    const path = join(env.temp.cwd, 'hello.txt');
    await writeFile(path, 'one\n');
    await withAcp(
      env,
      async (c) => {
        const { sessionId } = await newSession(c);
        c.rec.buffers.set(path, 'one\nunsaved line\n');
        await c.prompt(sessionId, 'update: hello.txt|one|two');
        expect(await readFile(path, 'utf8')).toBe('one\n');
        expect(c.rec.fsCalls.map((f) => [f.method, f.params.path])).toEqual([['read', path]]);
        const edit = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1);
        expect(edit).toMatchObject({ status: 'failed' });
        expect(JSON.stringify(turnRequests(env).at(-1)?.body)).toContain('has unsaved changes in the editor');

        // Saved (the buffer equals the disk): the patch reads the buffer, then writes through the editor.
        c.rec.buffers.delete(path);
        c.rec.fsCalls.length = 0;
        await c.prompt(sessionId, 'update: hello.txt|one|two');
        expect(c.rec.fsCalls.map((f) => [f.method, f.params.path])).toEqual([
          ['read', path],
          ['write', path],
        ]);
        expect(await readFile(path, 'utf8')).toBe('two\n');
        expect(c.invalid).toEqual([]);
      },
      fsClient,
    );
  });

  it('never sends a path outside the writable roots to the editor', async () => {
    const target = join(outside, 'approved.txt');
    await withAcp(
      env,
      async (c) => {
        const { sessionId } = await newSession(c);
        c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'approved' } });
        await c.prompt(sessionId, `patch: ${target}=outside`);
        // Asked (outside the roots), approved, written on disk by Deputy: the editor never saw it.
        expect(c.rec.permissions).toHaveLength(1);
        expect(await readFile(target, 'utf8')).toBe('outside\n');
        expect(c.rec.fsCalls).toEqual([]);
      },
      fsClient,
    );
  });

  it('sends no fs/* to a client without the capabilities, nor with [acp] client_fs = "off"', async () => {
    await withAcp(env, async (c) => {
      const { sessionId } = await newSession(c);
      await c.prompt(sessionId, 'patch: made.txt=on disk');
      expect(await readFile(join(env.temp.cwd, 'made.txt'), 'utf8')).toBe('on disk\n');
      expect(c.rec.fsCalls).toEqual([]);
    });
    // `[acp] client_fs = "off"` keeps Deputy on the disk with a client that has fs.
    await rm(join(env.temp.cwd, 'made.txt'), { force: true });
    await withAcp(
      env,
      async (c) => {
        const { sessionId } = await newSession(c);
        await c.prompt(sessionId, 'patch: made.txt=off');
        expect(await readFile(join(env.temp.cwd, 'made.txt'), 'utf8')).toBe('off\n');
        expect(c.rec.fsCalls).toEqual([]);
      },
      { ...fsClient, args: ['-c', 'acp.client_fs="off"'] },
    );
  });

  it('tells the model when the editor keeps the new text without saving it', async () => {
    await withAcp(
      env,
      async (c) => {
        const { sessionId } = await newSession(c);
        c.rec.keepUnsaved = true;
        await c.prompt(sessionId, 'patch: made.txt=in a buffer');
        const path = join(env.temp.cwd, 'made.txt');
        expect(c.rec.buffers.get(path)).toBe('in a buffer\n');
        expect(existsSync(path)).toBe(false);
        expect(c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1)).toMatchObject({ status: 'completed' });
        expect(JSON.stringify(turnRequests(env).at(-1)?.body)).toContain('has not saved it to disk yet');
      },
      fsClient,
    );
  });

  it('fails the change with the editor message when the editor refuses the write', async () => {
    await withAcp(
      env,
      async (c) => {
        const { sessionId } = await newSession(c);
        c.rec.refuseWrites = 'buffer is read-only';
        await c.prompt(sessionId, 'patch: refused.txt=refused');
        expect(existsSync(join(env.temp.cwd, 'refused.txt'))).toBe(false);
        expect(c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1)).toMatchObject({ status: 'failed' });
        expect(JSON.stringify(turnRequests(env).at(-1)?.body)).toContain('buffer is read-only');
      },
      fsClient,
    );
  });
});

describe('deputy acp additional directories', () => {
  it('makes them writable roots of the sandbox: a command writes there and not elsewhere outside the cwd', async () => {
    await withAcp(env, async (c) => {
      expect(c.init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({});
      await expect(newSession(c, ['relative/dir'])).rejects.toMatchObject({ code: -32602 });
      const { sessionId } = await newSession(c, [extra]);
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'denied' } });
      await c.prompt(sessionId, `run: touch ${join(extra, 'inside.txt')}`);
      expect(existsSync(join(extra, 'inside.txt'))).toBe(true);
      await c.prompt(sessionId, `run: touch ${join(outside, 'escaped.txt')}`);
      expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
      // A patch there is inside the writable roots: no approval asked.
      const asked = c.rec.permissions.length;
      await c.prompt(sessionId, `patch: ${join(extra, 'patched.txt')}=extra`);
      expect(await readFile(join(extra, 'patched.txt'), 'utf8')).toBe('extra\n');
      expect(c.rec.permissions.length).toBe(asked);
      expect(c.invalid).toEqual([]);
    });
  });

  it('takes the list of session/resume as the complete one (none when omitted)', async () => {
    const sessionId = await withAcp(env, async (c) => (await newSession(c, [extra])).sessionId);
    await withAcp(env, async (c) => {
      await c.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: env.temp.cwd });
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'denied' } });
      await c.prompt(sessionId, `run: touch ${join(extra, 'after-resume.txt')}`);
      expect(existsSync(join(extra, 'after-resume.txt'))).toBe(false);
    });
  });
});
