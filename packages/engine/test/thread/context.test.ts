/**
 * What the first model request carries besides the user's words: AGENTS.md files from the
 * repository root down to the cwd (size-capped, nothing from above the root), the environment
 * context (cwd, shell, date, timezone) and the permissions message naming the sandbox and the
 * approval policy. Files are real; the request is the one the scripted server recorded.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inputItems, text, type RecordedRequest } from '@deputy/test-support';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

let engine: TestEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

/** The text of every message of `role` in a Responses request, in order. */
function messages(request: RecordedRequest, role: string): string[] {
  return inputItems(request)
    .filter((i) => i['type'] === 'message' && i['role'] === role)
    .map((i) => (i['content'] as { text?: string }[]).map((c) => c.text ?? '').join(''));
}

/** Builds outside/AGENTS.md, repo/.git, repo/AGENTS.md, repo/pkg/AGENTS.md, repo/pkg/src (cwd). */
async function makeRepo(base: string): Promise<string> {
  const repo = join(base, 'repo');
  const cwd = join(repo, 'pkg', 'src');
  await mkdir(join(repo, '.git'), { recursive: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(join(base, 'AGENTS.md'), 'OUTSIDE-THE-REPO rule\n');
  await writeFile(join(repo, 'AGENTS.md'), 'ROOT-RULE: use pnpm\n');
  await writeFile(join(repo, 'pkg', 'AGENTS.md'), 'PKG-RULE: keep files small\n');
  return cwd;
}

describe('the first request', () => {
  it('carries AGENTS.md from the repository root down to the cwd, root first', async () => {
    engine = await startTestEngine();
    const cwd = await makeRepo(engine.temp.cwd);
    engine.server.enqueue({ output: [text('ok')] });
    const thread = await engine.manager.start({ cwd });
    await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    const docs = messages(engine.server.requests[0]!, 'user').find((t) => t.startsWith('# AGENTS.md instructions'));
    expect(docs).toBeDefined();
    expect(docs).toContain(`# AGENTS.md instructions for ${cwd}`);
    expect(docs!.indexOf('ROOT-RULE')).toBeGreaterThan(-1);
    expect(docs!.indexOf('ROOT-RULE')).toBeLessThan(docs!.indexOf('PKG-RULE'));
    expect(docs).not.toContain('OUTSIDE-THE-REPO');
  });

  it('caps the project docs at project_doc_max_bytes', async () => {
    engine = await startTestEngine({ extraToml: 'project_doc_max_bytes = 14' });
    const cwd = await makeRepo(engine.temp.cwd);
    engine.server.enqueue({ output: [text('ok')] });
    const thread = await engine.manager.start({ cwd });
    await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    const docs = messages(engine.server.requests[0]!, 'user').find((t) => t.startsWith('# AGENTS.md instructions'))!;
    expect(docs).toContain('ROOT-RULE: use');
    expect(docs).not.toContain('pnpm');
    expect(docs).not.toContain('PKG-RULE');
  });

  it('sends no project docs message when there is no AGENTS.md', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    expect(messages(engine.server.requests[0]!, 'user').some((t) => t.includes('AGENTS.md'))).toBe(false);
  });

  it('has an environment context with cwd, shell, date and timezone', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    const env = messages(engine.server.requests[0]!, 'user').find((t) => t.startsWith('<environment_context>'))!;
    expect(env).toContain(`<cwd>${engine.temp.cwd}</cwd>`);
    expect(env).toContain(`<shell>${basename(process.env.SHELL || '/bin/bash')}</shell>`);
    expect(env).toMatch(/<current_date>\d{4}-\d{2}-\d{2}<\/current_date>/);
    expect(env).toContain(`<timezone>${Intl.DateTimeFormat().resolvedOptions().timeZone}</timezone>`);
    // The user's words come after the context.
    expect(messages(engine.server.requests[0]!, 'user').at(-1)).toBe('hi');
  });

  it('has a permissions message naming the sandbox and the approval policy', async () => {
    engine = await startTestEngine({ sandbox: 'workspace-write', approvalPolicy: 'never' });
    engine.server.enqueue({ output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'hi' }]).done;
    const permissions = messages(engine.server.requests[0]!, 'developer').find((t) => t.startsWith('<permissions instructions>'))!;
    expect(permissions).toContain('workspace-write');
    expect(permissions).toContain(engine.temp.cwd);
    expect(permissions).toContain('Approval policy: never');
  });

  it('sends the context once, and again only when a policy changes', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('one')] }, { output: [text('two')] }, { output: [text('three')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'first' }]).done;
    await thread.startTurn([{ type: 'text', text: 'second' }]).done;
    await thread.startTurn([{ type: 'text', text: 'third' }], { sandboxPolicy: { type: 'read-only', networkAccess: false } }).done;
    const count = (r: RecordedRequest) => messages(r, 'developer').filter((t) => t.startsWith('<permissions instructions>')).length;
    expect(count(engine.server.requests[1]!)).toBe(1);
    const third = messages(engine.server.requests[2]!, 'developer').filter((t) => t.startsWith('<permissions instructions>'));
    expect(third).toHaveLength(2);
    expect(third[1]).toContain('read-only');
  });

  it('is not sent again to a thread resumed with the same settings, and is after a rollback', async () => {
    engine = await startTestEngine();
    const { server, temp } = engine;
    server.enqueue({ output: [text('one')] }, { output: [text('two')] }, { output: [text('three')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'first' }]).done;
    await engine.manager.close();
    // A new process: the store is opened again and the thread resumed from its rollout.
    const restarted = await startTestEngine({ server, temp });
    try {
      const resumed = await restarted.manager.resume(thread.id);
      await resumed.startTurn([{ type: 'text', text: 'second' }]).done;
      const count = (r: RecordedRequest) => messages(r, 'developer').filter((t) => t.startsWith('<permissions instructions>')).length;
      expect(count(server.requests[1]!)).toBe(1);
      // The rolled-back turn may have held the context the model last saw: it is sent again.
      await restarted.manager.rollback(thread.id, 1);
      await resumed.startTurn([{ type: 'text', text: 'third' }]).done;
      expect(count(server.requests[2]!)).toBe(2);
    } finally {
      await restarted.manager.close();
    }
  });
});
