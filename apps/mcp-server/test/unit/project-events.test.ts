/**
 * The projection EngineEvent → `codex/event` payloads, checked two ways: exact expectations for
 * the mapping rules (ids, base64 output, turn endings, changes), and field coverage against one
 * real message per type captured from the reference (`fixtures/reference-msgs.json`): every
 * field the reference sends, Deputy sends too.
 */
import { readFileSync } from 'node:fs';
import { PROTECTED_DIR_NAMES } from '@deputy/engine/facts';
import type { EngineEvent, FileUpdate } from '@deputy/protocol';
import { describe, expect, it } from 'vitest';
import { codexChanges, projectEvent, projectSessionStart, type CodexMsg, type ProjectionContext } from '../../src/project-events.js';

const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/reference-msgs.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;
const THREAD = '01a22862-1b4a-7402-bb51-3fe2afe3ca06';
const TURN = '01a22862-2222-7402-bb51-3fe2afe3ca06';
const CTX: ProjectionContext = { submissionId: '1', nowMs: 1_795_973_847_123, approvalPolicy: 'untrusted' };
let seq = 0;
const ev = <T extends EngineEvent['type']>(body: Omit<Extract<EngineEvent, { type: T }>, 'threadId' | 'turnId' | 'seq'> & { type: T }): EngineEvent =>
  ({ ...body, threadId: THREAD, turnId: TURN, seq: ++seq }) as unknown as EngineEvent;

const ADD_DIFF = 'diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,2 @@\n+hi\n+there\n';
const CHANGE: FileUpdate = { path: '/ws/hello.txt', kind: { type: 'add' }, diff: ADD_DIFF };
const command = { type: 'commandExecution' as const, id: 'call_13', command: "/bin/bash -lc 'touch made.txt'", argv: ['/bin/bash', '-lc', 'touch made.txt'], cwd: '/ws', processId: '42' };
const turnInfo = { id: TURN, error: null, startedAtMs: 1_795_973_847_000, lastAgentMessage: null };

/** One event of every kind, in the order of a turn with a command and a patch. */
const TURN_EVENTS: EngineEvent[] = [
  ev({ type: 'turn.started', turn: { ...turnInfo, status: 'inProgress', completedAtMs: null }, model: 'gpt-5.2-codex', modelContextWindow: 272_000 }),
  ev({ type: 'warning', message: 'careful' }),
  ev({ type: 'model.item', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } }),
  ev({ type: 'item.started', item: { type: 'userMessage', id: 'u1', content: [{ type: 'text', text: 'hi', text_elements: [] }] }, atMs: 1 }),
  ev({ type: 'item.completed', item: { type: 'userMessage', id: 'u1', content: [{ type: 'text', text: 'hi', text_elements: [] }] }, atMs: 2 }),
  ev({ type: 'tokenUsage.updated', usage: { total: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, reasoningOutputTokens: 0, totalTokens: 15 }, last: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, reasoningOutputTokens: 0, totalTokens: 15 }, modelContextWindow: 272_000 } }),
  ev({ type: 'approval.requested', approvalId: 'ap1', request: { kind: 'exec', callId: 'call_13', command: command.argv, cwd: '/ws', reason: null, proposedPrefixRule: ['touch', 'made.txt'], isSandboxRetry: false } }),
  ev({ type: 'approval.resolved', approvalId: 'ap1', decision: 'approved' }),
  ev({ type: 'item.started', item: { ...command, status: 'inProgress', aggregatedOutput: null, exitCode: null, durationMs: null }, atMs: 3 }),
  ev({ type: 'item.delta', itemId: 'call_13', kind: 'commandOutput', delta: 'héllo\n', stream: 'stdout' }),
  ev({ type: 'item.completed', item: { ...command, status: 'completed', aggregatedOutput: 'héllo\n', exitCode: 0, durationMs: 1500 }, atMs: 4 }),
  ev({ type: 'approval.requested', approvalId: 'ap2', request: { kind: 'patch', callId: 'call_14', changes: [CHANGE], reason: null, grantRoot: null } }),
  ev({ type: 'item.started', item: { type: 'fileChange', id: 'call_14', changes: [CHANGE], status: 'inProgress' }, atMs: 5 }),
  ev({ type: 'item.completed', item: { type: 'fileChange', id: 'call_14', changes: [CHANGE], status: 'completed' }, atMs: 6 }),
  ev({ type: 'diff.updated', diff: ADD_DIFF }),
  ev({ type: 'plan.updated', explanation: null, plan: [{ step: 'first', status: 'in_progress' }] }),
  ev({ type: 'item.started', item: { type: 'agentMessage', id: 'msg_1', text: '', phase: null }, atMs: 7 }),
  ev({ type: 'item.delta', itemId: 'msg_1', kind: 'agentMessage', delta: 'ECHO: hi' }),
  ev({ type: 'item.completed', item: { type: 'agentMessage', id: 'msg_1', text: 'ECHO: hi', phase: null }, atMs: 8 }),
  ev({ type: 'turn.completed', turn: { ...turnInfo, status: 'completed', completedAtMs: 1_795_973_848_500, lastAgentMessage: 'ECHO: hi' } }),
];

const projectAll = (events: EngineEvent[], ctx = CTX) => events.flatMap((e) => projectEvent(e, ctx));
const keyOf = (msg: CodexMsg) => (msg.type === 'item_started' || msg.type === 'item_completed' ? `${msg.type}:${(msg.item as { type: string }).type}` : msg.type);

describe('projectEvent', () => {
  it('maps a whole turn to the reference event names in order', () => {
    expect(projectAll(TURN_EVENTS).map((e) => keyOf(e.msg))).toEqual([
      'task_started',
      'warning',
      'raw_response_item',
      'item_started:UserMessage',
      'item_completed:UserMessage',
      'user_message',
      'token_count',
      'exec_approval_request',
      'exec_command_begin',
      'exec_command_output_delta',
      'exec_command_end',
      'apply_patch_approval_request',
      'item_started:FileChange',
      'patch_apply_begin',
      'item_completed:FileChange',
      'patch_apply_end',
      'turn_diff',
      'plan_update',
      'item_started:AgentMessage',
      'agent_message_content_delta',
      'item_completed:AgentMessage',
      'agent_message',
      'task_complete',
    ]);
  });

  it('sends every field the reference sends, for every event type it captured', () => {
    const ours = new Map(projectAll(TURN_EVENTS).map((e) => [keyOf(e.msg), e.msg]));
    ours.set('turn_aborted', projectEvent(ev({ type: 'turn.completed', turn: { ...turnInfo, status: 'interrupted', completedAtMs: 2 } }), CTX)[0]?.msg as CodexMsg);
    ours.set('error', projectEvent(ev({ type: 'error', error: { message: 'boom', code: 'other', httpStatus: null }, willRetry: false }), CTX)[0]?.msg as CodexMsg);
    for (const e of projectSessionStart({ threadId: THREAD, model: 'm', modelProviderId: 'mock', approvalPolicy: 'never', sandboxPolicy: { type: 'read-only', networkAccess: false }, cwd: '/ws', rolloutPath: '/r.jsonl', reasoningEffort: null })) {
      ours.set(keyOf(e.msg), e.msg);
    }
    // Optional in the reference: a reason only when there is one, the active profile only for named profiles.
    const optional = new Set(['reason', 'active_permission_profile']);
    for (const [key, reference] of Object.entries(REFERENCE)) {
      const mine = ours.get(key);
      expect(mine, `no ${key} projected`).toBeDefined();
      const missing = Object.keys(reference).filter((field) => !optional.has(field) && !(field in (mine as object)));
      expect(missing, key).toEqual([]);
      if (typeof reference.item === 'object' && reference.item !== null && key.includes(':')) {
        const itemMissing = Object.keys(reference.item).filter((field) => !((field in ((mine as unknown as { item: object }).item)) || field === 'status' || field === 'stdout' || field === 'stderr' || field === 'auto_approved'));
        expect(itemMissing, `${key}.item`).toEqual([]);
      }
    }
  });

  it('uses the submission id for params.id and turn_id, or the engine turn id when there is none', () => {
    const started = TURN_EVENTS[0] as EngineEvent;
    expect(projectEvent(started, CTX)).toEqual([{ id: '1', msg: { type: 'task_started', turn_id: '1', started_at: 1_795_973_847, model_context_window: 272_000, collaboration_mode_kind: 'default' } }]);
    expect(projectEvent(started, { ...CTX, submissionId: null })[0]).toMatchObject({ id: TURN, msg: { turn_id: TURN } });
  });

  it('base64-encodes command output and keeps its stream', () => {
    const [delta] = projectEvent(TURN_EVENTS[9] as EngineEvent, CTX);
    expect(delta?.msg).toEqual({ type: 'exec_command_output_delta', call_id: 'call_13', stream: 'stdout', chunk: Buffer.from('héllo\n').toString('base64') });
  });

  it('reports the command end with exit code, duration and status', () => {
    expect(projectEvent(TURN_EVENTS[10] as EngineEvent, CTX)[0]?.msg).toMatchObject({
      type: 'exec_command_end',
      call_id: 'call_13',
      process_id: '42',
      command: command.argv,
      exit_code: 0,
      duration: { secs: 1, nanos: 500_000_000 },
      aggregated_output: 'héllo\n',
      parsed_cmd: [{ type: 'unknown', cmd: 'touch made.txt' }],
      status: 'completed',
    });
    const declined = ev({ type: 'item.completed', item: { ...command, status: 'declined', aggregatedOutput: null, exitCode: null, durationMs: null }, atMs: 9 });
    expect(projectEvent(declined, CTX)[0]?.msg).toMatchObject({ status: 'declined', exit_code: -1 });
  });

  it('offers the execpolicy amendment as a decision when the engine proposes a prefix rule', () => {
    expect(projectEvent(TURN_EVENTS[6] as EngineEvent, CTX)[0]?.msg).toMatchObject({
      type: 'exec_approval_request',
      started_at_ms: CTX.nowMs,
      proposed_execpolicy_amendment: ['touch', 'made.txt'],
      available_decisions: ['approved', { approved_execpolicy_amendment: { proposed_execpolicy_amendment: ['touch', 'made.txt'] } }, 'abort'],
    });
  });

  it('ends a turn with task_complete, turn_aborted, or nothing after a failure (its error event went first)', () => {
    expect(projectEvent(TURN_EVENTS.at(-1) as EngineEvent, CTX)[0]?.msg).toEqual({
      type: 'task_complete',
      turn_id: '1',
      last_agent_message: 'ECHO: hi',
      completed_at: 1_795_973_848,
      duration_ms: 1500,
      time_to_first_token_ms: null,
    });
    const aborted = ev({ type: 'turn.completed', turn: { ...turnInfo, status: 'interrupted', completedAtMs: 1_795_973_847_551 } });
    expect(projectEvent(aborted, CTX)[0]?.msg).toEqual({ type: 'turn_aborted', turn_id: '1', reason: 'interrupted', completed_at: 1_795_973_847, duration_ms: 551 });
    const failed = ev({ type: 'turn.completed', turn: { ...turnInfo, status: 'failed', completedAtMs: 1, error: { message: 'x', code: 'other', httpStatus: null } } });
    expect(projectEvent(failed, CTX)).toEqual([]);
  });

  it('maps errors to error, or to stream_error while the engine retries', () => {
    const error = { message: 'stream disconnected', code: 'connectionFailed' as const, httpStatus: null };
    expect(projectEvent(ev({ type: 'error', error, willRetry: false }), CTX)[0]?.msg).toEqual({ type: 'error', message: 'stream disconnected', codex_error_info: 'connection_failed' });
    expect(projectEvent(ev({ type: 'error', error, willRetry: true }), CTX)[0]?.msg).toMatchObject({ type: 'stream_error', message: 'stream disconnected' });
  });

  it('projects nothing for approval.resolved', () => {
    expect(projectEvent(TURN_EVENTS[7] as EngineEvent, CTX)).toEqual([]);
  });
});

describe('changes', () => {
  it('gives add and delete their content and update its diff', () => {
    const del: FileUpdate = { path: '/ws/old.txt', kind: { type: 'delete' }, diff: 'diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n' };
    const upd: FileUpdate = { path: '/ws/a.txt', kind: { type: 'update', move_path: '/ws/b.txt' }, diff: '@@ -1 +1 @@\n-a\n+b\n' };
    expect(codexChanges([CHANGE, del, upd])).toEqual({
      '/ws/hello.txt': { type: 'add', content: 'hi\nthere\n' },
      '/ws/old.txt': { type: 'delete', content: 'bye\n' },
      '/ws/a.txt': { type: 'update', unified_diff: '@@ -1 +1 @@\n-a\n+b\n', move_path: '/ws/b.txt' },
    });
  });

  it('keeps a missing final newline', () => {
    const add: FileUpdate = { path: '/ws/ab.txt', kind: { type: 'add' }, diff: '@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n' };
    expect(codexChanges([add])['/ws/ab.txt']).toEqual({ type: 'add', content: 'a\nb' });
  });
});

describe('projectSessionStart', () => {
  it('opens a codex stream with session_configured and mcp_startup_complete under id ""', () => {
    const events = projectSessionStart({ threadId: THREAD, model: 'm', modelProviderId: 'mock', approvalPolicy: 'on-request', sandboxPolicy: { type: 'danger-full-access' }, cwd: '/ws', rolloutPath: '/r.jsonl', reasoningEffort: 'high' });
    expect(events.map((e) => e.id)).toEqual(['', '']);
    expect(events[0]?.msg).toMatchObject({ type: 'session_configured', session_id: THREAD, thread_id: THREAD, approval_policy: 'on-request', approvals_reviewer: 'user', permission_profile: { type: 'disabled' }, rollout_path: '/r.jsonl', reasoning_effort: 'high' });
    expect(events[1]?.msg).toEqual({ type: 'mcp_startup_complete', ready: [], failed: [], cancelled: [] });
  });

  it("reports workspace-write with the engine's grants: every protected name read-only under the project roots", () => {
    const sandboxPolicy = { type: 'workspace-write' as const, writableRoots: ['/extra'], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: false };
    const [configured] = projectSessionStart({ threadId: THREAD, model: 'm', modelProviderId: 'mock', approvalPolicy: 'never', sandboxPolicy, cwd: '/ws', rolloutPath: null, reasoningEffort: null });
    const special = (kind: string, access: string, subpath?: string) => ({ path: { type: 'special', value: { kind, ...(subpath ? { subpath } : {}) } }, access });
    expect(configured?.msg.permission_profile).toEqual({
      type: 'managed',
      file_system: {
        type: 'restricted',
        entries: [
          special('root', 'read'),
          special('project_roots', 'write'),
          special('slash_tmp', 'write'),
          ...PROTECTED_DIR_NAMES.map((name) => special('project_roots', 'read', name)),
          { path: { type: 'path', path: '/extra' }, access: 'write' },
        ],
      },
      network: 'restricted',
    });
    expect(PROTECTED_DIR_NAMES).toEqual(['.git', '.deputy', '.codex']);
  });
});
