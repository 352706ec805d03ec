/**
 * The approval mapping of docs/mcp-server.md, "Approvals": elicitation parameters for commands
 * and patches, the decision read from every answer form (a `decision` first, else the standard
 * `action`, else denied), the 2026 round answer, shell quoting in the message, and the router's
 * fail-closed default.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalRouter, approvalMessage, decisionFromResponse, elicitationParams, mcpElicitationParams, roundDecision, userInputElicitation } from '../../src/elicitation-approvals.js';

const exec = { kind: 'exec' as const, callId: 'call_13', command: ['/bin/bash', '-lc', 'touch made.txt'], cwd: '/ws', reason: null, proposedPrefixRule: null, isSandboxRetry: false };
const patch = { kind: 'patch' as const, callId: 'call_83', changes: [{ path: '/ws/hello.txt', kind: { type: 'add' as const }, diff: '@@ -0,0 +1 @@\n+hi\n' }], reason: null, grantRoot: null };
const origin = { threadId: 'T', toolCallId: '1', eventId: '1' };

describe('elicitationParams', () => {
  it('builds the exec approval request', () => {
    expect(elicitationParams(exec, origin)).toEqual({
      message: "Allow Deputy to run `/bin/bash -lc 'touch made.txt'` in `/ws`?",
      requestedSchema: { type: 'object', properties: {} },
      threadId: 'T',
      codex_elicitation: 'exec-approval',
      codex_mcp_tool_call_id: '1',
      codex_event_id: '1',
      codex_call_id: 'call_13',
      codex_command: ['/bin/bash', '-lc', 'touch made.txt'],
      codex_cwd: '/ws',
      codex_parsed_cmd: [{ type: 'unknown', cmd: 'touch made.txt' }],
    });
  });

  it('builds the patch approval request', () => {
    expect(elicitationParams(patch, origin)).toEqual({
      message: 'Allow Deputy to apply proposed code changes?',
      requestedSchema: { type: 'object', properties: {} },
      threadId: 'T',
      codex_elicitation: 'patch-approval',
      codex_mcp_tool_call_id: '1',
      codex_event_id: '1',
      codex_call_id: 'call_83',
      codex_changes: { '/ws/hello.txt': { type: 'add', content: 'hi\n' } },
    });
  });

  it('puts a reason on the line before the question and in codex_reason', () => {
    const withReason = { ...exec, reason: 'command failed; retry without sandbox?' };
    expect(approvalMessage(withReason)).toBe("command failed; retry without sandbox?\nAllow Deputy to run `/bin/bash -lc 'touch made.txt'` in `/ws`?");
    expect(elicitationParams(withReason, origin).codex_reason).toBe('command failed; retry without sandbox?');
  });
});

describe('decisionFromResponse', () => {
  it.each([
    [{ decision: 'approved' }, 'approved'],
    [{ decision: 'approved_for_session' }, 'approved_for_session'],
    [{ decision: { approved_execpolicy_amendment: { proposed_execpolicy_amendment: ['touch'] } } }, 'approved_and_remember'],
    [{ decision: 'denied' }, 'denied'],
    [{ decision: 'timed_out' }, 'timed_out'],
    [{ decision: 'abort' }, 'abort'],
    [{ action: 'accept', decision: 'approved' }, 'approved'],
    [{ action: 'accept', decision: 'denied' }, 'denied'],
    [{ action: 'accept' }, 'approved'],
    [{ action: 'accept', content: { decision: 'approved' } }, 'approved'],
    [{ action: 'decline' }, 'denied'],
    [{ action: 'cancel' }, 'abort'],
    [{ decision: 'allow' }, 'denied'],
    [{ decision: 'yes', action: 'decline' }, 'denied'],
    [{ action: 'maybe' }, 'denied'],
    [{}, 'denied'],
    [null, 'denied'],
    ['approved', 'denied'],
  ])('reads %j as %s', (answer, expected) => {
    expect(decisionFromResponse(answer)).toBe(expected);
  });
});

describe('roundDecision (2026 input-required answers)', () => {
  it('reads a decision carried in the accepted content, else the action', () => {
    expect(roundDecision({ action: 'accept', content: { decision: 'approved_for_session' } })).toBe('approved_for_session');
    expect(roundDecision({ action: 'accept', content: {} })).toBe('approved');
    expect(roundDecision({ action: 'accept', content: { decision: 'denied' } })).toBe('denied');
    expect(roundDecision({ action: 'decline' })).toBe('denied');
    expect(roundDecision({ action: 'cancel' })).toBe('abort');
    expect(roundDecision(undefined)).toBe('denied');
  });
});

describe('the command in the message', () => {
  const question = (command: string[]) => approvalMessage({ ...exec, command });

  it('quotes only what a shell would split or expand, as the engine displays commands', () => {
    expect(question(['/bin/bash', '-lc', 'touch made.txt'])).toBe("Allow Deputy to run `/bin/bash -lc 'touch made.txt'` in `/ws`?");
    expect(question(['echo', "it's", ''])).toBe(`Allow Deputy to run \`echo 'it'\\''s' ''\` in \`/ws\`?`);
    expect(question(['ls', '-la', 'a/b.c'])).toBe('Allow Deputy to run `ls -la a/b.c` in `/ws`?');
  });
});

describe('ApprovalRouter', () => {
  it('routes by turn and denies approvals of turns nobody listens to', async () => {
    const router = new ApprovalRouter();
    const signal = new AbortController().signal;
    const stop = router.route('turn-1', async () => 'approved');
    expect(await router.requestExec(exec, { threadId: 'T', turnId: 'turn-1', approvalId: 'a' }, signal)).toBe('approved');
    // Nobody to ask: a denial that tells the model so, not "rejected by user".
    const unrouted = { decision: 'denied', note: expect.stringMatching(/^No approver was available: no MCP client request is attached to this turn/) };
    expect(await router.requestPatch(patch, { threadId: 'T', turnId: 'turn-2', approvalId: 'b' }, signal)).toEqual(unrouted);
    stop();
    expect(await router.requestExec(exec, { threadId: 'T', turnId: 'turn-1', approvalId: 'c' }, signal)).toEqual(unrouted);
  });
});

describe('questions to the user (request_user_input)', () => {
  const questions = {
    callId: 'call_5',
    questions: [
      {
        id: 'db',
        header: 'Database',
        question: 'Which database?',
        isOther: true,
        isSecret: false,
        options: [
          { label: 'Postgres', description: 'Relational.' },
          { label: 'SQLite', description: 'A file.' },
        ],
      },
    ],
  };

  it('become a form elicitation: one required string per question, its options as an enum', () => {
    const request = userInputElicitation(questions);
    expect(request.requestedSchema).toEqual({
      type: 'object',
      properties: { db: { type: 'string', title: 'Database', description: 'Which database?', enum: ['Postgres', 'SQLite'], enumNames: ['Postgres: Relational.', 'SQLite: A file.'] } },
      required: ['db'],
    });
    expect(mcpElicitationParams(request, origin)).toMatchObject({ message: 'Which database?', codex_elicitation: 'request-user-input', codex_mcp_server: 'request_user_input' });
  });

  it('are answered through the turn\'s elicitation path; a decline, or no listener, is no answer', async () => {
    const router = new ApprovalRouter();
    const signal = new AbortController().signal;
    const turn = { threadId: 'T', turnId: 'U', approvalId: 'A' };
    expect(await router.requestUserInput(questions, turn, signal)).toBeNull();
    let answer: { action: 'accept' | 'decline'; content: Record<string, unknown> | null } = { action: 'accept', content: { db: 'SQLite' } };
    const off = router.route('U', async () => 'denied', async () => answer);
    expect(await router.requestUserInput(questions, turn, signal)).toEqual({ answers: { db: { answers: ['SQLite'] } } });
    answer = { action: 'decline', content: null };
    expect(await router.requestUserInput(questions, turn, signal)).toBeNull();
    off();
  });
});

describe('neutralised display texts', () => {
  const hostile = 'a\r\x1b[2K\u202e\u200bb';
  const shown = String.raw`a\x0d\x1b[2K\u{202e}\u{200b}b`;
  const origin = { threadId: 't', toolCallId: '1', eventId: '1' };

  it('escapes an MCP server’s message and form titles, descriptions and enumNames, and keeps enum values, names and defaults exact', () => {
    const params = mcpElicitationParams(
      {
        kind: 'mcpElicitation',
        server: 's',
        message: `line\n${hostile}`,
        mode: 'form',
        requestedSchema: {
          type: 'object',
          properties: {
            [hostile]: { type: 'string', title: hostile, description: hostile, enum: [hostile], enumNames: [hostile], default: hostile },
            pick: { type: 'string', oneOf: [{ const: hostile, title: hostile }] },
          },
        },
        url: null,
        elicitationId: null,
      },
      origin,
    );
    expect(params.message).toBe(`line\n${shown}`);
    expect(params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        [hostile]: { type: 'string', title: shown, description: shown, enum: [hostile], enumNames: [shown], default: hostile },
        pick: { type: 'string', oneOf: [{ const: hostile, title: shown }] },
      },
    });
  });

  it('escapes an MCP tool call’s message', () => {
    const message = approvalMessage({ kind: 'mcpToolCall', callId: 'c', server: 's', tool: hostile, arguments: {}, message: `run "${hostile}"?`, toolTitle: null, toolDescription: null, canRemember: false });
    expect(message).toBe(`run "${shown}"?`);
  });
});
