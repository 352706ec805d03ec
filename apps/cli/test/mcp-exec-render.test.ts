/**
 * `deputy exec` and the MCP client runtime, as units: the stderr lines of MCP tool calls, the
 * `--json` `mcp_tool_call` item (Codex exec's shape, checked against the reference's capture of
 * `codex exec --json`), the answers to MCP approvals, and the terminal form of elicitations.
 */
import type { EngineEvent, McpElicitationRequest, ThreadItem } from '@deputy/protocol';
import { describe, expect, it } from 'vitest';
import { codexMcpItem, jsonEvent, renderEvent } from '../src/render.js';
import { elicitOnTerminal, parseMcpAnswer, terminalApprovals } from '../src/terminal-approvals.js';

type McpItem = Extract<ThreadItem, { type: 'mcpToolCall' }>;
const base: McpItem = { type: 'mcpToolCall', id: 'item_0', server: 'odd', tool: 'echo', status: 'inProgress', arguments: { text: 'from exec' }, result: null, error: null, durationMs: null };
const ev = (type: 'item.started' | 'item.completed', item: ThreadItem): EngineEvent => ({ type, item, atMs: 1, threadId: 't', turnId: 'u', seq: 3 }) as EngineEvent;

/** The reference's `codex exec --json` lines for a cancelled MCP call (captures/mcp-client/29-exec-json-mcp-call.jsonl). */
const REFERENCE_STARTED = { id: 'item_0', type: 'mcp_tool_call', server: 'odd', tool: 'echo', arguments: { text: 'from exec' }, result: null, error: null, status: 'in_progress' };
const REFERENCE_COMPLETED = { ...REFERENCE_STARTED, error: { message: 'user cancelled MCP tool call' }, status: 'failed' };

describe('stderr progress', () => {
  it('shows the call, then ok or failed with the time', () => {
    expect(renderEvent(ev('item.started', base))).toEqual(['mcp: odd.echo({"text":"from exec"})']);
    expect(renderEvent(ev('item.completed', { ...base, status: 'completed', durationMs: 1234, result: { content: [] } }))).toEqual(['  ok in 1.23s']);
    expect(renderEvent(ev('item.completed', { ...base, status: 'failed', durationMs: 20, error: 'user rejected MCP tool call' }))).toEqual(['  failed in 0.02s: user rejected MCP tool call']);
  });

  it('clips long arguments', () => {
    const line = renderEvent(ev('item.started', { ...base, arguments: { text: 'x'.repeat(500) } }))[0]!;
    expect(line.length).toBeLessThan(140);
    expect(line.endsWith('…)')).toBe(true);
  });
});

describe('--json mcp_tool_call items', () => {
  it('matches the reference shape for a started and a failed call', () => {
    expect(codexMcpItem(base)).toEqual(REFERENCE_STARTED);
    expect(codexMcpItem({ ...base, status: 'failed', error: 'user cancelled MCP tool call', durationMs: 0 })).toEqual(REFERENCE_COMPLETED);
  });

  it('carries the result as {content, structured_content}, isError results as failed with the result', () => {
    const content = [{ type: 'text', text: 'plain: hi' }];
    expect(codexMcpItem({ ...base, status: 'completed', result: { content, structuredContent: null, _meta: null } })).toMatchObject({ status: 'completed', result: { content, structured_content: null }, error: null });
    expect(codexMcpItem({ ...base, status: 'failed', result: { content, structuredContent: { a: 1 }, _meta: null } })).toMatchObject({ status: 'failed', result: { content, structured_content: { a: 1 } }, error: null });
  });

  it('keeps the engine envelope and leaves other events alone', () => {
    expect(jsonEvent(ev('item.started', base))).toEqual({ type: 'item.started', atMs: 1, threadId: 't', turnId: 'u', seq: 3, item: REFERENCE_STARTED });
    const other = ev('item.started', { type: 'agentMessage', id: 'm', text: '', phase: null });
    expect(jsonEvent(other)).toBe(other);
  });
});

describe('MCP approvals on the terminal', () => {
  it('reads y / s / n / a', () => {
    expect(parseMcpAnswer('y')).toBe('approved');
    expect(parseMcpAnswer('s')).toBe('approved_for_session');
    expect(parseMcpAnswer('n')).toBe('denied');
    expect(parseMcpAnswer('a')).toBe('abort');
    expect(parseMcpAnswer('r')).toBe('denied');
    expect(parseMcpAnswer('')).toBe('denied');
  });

  it('without a terminal: approvals denied with the usual hint, elicitations declined at once', async () => {
    const lines: string[] = [];
    const port = terminalApprovals({ interactive: false, log: (l) => lines.push(l) });
    const signal = new AbortController().signal;
    const origin = { threadId: 't', turnId: 'u', approvalId: 'a' };
    const request = { kind: 'mcpToolCall' as const, callId: 'c', server: 'odd', tool: 'echo', arguments: {}, message: 'Allow?', toolTitle: null, toolDescription: null, canRemember: true };
    expect(await port.requestMcpToolCall!(request, origin, signal)).toBe('denied');
    expect(lines[0]).toMatch(/^deputy: approval needed but stdin is not a terminal: denied\./);
    expect(await port.requestMcpElicitation!(FORM, origin, signal)).toEqual({ action: 'decline', content: null });
    expect(lines[1]).toMatch(/odd MCP server asks for input but stdin is not a terminal: declined/);
  });
});

const FORM: McpElicitationRequest = {
  kind: 'mcpElicitation',
  server: 'odd',
  message: 'Who are you?',
  mode: 'form',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer' }, color: { type: 'string', enum: ['red', 'blue'] }, subscribe: { type: 'boolean', default: false } },
    required: ['name'],
  },
  url: null,
  elicitationId: null,
};

/** A readline stand-in answering from a list. */
const answers = (list: string[]) => ({ question: async () => list.shift() ?? '' });

describe('elicitations on the terminal', () => {
  const signal = new AbortController().signal;
  it('asks each field, re-asks invalid or missing required values, and accepts', async () => {
    const log: string[] = [];
    const result = await elicitOnTerminal(FORM, answers(['', 'Ada', 'old', '36', 'green', 'blue', '']), (l) => log.push(l), signal);
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', age: 36, color: 'blue', subscribe: false } });
    expect(log.join('\n')).toMatch(/odd MCP server asks: Who are you\?/);
    expect(log.join('\n')).toMatch(/name is required/);
  });

  it('declines or cancels on request, and handles URL mode', async () => {
    expect(await elicitOnTerminal(FORM, answers(['!decline']), () => undefined, signal)).toEqual({ action: 'decline', content: null });
    expect(await elicitOnTerminal(FORM, answers(['Ada', '!cancel']), () => undefined, signal)).toEqual({ action: 'cancel', content: null });
    const url = { ...FORM, mode: 'url' as const, requestedSchema: null, url: 'https://example.test', elicitationId: 'e' };
    expect(await elicitOnTerminal(url, answers(['y']), () => undefined, signal)).toEqual({ action: 'accept', content: null });
    expect(await elicitOnTerminal(url, answers(['n']), () => undefined, signal)).toEqual({ action: 'decline', content: null });
  });
});
