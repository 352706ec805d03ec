/**
 * Every text `deputy exec` prints for a decision or as progress goes through the neutraliser:
 * commands, directories, reasons, patch paths (and move targets) and diffs, MCP server and tool
 * names, arguments and descriptions, elicitation messages and fields, warnings and errors, the
 * final answer on a terminal. Each case feeds text with a CR, an ANSI sequence, a bidi override
 * or a zero-width character and checks that nothing raw a terminal would act on is printed.
 */
import type { ApprovalRequest, EngineEvent, McpElicitationRequest, McpToolCallApprovalRequest, ThreadItem } from '@deputy/protocol';
import { describe, expect, it } from 'vitest';
import { finalAnswerText } from '../src/exec.js';
import { renderEvent } from '../src/render.js';
import { describeApproval, describeMcpCall, elicitOnTerminal } from '../src/terminal-approvals.js';

/** A raw character that a terminal obeys or hides (LF is allowed only where asked). */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\u2028\u2029]/u;
const HOSTILE = 'a\r\x1b[2K\u009b1A\u202e\u200bb';
const SHOWN = String.raw`a\x0d\x1b[2K\x9b1A\u{202e}\u{200b}b`;
const ev = (event: Record<string, unknown>): EngineEvent => ({ atMs: 1, threadId: 't', turnId: 'u', seq: 1, ...event }) as EngineEvent;

describe('approval questions', () => {
  it('shows a command as one shell-quoted line with every hidden character escaped, and the cwd and reason too', () => {
    const request: ApprovalRequest = { kind: 'exec', callId: 'c', command: ['/bin/bash', '-lc', `echo ${HOSTILE}`], cwd: `/w/${HOSTILE}`, reason: HOSTILE, proposedPrefixRule: null, isSandboxRetry: false };
    const shown = describeApproval(request);
    expect(shown).not.toMatch(RAW);
    expect(shown).toContain(`? Run: /bin/bash -lc 'echo ${SHOWN}'`);
    expect(shown).toContain(`  in /w/${SHOWN}`);
    expect(shown).toContain(`  reason: ${SHOWN}`);
  });

  it('shows argv word boundaries: a space inside a word is quoted, unlike two words', () => {
    const one = describeApproval({ kind: 'exec', callId: 'c', command: ['rm', '-rf', 'a b'], cwd: '/w', reason: null, proposedPrefixRule: null, isSandboxRetry: false });
    const two = describeApproval({ kind: 'exec', callId: 'c', command: ['rm', '-rf', 'a', 'b'], cwd: '/w', reason: null, proposedPrefixRule: null, isSandboxRetry: false });
    expect(one).toContain("Run: rm -rf 'a b'");
    expect(two).toContain('Run: rm -rf a b');
  });

  it('shows patch paths, move targets and the reason escaped, and the diff with its line breaks but no CR or ESC', () => {
    const request: ApprovalRequest = {
      kind: 'patch',
      callId: 'c',
      changes: [
        { path: `/w/${HOSTILE}`, kind: { type: 'update', move_path: `/etc/${HOSTILE}` }, diff: `@@\n-old\r\x1b[1A\n+new` },
        { path: '/w/new.txt', kind: { type: 'add' }, diff: '+x' },
      ],
      reason: HOSTILE,
      grantRoot: null,
    };
    const shown = describeApproval(request);
    expect(shown.replace(/\n/g, '')).not.toMatch(RAW);
    expect(shown).toContain(`  update /w/${SHOWN} -> /etc/${SHOWN}\n@@\n-old\\x0d\\x1b[1A\n+new`);
    expect(shown).toContain(`Apply patch (${SHOWN})`);
  });

  it('shows an MCP tool call with its server, tool, arguments and description escaped', () => {
    const request: McpToolCallApprovalRequest = {
      kind: 'mcpToolCall',
      callId: 'c',
      server: 'srv',
      tool: `t${HOSTILE}`,
      arguments: { path: HOSTILE, n: '\x7f\u2028' },
      message: `Allow the srv MCP server to run tool "t${HOSTILE}"?`,
      toolTitle: null,
      toolDescription: HOSTILE,
      canRemember: true,
    };
    const shown = describeMcpCall(request);
    expect(shown).not.toMatch(RAW);
    expect(shown).toContain(`? Allow the srv MCP server to run tool "t${SHOWN}"?`);
    expect(shown).toContain(String.raw`mcp: srv.t${SHOWN}({"path":"a\r\u001b[2K\u009b1A\u202e\u200bb","n":"\u007f\u2028"})`);
 
    const long = describeMcpCall({ ...request, arguments: { text: `${'x'.repeat(500)}END` } });
    expect(long).toContain('END"})');
  });
});

describe('elicitation form', () => {
  it('escapes the message, field titles, descriptions, choices and defaults the MCP server sent', async () => {
    const request: McpElicitationRequest = {
      kind: 'mcpElicitation',
      server: `s${HOSTILE}`,
      message: `line one\n${HOSTILE}`,
      mode: 'form',
      requestedSchema: { type: 'object', properties: { pick: { type: 'string', title: HOSTILE, description: HOSTILE, enum: [HOSTILE, 'b'], default: 'b' } } },
      url: null,
      elicitationId: null,
    };
    const logged: string[] = [];
    const asked: string[] = [];
    const rl = { question: async (q: string) => (asked.push(q), '') };
    const answer = await elicitOnTerminal(request, rl as never, (l) => logged.push(l), new AbortController().signal);
    expect(answer).toEqual({ action: 'accept', content: { pick: 'b' } });
    for (const line of [...logged, ...asked]) expect(line.replace(/\n/g, '')).not.toMatch(RAW);
    expect(logged[0]).toBe(`\n? The s${SHOWN} MCP server asks: line one\n  ${SHOWN}`);
    expect(asked[0]).toContain(`  ${SHOWN} (${SHOWN}) [string; one of "a\\r\\u001b[2K\\u009b1A\\u202e\\u200bb", "b"; default "b"]`);
  });

  it('escapes the URL of a URL-mode elicitation', async () => {
    const request: McpElicitationRequest = { kind: 'mcpElicitation', server: 's', message: 'go', mode: 'url', requestedSchema: null, url: `https://x.test/${HOSTILE}`, elicitationId: 'e' };
    const logged: string[] = [];
    await elicitOnTerminal(request, { question: async () => 'n' } as never, (l) => logged.push(l), new AbortController().signal);
    expect(logged).toContain(`  open: https://x.test/${SHOWN}`);
  });
});

describe('progress lines', () => {
  it('escapes commands, directories, MCP calls, patch paths, plan steps, warnings and errors', () => {
    const command = { type: 'commandExecution', id: 'i', command: `echo ${HOSTILE}`, cwd: `/w/${HOSTILE}` } as unknown as ThreadItem;
    const mcp = { type: 'mcpToolCall', id: 'i', server: HOSTILE, tool: HOSTILE, status: 'failed', arguments: { a: HOSTILE }, result: null, error: HOSTILE, durationMs: 1 } as ThreadItem;
    const patch = { type: 'fileChange', id: 'i', status: 'completed', changes: [{ path: `/w/${HOSTILE}`, kind: { type: 'add' }, diff: '' }] } as unknown as ThreadItem;
    const lines = [
      ...renderEvent(ev({ type: 'item.started', item: command })),
      ...renderEvent(ev({ type: 'item.started', item: mcp })),
      ...renderEvent(ev({ type: 'item.completed', item: mcp })),
      ...renderEvent(ev({ type: 'item.completed', item: patch })),
      ...renderEvent(ev({ type: 'plan.updated', plan: [{ step: HOSTILE, status: 'pending' }] })),
      ...renderEvent(ev({ type: 'warning', message: HOSTILE })),
      ...renderEvent(ev({ type: 'error', error: { message: HOSTILE }, willRetry: false })),
    ];
    for (const line of lines) expect(line).not.toMatch(RAW);
    expect(lines[0]).toBe(`$ echo ${SHOWN} (in /w/${SHOWN})`);
    expect(lines).toContain(`  patched: add /w/${SHOWN}`);
    expect(lines).toContain(`warning: ${SHOWN}`);
  });
});

describe('the final answer', () => {
  it('is printed exactly when stdout is not a terminal, and neutralised (line breaks kept) when it is', () => {
    const answer = `done\n\x1b]52;c;cm0gLXJmIH4=\x07\ttab`;
    expect(finalAnswerText(answer, false)).toBe(answer);
    expect(finalAnswerText(answer, true)).toBe('done\n\\x1b]52;c;cm0gLXJmIH4=\\x07\ttab');
  });
});
