/** Fixture tests of the item, thread and policy projections (pure, no server). */
import { describe, expect, it } from 'vitest';
import { AppServer, type ThreadItem } from '@deputy/protocol';
import type { ThreadSummary } from '@deputy/engine';
import { PROTECTED_DIR_NAMES } from '@deputy/engine/facts';
import { commandActionsOf, commandLineOf, projectItem, wireChangeDiff } from '../../src/project/items.js';
import {
  engineApprovalPolicy,
  engineSandbox,
  permissionProfileOf,
  projectSandbox,
  projectThread,
  projectTurnError,
  projectTurns,
} from '../../src/project/threads.js';

describe('items', () => {
  it('drops argv from commands and adds the wire-only fields', () => {
    const item: ThreadItem = {
      type: 'commandExecution',
      id: 'call_9',
      command: "/bin/bash -lc 'cat README.md'",
      argv: ['/bin/bash', '-lc', 'cat README.md'],
      cwd: '/repo',
      processId: '7',
      status: 'completed',
      aggregatedOutput: 'text',
      exitCode: 0,
      durationMs: 12,
    };
    const wire = projectItem(item);
    expect(wire).toEqual({
      type: 'commandExecution',
      id: 'call_9',
      command: "/bin/bash -lc 'cat README.md'",
      cwd: '/repo',
      processId: '7',
      source: 'agent',
      status: 'completed',
      commandActions: [{ type: 'read', command: 'cat README.md', name: 'README.md', path: '/repo/README.md' }],
      aggregatedOutput: 'text',
      exitCode: 0,
      durationMs: 12,
    });
    expect(AppServer.ThreadItemSchema.parse(wire)).toEqual(wire);
  });

  it('names what simple commands do and leaves compound ones unknown', () => {
    const sh = (script: string) => ['/bin/bash', '-lc', script];
    expect(commandActionsOf(sh('ls src'), '/r')).toEqual([{ type: 'listFiles', command: 'ls src', path: 'src' }]);
    expect(commandActionsOf(sh('rg TODO lib'), '/r')).toEqual([{ type: 'search', command: 'rg TODO lib', query: 'TODO', path: 'lib' }]);
    expect(commandActionsOf(sh('touch a && echo done'), '/r')).toEqual([{ type: 'unknown', command: 'touch a && echo done' }]);
    expect(commandActionsOf(['git', 'status'], '/r')).toEqual([{ type: 'unknown', command: 'git status' }]);
    expect(commandLineOf(['/bin/bash', '-lc', "echo 'hi'"])).toBe(`/bin/bash -lc 'echo '\\''hi'\\'''`);
  });

  it('gives agent messages a null citation and MCP calls the wire result shape', () => {
    expect(projectItem({ type: 'agentMessage', id: 'm', text: 't', phase: 'final_answer' })).toEqual({ type: 'agentMessage', id: 'm', text: 't', phase: 'final_answer', memoryCitation: null });
    const mcp = projectItem({ type: 'mcpToolCall', id: 'c', server: 's', tool: 't', status: 'declined', arguments: { a: 1 }, result: { content: [{ type: 'text', text: 'x' }] }, error: 'no' });
    expect(mcp).toEqual({ type: 'mcpToolCall', id: 'c', server: 's', tool: 't', status: 'failed', arguments: { a: 1 }, result: { content: [{ type: 'text', text: 'x' }], structuredContent: null, _meta: null }, error: { message: 'no' }, durationMs: null });
  });
});

describe('file change diffs', () => {
  const add = 'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n';
  const update = 'diff --git a/u.txt b/u.txt\n--- a/u.txt\n+++ b/u.txt\n@@ -1 +1 @@\n-old\n+new\n';
  const noEol = 'diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n\\ No newline at end of file\n';

  it('sends the content of added and deleted files and the hunks of updated ones', () => {
    expect(wireChangeDiff('add', add)).toBe('hello\nworld\n');
    expect(wireChangeDiff('update', update)).toBe('@@ -1 +1 @@\n-old\n+new\n');
    expect(wireChangeDiff('delete', noEol)).toBe('a\nb');
    const item = projectItem({ type: 'fileChange', id: 'c', status: 'inProgress', changes: [{ path: '/w/n.txt', kind: { type: 'add' }, diff: add }] });
    expect(item).toEqual({ type: 'fileChange', id: 'c', status: 'inProgress', changes: [{ path: '/w/n.txt', kind: { type: 'add' }, diff: 'hello\nworld\n' }] });
  });
});

describe('threads and turns', () => {
  const summary: ThreadSummary = {
    id: 't1',
    createdAtMs: 1_795_973_899_999,
    updatedAtMs: 1_795_973_900_500,
    cwd: '/w',
    model: 'm',
    modelProvider: 'mock',
    source: 'mcp',
    preview: 'hello',
    name: null,
    archived: false,
    path: '/h/sessions/r.jsonl',
    forkedFromId: null,
  };

  it('builds a thread with seconds, sessionId and a custom source', () => {
    const thread = projectThread({ summary, cliVersion: '0.1.0', status: { type: 'notLoaded' } });
    expect(thread).toMatchObject({ id: 't1', sessionId: 't1', createdAt: 1_795_973_899, updatedAt: 1_795_973_900, source: { custom: 'mcp' }, ephemeral: false, gitInfo: null, turns: [] });
    expect(AppServer.ThreadSchema.parse(thread)).toEqual(thread);
  });

  it('numbers read-back items item-1, item-2, … across turns', () => {
    const info = (id: string) => ({ id, status: 'completed' as const, error: null, startedAtMs: 1000, completedAtMs: 3500, lastAgentMessage: null });
    const turns = projectTurns([
      { info: info('a'), items: [{ type: 'userMessage', id: 'u', content: [{ type: 'text', text: 'x' }] }, { type: 'agentMessage', id: 'm', text: 'y', phase: null }] },
      { info: info('b'), items: [{ type: 'contextCompaction', id: 'c' }] },
    ]);
    expect(turns.flatMap((t) => t.items.map((i) => i.id))).toEqual(['item-1', 'item-2', 'item-3']);
    expect(turns[0]).toMatchObject({ itemsView: 'full', startedAt: 1, completedAt: 3, durationMs: 2500 });
    expect(turns[0]?.items[0]).toEqual({ type: 'userMessage', id: 'item-1', content: [{ type: 'text', text: 'x', text_elements: [] }], clientId: null });
  });

  it('maps engine error codes to codexErrorInfo', () => {
    expect(projectTurnError({ message: 'm', code: 'contextWindowExceeded', httpStatus: null }).codexErrorInfo).toBe('contextWindowExceeded');
    expect(projectTurnError({ message: 'm', code: 'connectionFailed', httpStatus: null }).codexErrorInfo).toEqual({ httpConnectionFailed: { httpStatusCode: null } });
  });
});

describe('policies', () => {
  it('converts sandbox policies both ways', () => {
    const ww = { type: 'workspace-write' as const, writableRoots: ['/x'], networkAccess: true, excludeTmpdirEnvVar: false, excludeSlashTmp: true };
    expect(projectSandbox(ww)).toEqual({ type: 'workspaceWrite', writableRoots: ['/x'], networkAccess: true, excludeTmpdirEnvVar: false, excludeSlashTmp: true });
    expect(engineSandbox(projectSandbox(ww))).toEqual(ww);
    expect(engineSandbox({ type: 'readOnly' })).toEqual({ type: 'read-only', networkAccess: false });
    expect(engineSandbox({ type: 'externalSandbox', networkAccess: 'enabled' })).toEqual({ type: 'danger-full-access' });
    expect(projectSandbox({ type: 'danger-full-access' })).toEqual({ type: 'dangerFullAccess' });
  });

  it('reports permission profiles and maps granular approval', () => {
    expect(permissionProfileOf({ type: 'danger-full-access' })).toEqual({ type: 'disabled' });
    const profile = permissionProfileOf({ type: 'workspace-write', writableRoots: ['/extra'], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: false });
    expect(AppServer.PermissionProfileSchema.parse(profile)).toEqual(profile);
    expect(JSON.stringify(profile)).toContain('"/extra"');
    expect(JSON.stringify(profile)).not.toContain('tmpdir');
    const readOnly = profile.type === 'managed' && profile.fileSystem.type === 'restricted' ? profile.fileSystem.entries.filter((e) => e.access === 'read') : [];
    expect(readOnly.map((e) => (e.path.type === 'special' && e.path.value.kind === 'project_roots' ? e.path.value.subpath : null)).filter(Boolean)).toEqual([...PROTECTED_DIR_NAMES]);
    expect(PROTECTED_DIR_NAMES).toEqual(['.git', '.deputy', '.codex']);
    expect(engineApprovalPolicy({ granular: { sandbox_approval: false, rules: true, mcp_elicitations: true } })).toBe('never');
    expect(engineApprovalPolicy('on-request')).toBe('on-request');
  });
});
