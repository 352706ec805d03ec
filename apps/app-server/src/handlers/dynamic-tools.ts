/**
 * `thread/start.dynamicTools` → the engine's `DynamicTool` list. Accepts the 0.130 untagged form
 * (`{name, description, inputSchema, deferLoading?, namespace?}`) and the current tagged form
 * (`{type:"function", …}`, `{type:"namespace", name, description, tools}`), and refuses what the
 * reference refuses with -32600: an empty or padded name, a name that is not
 * `[A-Za-z0-9_-]` (at most 128 characters; a namespace at most 64), a name the reference reserves
 * (`mcp`, `mcp__…`, the Responses API's own namespaces), a duplicate, an empty namespace, and an
 * input schema that is not a JSON object schema.
 */
import type { AppServer, DynamicTool } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';

const NAME_MAX = 128;
const NAMESPACE_MAX = 64;
const IDENTIFIER = /^[A-Za-z0-9_-]+$/;
const RESERVED_NAMESPACES = new Set([
  'api_tool', 'browser', 'computer', 'container', 'file_search', 'functions', 'image_gen', 'multi_tool_use',
  'python', 'python_user_visible', 'submodel_delegator', 'terminal', 'tool_search', 'web',
]);

function refuse(message: string): never {
  throw RpcError.invalidRequest(`Invalid request: ${message}`);
}

function checkIdentifier(value: string, label: string, max: number): void {
  if (value.trim() === '') refuse(`dynamic tool ${label} must not be empty`);
  if (value.trim() !== value) refuse(`dynamic tool ${label} has leading/trailing whitespace: ${value}`);
  if (!IDENTIFIER.test(value)) refuse(`dynamic tool ${label} must match ^[a-zA-Z0-9_-]+$: ${value}`);
  if (value.length > max) refuse(`dynamic tool ${label} must be at most ${max} characters: ${value}`);
  if (value === 'mcp' || value.startsWith('mcp__')) refuse(`dynamic tool ${label} is reserved: ${value}`);
}

function schemaOf(name: string, schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) refuse(`dynamic tool ${name}: inputSchema must be a JSON Schema object`);
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object') refuse(`dynamic tool ${name}: inputSchema must describe an object (type "object")`);
  // A schema without `type` is common; the model needs one.
  return type === undefined ? { type: 'object', ...schema } : (schema as Record<string, unknown>);
}

interface FunctionFields {
  name: string;
  description: string;
  inputSchema?: unknown;
  deferLoading?: boolean | undefined;
}

/** Checks and normalises a thread's client tools; `[]` for none. */
export function engineDynamicTools(specs: readonly AppServer.DynamicToolSpec[] | null | undefined): DynamicTool[] {
  const tools: DynamicTool[] = [];
  const seen = new Set<string>();
  const add = (fn: FunctionFields, namespace: string | null, namespaceDescription: string | null): void => {
    checkIdentifier(fn.name, 'name', NAME_MAX);
    const key = `${namespace ?? ''}\u0000${fn.name}`;
    if (seen.has(key)) refuse(`duplicate dynamic tool name: ${namespace ? `${namespace}.` : ''}${fn.name}`);
    seen.add(key);
    tools.push({ name: fn.name, description: fn.description, inputSchema: schemaOf(fn.name, fn.inputSchema), namespace, namespaceDescription, deferLoading: fn.deferLoading ?? false });
  };
  const checkNamespace = (name: string): void => {
    checkIdentifier(name, 'namespace', NAMESPACE_MAX);
    if (RESERVED_NAMESPACES.has(name)) refuse(`dynamic tool namespace is reserved: ${name}`);
  };
  for (const spec of specs ?? []) {
    if (spec.type === 'namespace') {
      checkNamespace(spec.name);
      if (spec.description.trim() === '') refuse(`dynamic tool namespace description must not be empty: ${spec.name}`);
      if (spec.tools.length === 0) refuse(`dynamic tool namespace '${spec.name}' must contain at least one tool`);
      for (const fn of spec.tools) add(fn, spec.name, spec.description);
    } else if (spec.type === 'function') {
      add(spec, null, null);
    } else {
      if (spec.namespace) checkNamespace(spec.namespace);
      add(spec, spec.namespace ?? null, null);
    }
  }
  return tools;
}
