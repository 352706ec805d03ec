/**
 * Argument parsing for the `codex` and `codex-reply` tools. The wording of every failure follows
 * the reference server (serde-style: "missing field `prompt`", "unknown variant …"), because
 * hosts show these texts to models and users. Unknown argument names are ignored, as in the
 * reference; `null` counts as absent for optional fields. Pure: no I/O.
 */
import type { ApprovalPolicy, SandboxMode } from '@deputy/protocol';

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

const APPROVAL_POLICIES = ['untrusted', 'on-failure', 'on-request', 'never'] as const;
const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
const CONFIG_PREFIX = 'Failed to parse configuration for Codex tool: ';

type FieldKind = 'string' | 'map' | readonly string[];

/** `codex` argument names (kebab-case, as on the wire) and how each is checked. */
const CODEX_FIELDS: Record<string, { key: keyof CodexArgs; kind: FieldKind }> = {
  prompt: { key: 'prompt', kind: 'string' },
  'approval-policy': { key: 'approvalPolicy', kind: APPROVAL_POLICIES },
  sandbox: { key: 'sandbox', kind: SANDBOX_MODES },
  cwd: { key: 'cwd', kind: 'string' },
  model: { key: 'model', kind: 'string' },
  profile: { key: 'profile', kind: 'string' },
  config: { key: 'config', kind: 'map' },
  'base-instructions': { key: 'baseInstructions', kind: 'string' },
  'developer-instructions': { key: 'developerInstructions', kind: 'string' },
  'compact-prompt': { key: 'compactPrompt', kind: 'string' },
};

/** Parses `codex` arguments (`undefined` when the call carried none). */
export function parseCodexArgs(args: Record<string, unknown> | undefined): Parsed<CodexArgs> {
  if (args === undefined) return { ok: false, message: 'Missing arguments for codex tool-call; the `prompt` field is required.' };
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const field = CODEX_FIELDS[name];
    if (!field || value === null) continue;
    const problem = checkKind(value, field.kind);
    if (problem) return { ok: false, message: CONFIG_PREFIX + problem };
    out[field.key] = value;
  }
  if (typeof out.prompt !== 'string') return { ok: false, message: `${CONFIG_PREFIX}missing field \`prompt\`` };
  return { ok: true, value: out as unknown as CodexArgs };
}

/** Parses `codex-reply` arguments; `threadId` wins over the deprecated `conversationId`. */
export function parseReplyArgs(args: Record<string, unknown> | undefined): Parsed<ReplyArgs> {
  if (args === undefined) {
    return { ok: false, message: 'Missing arguments for codex-reply tool-call; the `thread_id` and `prompt` fields are required.' };
  }
  for (const name of ['prompt', 'threadId', 'conversationId']) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    const problem = checkKind(value, 'string');
    if (problem) return { ok: false, message: CONFIG_PREFIX + problem };
  }
  if (typeof args.prompt !== 'string') return { ok: false, message: `${CONFIG_PREFIX}missing field \`prompt\`` };
  const rawId = typeof args.threadId === 'string' ? args.threadId : typeof args.conversationId === 'string' ? args.conversationId : undefined;
  if (rawId === undefined) return { ok: false, message: 'Failed to parse thread_id: either threadId or conversationId must be provided' };
  const id = parseUuid(rawId);
  if (!id.ok) return { ok: false, message: `Failed to parse thread_id: ${id.message}` };
  return { ok: true, value: { prompt: args.prompt, threadId: id.value, rawId } };
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

function checkKind(value: unknown, kind: FieldKind): string | null {
  if (kind === 'map') {
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : `invalid type: ${describeValue(value)}, expected a map`;
  }
  if (typeof value !== 'string') return `invalid type: ${describeValue(value)}, expected a string`;
  if (kind === 'string' || kind.includes(value)) return null;
  return `unknown variant \`${value}\`, expected one of ${kind.map((v) => `\`${v}\``).join(', ')}`;
}
