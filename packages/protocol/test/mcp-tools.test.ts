/**
 * The MCP tool schemas: what they accept, and the JSON Schema generated from them for
 * `tools/list` (reference shape: no `$schema`, no closed objects, `config` as an open map). The
 * reference tools' JSON Schema is also pinned to the reference by the MCP server's tests.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalPolicySchema, SandboxModeSchema } from '../src/core/policies.js';
import { CodexListToolArgsSchema, CodexReplyToolArgsSchema, CodexToolArgsSchema, ThreadToolResultSchema, toolJsonSchema } from '../src/mcp-tools.js';

describe('tool argument schemas', () => {
  it('accept the kebab-case codex arguments and strip unknown names', () => {
    expect(CodexToolArgsSchema.parse({ prompt: 'p', 'approval-policy': 'never', config: { a: 1 }, extra: true })).toEqual({ prompt: 'p', 'approval-policy': 'never', config: { a: 1 } });
  });

  it('require a prompt and a known policy', () => {
    expect(CodexToolArgsSchema.safeParse({}).success).toBe(false);
    expect(CodexToolArgsSchema.safeParse({ prompt: 'p', sandbox: 'open' }).success).toBe(false);
    expect(CodexReplyToolArgsSchema.safeParse({ prompt: 'p' }).success).toBe(true);
  });

  it('bound the codex-list page size', () => {
    expect(CodexListToolArgsSchema.safeParse({ limit: 0 }).success).toBe(false);
    expect(CodexListToolArgsSchema.safeParse({ limit: 2.5 }).success).toBe(false);
    expect(CodexListToolArgsSchema.parse({ limit: 100 })).toEqual({ limit: 100 });
  });
});

describe('toolJsonSchema', () => {
  it('gives the codex arguments in the reference shape, the policy values from core', () => {
    const schema = toolJsonSchema(CodexToolArgsSchema);
    expect(schema.$schema).toBeUndefined();
    expect(schema.additionalProperties).toBeUndefined();
    expect(schema.required).toEqual(['prompt']);
    expect(schema.properties?.['approval-policy']).toMatchObject({ type: 'string', enum: ApprovalPolicySchema.options });
    expect(schema.properties?.sandbox).toMatchObject({ type: 'string', enum: SandboxModeSchema.options });
    expect(schema.properties?.config).toEqual({ type: 'object', additionalProperties: true, description: expect.any(String) });
  });

  it('gives results as object schemas without closing them', () => {
    expect(toolJsonSchema(ThreadToolResultSchema)).toEqual({
      type: 'object',
      properties: { threadId: { type: 'string' }, content: { type: 'string' } },
      required: ['threadId', 'content'],
    });
  });
});
