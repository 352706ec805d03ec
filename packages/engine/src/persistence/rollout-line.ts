/**
 * The rollout line format: one JSON object per line, `{ v: 1, type, ts, payload }`, with one zod
 * schema per line type. This module owns the shape of the facts a thread persists and the cheap
 * check applied when a line is read back; it does no I/O and knows nothing about files or the index.
 */
import { z } from 'zod';
import {
  ApprovalPolicySchema,
  DynamicToolSchema,
  SandboxModeSchema,
  ThreadItemSchema,
  ThreadTokenUsageSchema,
  TurnInfoSchema,
} from '@deputy/protocol/core';
import { compileExactCheck, type ExactCheck } from './exact-check.js';

/** The format version written in every line's `v`. */
export const ROLLOUT_FORMAT_VERSION = 1;

/** First line of every rollout: who the thread is and how it was configured when created. */
export const SessionMetaPayloadSchema = z.object({
  /** Thread id (UUIDv7); also the file name's suffix. */
  id: z.string(),
  /** Creation time, Unix milliseconds; the file's dated directory derives from it. */
  createdAtMs: z.number().int(),
  /** Absolute working directory of the thread. */
  cwd: z.string(),
  model: z.string(),
  /** Provider id from config (`openai`, `mock`, …). */
  modelProvider: z.string(),
  /** Which front door created the thread (`vscode`, `cli`, `exec`, `mcp`, …). */
  source: z.string(),
  /** The thread this one was forked from, if any. */
  forkedFromId: z.string().nullable(),
  /** Version of the program that wrote the rollout. */
  cliVersion: z.string(),
  approvalPolicy: ApprovalPolicySchema,
  sandboxMode: SandboxModeSchema,
  reasoningEffort: z.string().nullable(),
  baseInstructions: z.string().nullable(),
  developerInstructions: z.string().nullable(),
  /** The tools the client provided at start (kept by resume and fork); absent: none. */
  dynamicTools: z.array(DynamicToolSchema).optional(),
});
export type SessionMetaPayload = z.infer<typeof SessionMetaPayloadSchema>;

/** A turn began. */
export const TurnStartedPayloadSchema = z.object({
  turnId: z.string(),
  startedAtMs: z.number().int(),
  model: z.string(),
  cwd: z.string(),
  /**
   * The turn's context key (`contextKeyOf`): the context messages in the history match it from
   * this turn on. Absent in rollouts written before it was recorded (the context is then sent again).
   */
  contextKey: z.string().optional(),
  /** The first turn of the chain of work this turn belongs to; absent in older rollouts. */
  rootTurnId: z.string().optional(),
});

/** A Responses API item that went to or came from the model: the history replayed on resume. */
export const ResponseItemPayloadSchema = z.object({
  /** null for items recorded outside a turn (e.g. initial context). */
  turnId: z.string().nullable(),
  item: z.record(z.string(), z.unknown()),
});

/** A thread item reached its final state (for reading and display, not for the model). */
export const ItemPayloadSchema = z.object({
  turnId: z.string(),
  item: ThreadItemSchema,
  completedAtMs: z.number().int(),
  /**
   * An item not yet completed: the agent text streamed so far (written at a bounded rate), or a
   * tool item (command, patch, MCP or dynamic tool call) as it started, `inProgress`. A later
   * line for the same item id replaces it. A turn cut by a crash keeps the last one; a tool item
   * left `inProgress` is replayed (and written again) as `failed`.
   */
  partial: z.literal(true).optional(),
});

/** Token usage after a model request. */
export const TokenUsagePayloadSchema = z.object({ turnId: z.string(), usage: ThreadTokenUsageSchema });

/** A turn ended (completed, interrupted or failed). */
export const TurnEndedPayloadSchema = z.object({ turn: TurnInfoSchema });

/** History before this line is replaced by `summary` when the thread is resumed. */
export const CompactedPayloadSchema = z.object({ turnId: z.string(), summary: z.string() });

/** The thread was renamed; null clears the name. The last such line wins. */
export const ThreadNamePayloadSchema = z.object({ name: z.string().nullable() });

/** Drops the last `numTurns` turns when the rollout is replayed. */
export const RollbackPayloadSchema = z.object({ numTurns: z.number().int().nonnegative() });

/** Payload schema of each line type; the keys are the line types. */
export const ROLLOUT_PAYLOAD_SCHEMAS = {
  session_meta: SessionMetaPayloadSchema,
  turn_started: TurnStartedPayloadSchema,
  response_item: ResponseItemPayloadSchema,
  item: ItemPayloadSchema,
  token_usage: TokenUsagePayloadSchema,
  turn_ended: TurnEndedPayloadSchema,
  compacted: CompactedPayloadSchema,
  thread_name: ThreadNamePayloadSchema,
  rollback: RollbackPayloadSchema,
} as const;

/** The line types a rollout may contain. */
export type RolloutLineType = keyof typeof ROLLOUT_PAYLOAD_SCHEMAS;

function envelope<T extends RolloutLineType>(type: T) {
  return z.object({
    /** Format version, always 1 for now. */
    v: z.literal(ROLLOUT_FORMAT_VERSION),
    type: z.literal(type),
    /** When the fact was recorded, ISO 8601 UTC. */
    ts: z.string(),
    payload: ROLLOUT_PAYLOAD_SCHEMAS[type],
  });
}

/** One rollout line, discriminated on `type`. */
export const RolloutLineSchema = z.discriminatedUnion('type', [
  envelope('session_meta'),
  envelope('turn_started'),
  envelope('response_item'),
  envelope('item'),
  envelope('token_usage'),
  envelope('turn_ended'),
  envelope('compacted'),
  envelope('thread_name'),
  envelope('rollback'),
]);
export type RolloutLine = z.infer<typeof RolloutLineSchema>;

/** The payload type of one line type. */
export type RolloutPayload<T extends RolloutLineType> = Extract<RolloutLine, { type: T }>['payload'];

/** Builds a line stamped with `atMs` (default now). The writer serialises it as is. */
export function rolloutLine<T extends RolloutLineType>(type: T, payload: RolloutPayload<T>, atMs: number = Date.now()): Extract<RolloutLine, { type: T }> {
  // Key order v, type, ts, payload matches what the writer emits (it normalises the order too).
  return { v: ROLLOUT_FORMAT_VERSION, type, ts: new Date(atMs).toISOString(), payload } as Extract<RolloutLine, { type: T }>;
}

/** Result of checking one parsed line. */
export type RolloutLineCheck = { ok: true; line: RolloutLine } | { ok: false; error: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Result of checking one payload. */
export type RolloutPayloadCheck = { ok: true; payload: unknown } | { ok: false; error: string };

/**
 * Per line type, a check that zod would return the payload unchanged (`exact-check.ts`), compiled
 * on the type's first line so that loading this module costs nothing more.
 */
const EXACT_PAYLOAD_CHECKS: Partial<Record<RolloutLineType, ExactCheck>> = {};

/**
 * Checks the payload of a line of a known type. A `response_item` payload is checked by hand
 * (its item is an open record, so the hand check is the whole schema, and these lines dominate
 * big rollouts); every other payload goes through its zod schema unless its exact check shows
 * that zod would return it unchanged. The payload must be fresh from `JSON.parse` (it may be returned as is).
 */
export function checkRolloutPayload(type: RolloutLineType, payload: unknown): RolloutPayloadCheck {
  if (type === 'response_item') {
    if (!isPlainObject(payload) || !isPlainObject(payload.item)) return { ok: false, error: 'response_item payload needs an item object' };
    if (payload.turnId !== null && typeof payload.turnId !== 'string') return { ok: false, error: 'response_item turnId must be a string or null' };
    return { ok: true, payload };
  }
  // The payload as the writer wrote it is what zod would return: keep it rather than a copy.
  if ((EXACT_PAYLOAD_CHECKS[type] ??= compileExactCheck(ROLLOUT_PAYLOAD_SCHEMAS[type]))(payload)) return { ok: true, payload };
  const result = ROLLOUT_PAYLOAD_SCHEMAS[type].safeParse(payload);
  if (result.success) return { ok: true, payload: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at payload.${issue.path.join('.')}` : '';
  return { ok: false, error: `invalid ${type} payload${where}: ${issue?.message ?? 'invalid'}` };
}

/** True when `type` names a rollout line type. */
export function isRolloutLineType(type: unknown): type is RolloutLineType {
  return typeof type === 'string' && Object.hasOwn(ROLLOUT_PAYLOAD_SCHEMAS, type);
}

/**
 * Checks a value parsed from one line: the envelope and type by hand, then the payload with
 * `checkRolloutPayload`. The returned line is the input object (its payload replaced by the
 * checked copy, so schema defaults apply, or kept when that copy would equal it).
 */
export function checkRolloutLine(value: unknown): RolloutLineCheck {
  if (!isPlainObject(value)) return { ok: false, error: 'line is not a JSON object' };
  if (value.v !== ROLLOUT_FORMAT_VERSION) return { ok: false, error: `unsupported line version ${JSON.stringify(value.v)}` };
  const type = value.type;
  if (!isRolloutLineType(type)) return { ok: false, error: `unknown line type ${JSON.stringify(type)}` };
  if (typeof value.ts !== 'string') return { ok: false, error: 'line has no ts string' };
  const checked = checkRolloutPayload(type, value.payload);
  if (!checked.ok) return checked;
  value.payload = checked.payload;
  return { ok: true, line: value as RolloutLine };
}

/** Parses and checks one line of text (without its newline). */
export function parseRolloutLine(text: string): RolloutLineCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
  return checkRolloutLine(value);
}
