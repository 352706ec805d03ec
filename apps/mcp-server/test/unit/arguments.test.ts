/**
 * Argument parsing of `codex` and `codex-reply`: the reference's error wording, null as absent,
 * unknown names ignored, and thread ids in every form the uuid parser accepts.
 */
import { CodexListToolArgsSchema } from '@deputy/protocol/mcp-tools';
import { describe, expect, it } from 'vitest';
import { describeValue, parseCodexArgs, parseReplyArgs, parseToolArgs, parseUuid } from '../../src/tools/arguments.js';

const ID = '01a22862-1b4a-7402-bb51-3fe2afe3ca06';

describe('parseCodexArgs', () => {
  it('maps the kebab-case arguments to engine names', () => {
    const parsed = parseCodexArgs({
      prompt: 'p',
      'approval-policy': 'never',
      sandbox: 'workspace-write',
      cwd: 'sub',
      model: 'm',
      profile: 'fast',
      config: { a: 1 },
      'base-instructions': 'b',
      'developer-instructions': 'd',
      'compact-prompt': 'c',
    });
    expect(parsed).toEqual({
      ok: true,
      value: { prompt: 'p', approvalPolicy: 'never', sandbox: 'workspace-write', cwd: 'sub', model: 'm', profile: 'fast', config: { a: 1 }, baseInstructions: 'b', developerInstructions: 'd', compactPrompt: 'c' },
    });
  });

  it('ignores unknown names and treats null as absent', () => {
    expect(parseCodexArgs({ prompt: 'p', approvalPolicy: 'x', foo: [1], model: null })).toEqual({ ok: true, value: { prompt: 'p' } });
  });

  it.each([
    [undefined, 'Missing arguments for codex tool-call; the `prompt` field is required.'],
    [{}, 'Failed to parse configuration for Codex tool: missing field `prompt`'],
    [{ prompt: 42 }, 'Failed to parse configuration for Codex tool: invalid type: integer `42`, expected a string'],
    [{ prompt: null }, 'Failed to parse configuration for Codex tool: missing field `prompt`'],
    [{ prompt: 'p', model: true }, 'Failed to parse configuration for Codex tool: invalid type: boolean `true`, expected a string'],
    [{ prompt: 'p', config: 'x' }, 'Failed to parse configuration for Codex tool: invalid type: string "x", expected a map'],
    [{ prompt: 'p', 'approval-policy': 'sometimes' }, 'Failed to parse configuration for Codex tool: unknown variant `sometimes`, expected one of `untrusted`, `on-failure`, `on-request`, `never`'],
    [{ prompt: 'p', sandbox: 'open' }, 'Failed to parse configuration for Codex tool: unknown variant `open`, expected one of `read-only`, `workspace-write`, `danger-full-access`'],
  ])('rejects %j with the reference text', (args, message) => {
    expect(parseCodexArgs(args as Record<string, unknown> | undefined)).toEqual({ ok: false, message });
  });
});

describe('parseReplyArgs', () => {
  it('prefers threadId over conversationId', () => {
    expect(parseReplyArgs({ prompt: 'p', threadId: ID, conversationId: '01a22862-0000-7402-bb51-3fe2afe3ca06' })).toEqual({ ok: true, value: { prompt: 'p', threadId: ID, rawId: ID } });
    expect(parseReplyArgs({ prompt: 'p', conversationId: ID })).toEqual({ ok: true, value: { prompt: 'p', threadId: ID, rawId: ID } });
  });

  it.each([
    [undefined, 'Missing arguments for codex-reply tool-call; the `thread_id` and `prompt` fields are required.'],
    [{ threadId: ID }, 'Failed to parse configuration for Codex tool: missing field `prompt`'],
    [{ prompt: 'p' }, 'Failed to parse thread_id: either threadId or conversationId must be provided'],
    [{ prompt: 'p', threadId: 7 }, 'Failed to parse configuration for Codex tool: invalid type: integer `7`, expected a string'],
    [{ prompt: 'p', threadId: 'not-a-uuid' }, 'Failed to parse thread_id: invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1'],
  ])('rejects %j with the reference text', (args, message) => {
    expect(parseReplyArgs(args as Record<string, unknown> | undefined)).toEqual({ ok: false, message });
  });
});

describe('parseUuid', () => {
  it('accepts hyphenated, simple, braced and urn forms and normalises them', () => {
    for (const form of [ID, ID.toUpperCase(), ID.replaceAll('-', ''), `{${ID}}`, `urn:uuid:${ID}`]) expect(parseUuid(form)).toEqual({ ok: true, value: ID });
  });

  it('reports the first bad character and wrong lengths', () => {
    expect(parseUuid('01a2286z')).toEqual({ ok: false, message: 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `z` at 8' });
    expect(parseUuid('01a22862')).toMatchObject({ ok: false, message: expect.stringContaining('invalid length') });
  });
});

describe('describeValue', () => {
  it('names JSON values the way serde does', () => {
    expect([1.5, null, [], {}, 'x'].map(describeValue)).toEqual(['floating point `1.5`', 'null', 'sequence', 'map', 'string "x"']);
  });
});

describe('parseToolArgs', () => {
  it('reports the first bad argument in the order the client sent them, a missing one last', () => {
    expect(parseCodexArgs({ config: 'x', model: 1 })).toEqual({ ok: false, message: 'Failed to parse configuration for Codex tool: invalid type: string "x", expected a map' });
    expect(parseCodexArgs({ model: 1, config: 'x' })).toEqual({ ok: false, message: 'Failed to parse configuration for Codex tool: invalid type: integer `1`, expected a string' });
    expect(parseCodexArgs({ 'approval-policy': 7 })).toEqual({ ok: false, message: 'Failed to parse configuration for Codex tool: invalid type: integer `7`, expected a string' });
  });

  it.each([
    [{ limit: 0 }, 'invalid value: integer `0`, expected at least 1'],
    [{ limit: 101 }, 'invalid value: integer `101`, expected at most 100'],
    [{ limit: 2.5 }, 'invalid type: floating point `2.5`, expected an integer'],
    [{ cursor: ['x'] }, 'invalid type: sequence, expected a string'],
  ])('words a bad session-tool argument %j serde-style', (args, message) => {
    expect(parseToolArgs(CodexListToolArgsSchema, args)).toEqual({ ok: false, message });
  });
});
