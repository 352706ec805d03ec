/**
 * Shapes an MCP tool's `inputSchema` into the JSON Schema subset the Responses API accepts: the
 * reference's kept keys, a `type` for every property, and Deputy's improvements (local `$ref`s
 * inlined up to depth 8, `const` as a typed one-value `enum`, `format` and `default` kept). The
 * root is always `type: "object"` with `properties`. Pure.
 */

type Json = Record<string, unknown>;

const KEPT = ['type', 'description', 'enum', 'format', 'default'] as const;
const MAX_REF_DEPTH = 8;

/** The shaped schema of a tool's arguments. */
export function shapeInputSchema(input: unknown): Json {
  const root = isObject(input) ? input : {};
  const shaped = shapeNode(root, root, 0, new Set());
  return { ...shaped, type: 'object', properties: isObject(shaped.properties) ? shaped.properties : {} };
}

function shapeNode(node: Json, root: Json, depth: number, seen: Set<string>): Json {
  if (typeof node.$ref === 'string') return resolveRef(node.$ref, root, depth, seen);
  const out: Json = {};
  for (const key of KEPT) if (node[key] !== undefined) out[key] = node[key];
  if ('const' in node) {
    out.enum = [node.const];
    if (out.type === undefined) out.type = jsonTypeOf(node.const);
  }
  if (isObject(node.properties)) {
    const props: Json = {};
    for (const [name, child] of Object.entries(node.properties)) props[name] = shapeProperty(child, root, depth, seen);
    out.properties = props;
  }
  if (Array.isArray(node.required)) out.required = node.required;
  if (node.items !== undefined) out.items = isObject(node.items) ? shapeProperty(node.items, root, depth, seen) : node.items;
  if (Array.isArray(node.anyOf)) out.anyOf = node.anyOf.map((c) => shapeProperty(c, root, depth, seen));
  if (node.additionalProperties !== undefined) {
    out.additionalProperties = isObject(node.additionalProperties) ? shapeProperty(node.additionalProperties, root, depth, seen) : node.additionalProperties;
  }
  return out;
}

/** A property: shaped, and `{type: "string"}` when it says nothing about its type. */
function shapeProperty(child: unknown, root: Json, depth: number, seen: Set<string>): Json {
  if (!isObject(child)) return { type: 'string' };
  const shaped = shapeNode(child, root, depth, seen);
  if (shaped.type === undefined && shaped.anyOf === undefined) return { type: 'string', ...shaped };
  return shaped;
}

function resolveRef(ref: string, root: Json, depth: number, seen: Set<string>): Json {
  if (!ref.startsWith('#/') || depth >= MAX_REF_DEPTH || seen.has(ref)) return {};
  let target: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) ? target[key] : undefined;
  }
  if (!isObject(target)) return { type: 'string' };
  const next = new Set(seen).add(ref);
  return shapeNode(target, root, depth + 1, next);
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
