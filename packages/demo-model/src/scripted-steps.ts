/**
 * The scripting vocabulary of the scripted model server: a `Step` answers one model request,
 * either with high-level outputs to stream (text, tool calls, reasoning) or with a fault. The
 * builders here give every output a stable, process-unique id (`msg_N`, `call_N`, `rs_N`) so a
 * test can predict what the client will see. Pure data: no I/O, no test framework.
 */

/** An assistant message streamed as several text deltas. */
export interface TextOutput {
  kind: 'text';
  /** Item id, e.g. `msg_3`. */
  id: string;
  text: string;
}

/** A function (JSON-argument) tool call. */
export interface FunctionCallOutput {
  kind: 'function_call';
  /** Item id, e.g. `fc_3`. */
  id: string;
  /** The call id the tool output must answer, e.g. `call_3`. */
  callId: string;
  name: string;
  /** The arguments as the JSON text the model "wrote". */
  arguments: string;
  /** The Responses namespace the function belongs to (namespaced tools), if any. */
  namespace?: string;
}

/** A custom (free-text) tool call such as `apply_patch` (Responses wire). */
export interface CustomToolCallOutput {
  kind: 'custom_tool_call';
  id: string;
  callId: string;
  name: string;
  input: string;
}

/** A reasoning item with one summary part. */
export interface ReasoningOutput {
  kind: 'reasoning';
  /** Item id, e.g. `rs_3`. */
  id: string;
  summary: string;
  /** Opaque blob sent as `encrypted_content` on the done item. */
  encryptedContent: string | null;
}

/** One high-level output of a scripted response. */
export type ScriptedOutput = TextOutput | FunctionCallOutput | CustomToolCallOutput | ReasoningOutput;

/** Token counts reported in `response.completed` (chat: in the final usage chunk). */
export interface UsageSpec {
  input_tokens?: number;
  cached_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
}

/** A normal response: the outputs, streamed in order. */
export interface OutputStep {
  output: ScriptedOutput[];
  usage?: UsageSpec;
  /** Pause between two events (pacing; lets a test abort mid-stream). */
  delayMs?: number;
}

/** Faults a step can inject instead of (or in the middle of) a normal response. */
export type FaultStep =
  /** Answer with this HTTP status and a JSON error body (OpenAI's shape unless `body` is given). */
  | { fault: 'http'; status: number; headers?: Record<string, string>; body?: unknown }
  /** Send `after` events of the response, then cut the connection. */
  | { fault: 'drop-mid-stream'; after: number; output?: ScriptedOutput[]; delayMs?: number }
  /** Send `after` events, then nothing more; the socket stays open until the client gives up. */
  | { fault: 'stall'; after: number; output?: ScriptedOutput[]; delayMs?: number }
  /** Stream a `response.failed` event carrying `error` (chat: an `error` data frame). */
  | { fault: 'failed'; error: { code: string; message: string } }
  /** Stream a top-level `error` event (chat: an `error` data frame). */
  | { fault: 'error-event'; error: { code: string; message: string } }
  /** Stream a `response.incomplete` event (chat: `finish_reason: "length"`). */
  | { fault: 'incomplete'; reason: string }
  /** Answer 400 with OpenAI's `context_length_exceeded` error body. */
  | { fault: 'context-too-long' };

/** One scripted answer to one request. */
export type Step = OutputStep | FaultStep;

let nextId = 1;

/** Returns the next process-unique number used in builder ids. */
function takeId(): number {
  return nextId++;
}

/** An assistant message with `value` as its text. */
export function text(value: string): TextOutput {
  return { kind: 'text', id: `msg_${takeId()}`, text: value };
}

/**
 * A function tool call. `args` is serialised with `JSON.stringify` unless it is already a string
 * (so a test can send malformed JSON on purpose).
 */
export function functionCall(name: string, args: unknown, callId?: string): FunctionCallOutput {
  const n = takeId();
  return {
    kind: 'function_call',
    id: `fc_${n}`,
    callId: callId ?? `call_${n}`,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  };
}

/** A custom tool call with free-text `input` (e.g. an `apply_patch` patch). */
export function customToolCall(name: string, input: string, callId?: string): CustomToolCallOutput {
  const n = takeId();
  return { kind: 'custom_tool_call', id: `ctc_${n}`, callId: callId ?? `call_${n}`, name, input };
}

/** A reasoning item whose summary is `summary`. */
export function reasoning(summary: string, encryptedContent: string | null = null): ReasoningOutput {
  return { kind: 'reasoning', id: `rs_${takeId()}`, summary, encryptedContent };
}

/** True when `step` is a fault rather than a normal response. */
export function isFaultStep(step: Step): step is FaultStep {
  return 'fault' in step;
}

/**
 * Splits `value` into small pieces (by code point, so no surrogate pair is cut) so clients see
 * several deltas per item. An empty string yields no pieces.
 */
export function splitIntoDeltas(value: string, size = 6): string[] {
  const chars = Array.from(value);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

/** Usage with defaults filled in and `total_tokens` computed. */
export function resolveUsage(spec: UsageSpec | undefined): Required<UsageSpec> & { total_tokens: number } {
  const input = spec?.input_tokens ?? 100;
  const output = spec?.output_tokens ?? 20;
  return {
    input_tokens: input,
    cached_tokens: spec?.cached_tokens ?? 0,
    output_tokens: output,
    reasoning_tokens: spec?.reasoning_tokens ?? 0,
    total_tokens: input + output,
  };
}

/** The text answered when no step is queued and no handler is set. */
export const NO_RESPONSE_QUEUED_TEXT = '(scripted model: no response queued)';
