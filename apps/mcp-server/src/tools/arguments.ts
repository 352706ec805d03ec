/**
 * Argument parsing for the MCP tools, with the zod schemas of `@deputy/protocol/mcp-tools` (the
 * same schemas `tools/list` shows). The wording of every failure follows the reference server
 * (serde-style: "missing field `prompt`", "unknown variant …"), because hosts show these texts to
 * models and users; as with serde, the first bad argument in the order the client sent them is
 * reported, and a missing one after all others. Unknown argument names are ignored, as in the
 * reference; `null` counts as absent for optional fields. Pure: no I/O.
 */
import type { ApprovalPolicy, SandboxMode } from '@deputy/protocol';
import { CodexReplyToolArgsSchema, CodexToolArgsSchema } from '@deputy/protocol/mcp-tools';
import type { z } from 'zod';

/** The `codex` tool's arguments, in engine vocabulary. */
export interface CodexArgs {
  prompt: string;
  approvalPolicy?: ApprovalPolicy;
  sandbox?: SandboxMode;
  cwd?: string;
  model?: string;
  profile?: string;
  config?: Record<string, unknown>;
  baseInstructions?: string;
  developerInstructions?: string;
  compactPrompt?: string;
}

/** The `codex-reply` tool's arguments. */
export interface ReplyArgs {
  prompt: string;
  /** Normalised (lower-case, hyphenated) thread id. */
  threadId: string;
  /** The id as the client sent it (used in error texts). */
  rawId: string;
}

/** Either the parsed arguments or the exact error text for an `isError` result. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const CONFIG_PREFIX = 'Failed to parse configuration for Codex tool: ';

/**
 * Parses `args` with a tool's argument schema: `null` values are dropped first (absent), unknown
 * names are stripped by the schema, and a failure is the serde-style text of the first problem.
 */
export function parseToolArgs<S extends z.ZodObject>(schema: S, args: Record<string, unknown>): Parsed<z.infer<S>> {
  const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
  const result = schema.safeParse(present, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const order = Object.keys(present);
  const rank = (issue: z.core.$ZodIssue): number => {
    const at = order.indexOf(String(issue.path[0]));
    return at < 0 ? order.length : at;
  };
  const first = [...result.error.issues].sort((a, b) => rank(a) - rank(b))[0];
  return { ok: false, message: first === undefined ? 'invalid arguments' : issueText(first) };
}

/** Parses `codex` arguments (`undefined` when the call carried none). */
export function parseCodexArgs(args: Record<string, unknown> | undefined): Parsed<CodexArgs> {
  if (args === undefined) return { ok: false, message: 'Missing arguments for codex tool-call; the `prompt` field is required.' };
  const parsed = parseToolArgs(CodexToolArgsSchema, args);
  if (!parsed.ok) return { ok: false, message: CONFIG_PREFIX + parsed.message };
  const { prompt, 'approval-policy': approvalPolicy, sandbox, cwd, model, profile, config } = parsed.value;
  const { 'base-instructions': baseInstructions, 'developer-instructions': developerInstructions, 'compact-prompt': compactPrompt } = parsed.value;
  const named = { approvalPolicy, sandbox, cwd, model, profile, config, baseInstructions, developerInstructions, compactPrompt };
  return { ok: true, value: { prompt, ...withoutUndefined(named) } };
}

/** Parses `codex-reply` arguments; `threadId` wins over the deprecated `conversationId`. */
export function parseReplyArgs(args: Record<string, unknown> | undefined): Parsed<ReplyArgs> {
  if (args === undefined) {
    return { ok: false, message: 'Missing arguments for codex-reply tool-call; the `thread_id` and `prompt` fields are required.' };
  }
  const parsed = parseToolArgs(CodexReplyToolArgsSchema, args);
  if (!parsed.ok) return { ok: false, message: CONFIG_PREFIX + parsed.message };
  const { prompt, threadId, conversationId } = parsed.value;
  const rawId = threadId ?? conversationId;
  if (rawId === undefined) return { ok: false, message: 'Failed to parse thread_id: either threadId or conversationId must be provided' };
  const id = parseUuid(rawId);
  if (!id.ok) return { ok: false, message: `Failed to parse thread_id: ${id.message}` };
  return { ok: true, value: { prompt, threadId: id.value, rawId } };
}

/**
 * Parses a UUID the way hosts send thread ids: hyphenated or simple, optionally braced or with a
 * `urn:uuid:` prefix. Returns the canonical lower-case hyphenated form.
 */
export function parseUuid(raw: string): Parsed<string> {
  let body = raw;
  if (body.toLowerCase().startsWith('urn:uuid:')) body = body.slice('urn:uuid:'.length);
  else if (body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1);
  const offset = raw.length - body.length - (raw.startsWith('{') ? 1 : 0);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (!/[0-9a-fA-F-]/.test(ch)) {
      return { ok: false, message: `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${ch}\` at ${offset + i + 1}` };
    }
  }
  const hex = body.replaceAll('-', '');
  const hyphenated = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(body);
  if (!hyphenated && !(body.length === 32 && hex.length === 32)) {
    return { ok: false, message: `invalid length: expected 36 characters (8-4-4-4-12) or 32 hex digits, found ${body.length}` };
  }
  const h = hex.toLowerCase();
  return { ok: true, value: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` };
}

/** A serde-style description of what was found, e.g. "integer `42`" or "sequence". */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return 'sequence';
  return 'map';
}

/** The serde-style text of one zod issue, e.g. "invalid type: integer `42`, expected a string". */
function issueText(issue: z.core.$ZodIssue): string {
  const field = String(issue.path[0] ?? '');
  const input = (issue as { input?: unknown }).input;
  if (input === undefined) return `missing field \`${field}\``;
  switch (issue.code) {
    case 'invalid_value':
      if (typeof input !== 'string') return `invalid type: ${describeValue(input)}, expected a string`;
      return `unknown variant \`${input}\`, expected one of ${issue.values.map((v) => `\`${String(v)}\``).join(', ')}`;
    case 'invalid_type':
      return `invalid type: ${describeValue(input)}, expected ${expectation(issue.expected)}`;
    case 'too_small':
      return `invalid value: ${describeValue(input)}, expected at least ${String(issue.minimum)}`;
    case 'too_big':
      return `invalid value: ${describeValue(input)}, expected at most ${String(issue.maximum)}`;
    default:
      return `invalid value: ${describeValue(input)} for \`${field}\`: ${issue.message}`;
  }
}

/** What serde says a field expects, for zod's `expected` type name. */
function expectation(expected: string): string {
  if (expected === 'record' || expected === 'object') return 'a map';
  if (expected === 'int') return 'an integer';
  if (expected === 'array') return 'a sequence';
  return `a ${expected}`;
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
