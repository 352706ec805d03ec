/**
 * What approvals are remembered, through real turns: "approved for session" covers the same
 * command (or the same patched paths) for the rest of the thread and nothing else; "approved and
 * remember" writes a prefix rule (the command's, or the model's `prefix_rule`) to
 * `<home>/rules/default.rules`, and a new runtime and manager on that home runs the command
 * without asking.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { addFilePatch, execCall, patchCall, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from './harness.js';

beforeAll(async () => {
  await requireBwrap();
});

describe('approved_for_session', () => {
  let h: SafetyHarness;
  beforeAll(async () => {
    h = await SafetyHarness.start();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('does not ask again for the same command in the thread, but asks for another command and in a new thread', async () => {
    const cwd = await h.newWorkspace();
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
    const count = () => readFile(join(cwd, 'count.log'), 'utf8').catch(() => '');

    const first = await h.runTurn(thread, [execCall('printf x >> count.log'), execCall('printf x >> count.log')], ['approved_for_session'], 'denied');
    expect(first.asked).toHaveLength(1);
    expect(await count()).toBe('xx');

    const second = await h.runTurn(thread, [execCall('printf x >> count.log'), execCall('printf y >> count.log')], [], 'denied');
    expect(second.asked.map((a) => (a.request.command as string[])[2])).toEqual(['printf y >> count.log']);
    expect(second.toldModel[1]).toBe('rejected by user');
    expect(await count()).toBe('xxx');

    const other = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
    const third = await h.runTurn(other, [execCall('printf x >> count.log')], [], 'denied');
    expect(third.asked).toHaveLength(1);
    expect(await count()).toBe('xxx');
  });

  it('covers the patched paths only: the same file is not asked again, another file is', async () => {
    const cwd = await h.newWorkspace();
    const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
    const first = await h.runTurn(thread, [patchCall(addFilePatch('a.txt', 'one'))], ['approved_for_session'], 'denied');
    expect(first.asked).toHaveLength(1);

    const update = ['*** Begin Patch', '*** Update File: a.txt', '@@', '-one', '+two', '*** End Patch'].join('\n');
    const second = await h.runTurn(thread, [patchCall(update), patchCall(addFilePatch('b.txt', 'other'))], [], 'denied');
    expect(second.asked).toHaveLength(1);
    expect((second.asked[0]?.request.changes as { path: string }[])[0]?.path).toBe(join(cwd, 'b.txt'));
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
    expect(existsSync(join(cwd, 'b.txt'))).toBe(false);
    expect(second.toldModel[1]).toBe('patch rejected by user');
  });
});

describe('approved_and_remember', () => {
  let server: ScriptedModelServer;
  let temp: TempHome;
  beforeAll(async () => {
    server = await startScriptedModelServer();
    temp = await makeTempHome();
  });
  afterAll(async () => {
    await server?.close();
    await temp?.cleanup();
  });

  /** Runs `fn` with a harness on the shared home and model server, then closes its manager. */
  async function withEngine<T>(fn: (h: SafetyHarness) => Promise<T>): Promise<T> {
    const h = await SafetyHarness.start({ server, temp });
    try {
      return await fn(h);
    } finally {
      await h.close();
    }
  }

  const rulesFile = () => readFile(join(temp.home, 'rules', 'default.rules'), 'utf8');

  it('writes the command prefix to the rules file, and a new manager on that home runs it without asking', async () => {
    await withEngine(async (h) => {
      const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE });
      const result = await h.runTurn(thread, [execCall('touch remembered.txt')], ['approved_and_remember']);
      expect(result.asked[0]?.request.proposedPrefixRule).toEqual(['touch', 'remembered.txt']);
      expect(result.toldModel[0]).toMatch(/Process exited with code 0/);
    });
    expect((await rulesFile()).split('\n')).toContain('prefix_rule(pattern=["touch", "remembered.txt"], decision="allow")');

    await withEngine(async (h) => {
      const cwd = await h.newWorkspace();
      const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
      const result = await h.runTurn(thread, [execCall('touch remembered.txt'), execCall('touch other.txt')], [], 'denied');
      expect(result.asked.map((a) => (a.request.command as string[])[2])).toEqual(['touch other.txt']);
      expect(existsSync(join(cwd, 'remembered.txt'))).toBe(true);
      expect(existsSync(join(cwd, 'other.txt'))).toBe(false);
    });
  });

  it("remembers the model's prefix_rule from an escalation request for later sessions", async () => {
    const outside = await withEngine(async (h) => {
      const thread = await h.startThread({ approvalPolicy: 'on-request', sandbox: WORKSPACE_WRITE });
      const target = join(h.outside, 'first.stamp');
      const call = execCall(`touch ${target}`, { sandbox_permissions: 'require_escalated', justification: 'stamp the build', prefix_rule: ['touch'] });
      const result = await h.runTurn(thread, [call], ['approved_and_remember']);
      expect(result.asked[0]?.request.proposedPrefixRule).toEqual(['touch']);
      expect(existsSync(target)).toBe(true);
      return h.outside;
    });
    expect((await rulesFile()).split('\n')).toContain('prefix_rule(pattern=["touch"], decision="allow")');

    await withEngine(async (h) => {
      const thread = await h.startThread({ approvalPolicy: 'on-request', sandbox: WORKSPACE_WRITE });
      const target = join(outside, 'second.stamp');
      const result = await h.runTurn(thread, [execCall(`touch ${target}`, { sandbox_permissions: 'require_escalated', justification: 'again' })], [], 'denied');
      expect(result.asked).toEqual([]);
      expect(existsSync(target)).toBe(true);
    });
  });

  it('appends to an existing rules file without dropping its rules, which still apply', async () => {
    const before = await rulesFile();
    await writeFile(join(temp.home, 'rules', 'default.rules'), `${before}prefix_rule(pattern=["mkdir"], decision="forbidden")\n`);
    await withEngine(async (h) => {
      const cwd = await h.newWorkspace();
      const thread = await h.startThread({ approvalPolicy: 'untrusted', sandbox: WORKSPACE_WRITE, cwd });
      const result = await h.runTurn(thread, [execCall('truncate -s 0 kept.txt'), execCall('mkdir blocked')], ['approved_and_remember'], 'approved');
      expect(result.asked).toHaveLength(1);
      expect(result.toldModel[1]).toMatch(/forbidden by an exec policy rule/);
      expect(existsSync(join(cwd, 'kept.txt'))).toBe(true);
      expect(existsSync(join(cwd, 'blocked'))).toBe(false);
    });
    const lines = (await rulesFile()).split('\n');
    expect(lines).toContain('prefix_rule(pattern=["mkdir"], decision="forbidden")');
    expect(lines).toContain('prefix_rule(pattern=["truncate", "-s", "0", "kept.txt"], decision="allow")');
    expect(lines.filter((l) => l.startsWith('prefix_rule(')).length).toBe(4);
  });
});
