/**
 * A server's `elicitation/create`: the requested schema normalised to the MCP elicitation
 * subset (order kept, string `default` kept, legacy `enumNames` mapped to a titled `oneOf`), the
 * policy (`never` declines at once, except an empty form under danger-full-access, which is
 * accepted), the check of accepted content against the schema (a misfit is declined), and the
 * asking through the thread's ApprovalPort under the answer timeout and the turn's interrupt.
 */
import type { ApprovalPolicy, McpElicitationRequest, McpElicitationResponse, SandboxPolicy } from '@deputy/protocol';
import type { ApprovalPort, ElicitationOrigin } from '../approvals/approval-port.js';
import { raceAbort } from '../thread/race-abort.js';

/** Default answer timeout for elicitations (`mcp_elicitation_timeout_sec`), answered `cancel`. */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 600_000;

type Schema = Record<string, unknown>;

const STRING_KEYS = ['type', 'title', 'description', 'minLength', 'maxLength', 'format', 'default', 'enum', 'oneOf'];
const NUMBER_KEYS = ['type', 'title', 'description', 'minimum', 'maximum', 'default'];
const BOOLEAN_KEYS = ['type', 'title', 'description', 'default'];
const ARRAY_KEYS = ['type', 'title', 'description', 'minItems', 'maxItems', 'items', 'default'];

function pick(source: Schema, keys: readonly string[]): Schema {
  const out: Schema = {};
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}

/** One property reduced to the elicitation subset (primitive, enum, or multi-select array). */
function normaliseProperty(prop: Schema): Schema {
  const type = prop.type;
  if (type === 'number' || type === 'integer') return pick(prop, NUMBER_KEYS);
  if (type === 'boolean') return pick(prop, BOOLEAN_KEYS);
  if (type === 'array') return pick(prop, ARRAY_KEYS);
  const out = pick(prop, STRING_KEYS);
  out.type = 'string';
  const names = prop.enumNames;
  if (Array.isArray(prop.enum) && Array.isArray(names) && names.length === prop.enum.length && out.oneOf === undefined) {
    out.oneOf = prop.enum.map((value, i) => ({ const: value, title: String(names[i]) }));
    delete out.enum;
  }
  return out;
}

/** The requested schema as forwarded: a flat object of subset properties, order kept. */
export function normaliseElicitationSchema(schema: unknown): Schema {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Schema;
  const props = (s.properties && typeof s.properties === 'object' ? s.properties : {}) as Record<string, unknown>;
  const properties: Schema = {};
  for (const [name, prop] of Object.entries(props)) properties[name] = normaliseProperty((prop && typeof prop === 'object' ? prop : {}) as Schema);
  const out: Schema = { type: 'object', properties };
  const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string' && r in properties) : [];
  if (required.length > 0) out.required = required;
  return out;
}

/** The request the port sees, from the server's params. */
export function elicitationRequest(server: string, params: Record<string, unknown>): McpElicitationRequest {
  const isUrl = params.mode === 'url';
  return {
    kind: 'mcpElicitation',
    server,
    message: typeof params.message === 'string' ? params.message : '',
    mode: isUrl ? 'url' : 'form',
    requestedSchema: isUrl ? null : normaliseElicitationSchema(params.requestedSchema),
    url: isUrl && typeof params.url === 'string' ? params.url : null,
    elicitationId: typeof params.elicitationId === 'string' ? params.elicitationId : null,
  };
}

/** An answer without asking, or null when the user must be asked. */
export function automaticElicitationAnswer(policy: ApprovalPolicy, sandbox: SandboxPolicy, request: McpElicitationRequest): McpElicitationResponse | null {
  if (policy !== 'never') return null;
  const props = request.requestedSchema?.properties as Record<string, unknown> | undefined;
  if (sandbox.type === 'danger-full-access' && request.mode === 'form' && Object.keys(props ?? {}).length === 0) return { action: 'accept', content: {} };
  return { action: 'decline', content: null };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

function allowedValues(prop: Schema): unknown[] | null {
  if (Array.isArray(prop.enum)) return prop.enum as unknown[];
  if (Array.isArray(prop.oneOf)) return (prop.oneOf as Schema[]).map((o) => o.const);
  if (Array.isArray(prop.anyOf)) return (prop.anyOf as Schema[]).map((o) => o.const);
  return null;
}

/** Why `value` does not fit `prop`, or null. */
function misfit(name: string, value: unknown, prop: Schema): string | null {
  switch (prop.type) {
    case 'boolean':
      return typeof value === 'boolean' ? null : `${name}: expected a boolean`;
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${name}: expected a number`;
      if (prop.type === 'integer' && !Number.isInteger(value)) return `${name}: expected an integer`;
      if (typeof prop.minimum === 'number' && value < prop.minimum) return `${name}: below ${prop.minimum}`;
      if (typeof prop.maximum === 'number' && value > prop.maximum) return `${name}: above ${prop.maximum}`;
      return null;
    }
    case 'array': {
      if (!Array.isArray(value)) return `${name}: expected an array`;
      if (typeof prop.minItems === 'number' && value.length < prop.minItems) return `${name}: too few items`;
      if (typeof prop.maxItems === 'number' && value.length > prop.maxItems) return `${name}: too many items`;
      const allowed = allowedValues((prop.items ?? {}) as Schema);
      if (allowed && value.some((v) => !allowed.includes(v))) return `${name}: value not allowed`;
      return null;
    }
    default: {
      if (typeof value !== 'string') return `${name}: expected a string`;
      if (typeof prop.minLength === 'number' && value.length < prop.minLength) return `${name}: too short`;
      if (typeof prop.maxLength === 'number' && value.length > prop.maxLength) return `${name}: too long`;
      const allowed = allowedValues(prop);
      if (allowed && !allowed.includes(value)) return `${name}: value not allowed`;
      if (prop.format === 'email' && !EMAIL.test(value)) return `${name}: not an email`;
      if (prop.format === 'uri' && !URL.canParse(value)) return `${name}: not a URI`;
      if (prop.format === 'date' && !DATE.test(value)) return `${name}: not a date`;
      if (prop.format === 'date-time' && !DATE_TIME.test(value)) return `${name}: not a date-time`;
      return null;
    }
  }
}

/** Why accepted `content` does not fit the (normalised) schema, or null when it fits. */
export function checkElicitationContent(schema: Record<string, unknown> | null, content: Record<string, unknown> | null): string | null {
  if (schema === null) return null;
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const values = content ?? {};
  for (const name of (schema.required as string[] | undefined) ?? []) if (values[name] === undefined) return `${name}: required`;
  for (const [name, value] of Object.entries(values)) {
    const prop = props[name];
    if (!prop) return `${name}: not requested`;
    const why = misfit(name, value, prop);
    if (why) return why;
  }
  return null;
}

/** The answer relayed to the server: a malformed or misfitting answer becomes `decline`. */
export function relayedAnswer(request: McpElicitationRequest, answer: unknown): { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> } {
  const a = (answer && typeof answer === 'object' ? answer : {}) as { action?: unknown; content?: unknown };
  if (a.action === 'decline' || a.action === 'cancel') return { action: a.action };
  if (a.action !== 'accept') return { action: 'decline' };
  const content = a.content && typeof a.content === 'object' && !Array.isArray(a.content) ? (a.content as Record<string, unknown>) : request.mode === 'url' ? undefined : {};
  if (request.mode === 'form' && checkElicitationContent(request.requestedSchema, content ?? {}) !== null) return { action: 'decline' };
  return content === undefined ? { action: 'accept' } : { action: 'accept', content };
}

/** Everything one elicitation needs from its thread. */
export interface ElicitationContext {
  port: ApprovalPort;
  origin: ElicitationOrigin;
  policy: ApprovalPolicy;
  sandbox: SandboxPolicy;
  /** The correlated turn's signal (an interrupt answers `cancel`), if any. */
  turnSignal: AbortSignal | null;
  /** 0: wait forever. */
  timeoutMs: number;
}

/**
 * Runs one `elicitation/create` to its answer for the server: the automatic answers of the
 * policy, else the port (a port without `requestMcpElicitation` declines), bounded by the turn,
 * the server's own cancellation and the answer timeout (each answers `cancel`).
 */
export async function runElicitation(
  server: string,
  params: Record<string, unknown>,
  serverSignal: AbortSignal,
  ctx: ElicitationContext,
): Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }> {
  const request = elicitationRequest(server, params);
  const automatic = automaticElicitationAnswer(ctx.policy, ctx.sandbox, request);
  if (automatic) return relayedAnswer(request, automatic);
  if (!ctx.port.requestMcpElicitation) return { action: 'decline' };
  const signals = [serverSignal];
  if (ctx.turnSignal) signals.push(ctx.turnSignal);
  if (ctx.timeoutMs > 0) signals.push(AbortSignal.timeout(ctx.timeoutMs));
  const signal = AbortSignal.any(signals);
  try {
    const answer = await raceAbort(ctx.port.requestMcpElicitation(request, ctx.origin, signal), signal);
    return relayedAnswer(request, answer);
  } catch {
    return { action: signal.aborted ? 'cancel' : 'decline' };
  }
}
