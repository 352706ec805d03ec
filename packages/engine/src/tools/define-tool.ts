/**
 * `defineFunctionTool`: declares a JSON-argument tool from a zod schema. The JSON Schema the
 * model sees is derived from the same zod schema (one source of truth), shaped as the reference
 * sends it: `strict: false`, `additionalProperties: false`.
 */
import { z } from 'zod';
import type { ToolSpec } from '../model/types.js';
import { ToolError, type ToolContext, type ToolDefinition, type ToolOutput } from './types.js';

/** Options of a function tool. */
export interface FunctionToolOptions<S extends z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  handle(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/** JSON Schemas already derived, by zod schema: threads build their own tools, all from the same schemas. */
const derived = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * Turns a zod object schema into the JSON Schema a model tool spec carries. Derived once per
 * schema and shared by every tool built from it, so it must be treated as read-only.
 */
export function toToolJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const known = derived.get(schema);
  if (known !== undefined) return known;
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  derived.set(schema, json);
  return json;
}

/** Declares a function tool whose arguments are JSON validated by `parameters`. */
export function defineFunctionTool<S extends z.ZodType>(options: FunctionToolOptions<S>): ToolDefinition<z.infer<S>> {
  const parameters = toToolJsonSchema(options.parameters);
  return {
    name: options.name,
    spec: (): ToolSpec => ({ type: 'function', name: options.name, description: options.description, parameters, strict: false }),
    parse(raw: string): z.infer<S> {
      let value: unknown;
      try {
        value = raw.trim() === '' ? {} : JSON.parse(raw);
      } catch (error) {
        throw new ToolError(`failed to parse function arguments: ${(error as Error).message}`);
      }
      const result = options.parameters.safeParse(value);
      if (!result.success) {
        const issues = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
        throw new ToolError(`failed to parse function arguments: ${issues}`);
      }
      return result.data;
    },
    handle: options.handle,
  };
}
