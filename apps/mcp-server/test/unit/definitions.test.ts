/**
 * The tool list without a server: the two reference tools' JSON Schemas, generated from the
 * zod schemas of `@deputy/protocol/mcp-tools`, equal the reference's (descriptions aside; the
 * e2e handshake test checks the same over the wire), and every session tool has its schemas.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REFERENCE_TOOLS, SESSION_TOOLS } from '../../src/tools/definitions.js';

const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/reference-tools-list.json', import.meta.url), 'utf8')) as { tools: Record<string, unknown>[] };

/** A copy of a JSON value with every `description` string replaced by a marker. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'description' && typeof v === 'string' ? '<description>' : withoutDescriptions(v)]));
}

describe('tool definitions', () => {
  it('generate the reference JSON Schemas for codex and codex-reply', () => {
    expect(withoutDescriptions(JSON.parse(JSON.stringify(REFERENCE_TOOLS)))).toEqual(withoutDescriptions(REFERENCE.tools));
  });

  it('give every session tool an object input and output schema', () => {
    for (const tool of SESSION_TOOLS) {
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object' });
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    }
  });
});
