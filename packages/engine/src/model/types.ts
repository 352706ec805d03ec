/**
 * The model client's contract: what a request holds, and the provider-neutral stream of events
 * a response produces. History is kept as Responses API items for every wire; the chat wire
 * converts them at the edge. Nothing here knows about threads or front doors.
 */
import type { ReasoningEffort, ReasoningSummary, TokenUsage, TurnError } from '@deputy/protocol';

/** A Responses API item as sent in `input` or received in `output` (snake_case, as on the wire). */
export type ResponseItem =
  | { type: 'message'; id?: string; role: 'user' | 'assistant' | 'developer' | 'system'; content: ResponseContent[]; phase?: string }
  | { type: 'function_call'; id?: string; call_id: string; name: string; arguments: string; namespace?: string }
  | { type: 'function_call_output'; call_id: string; output: string | FunctionOutputContent[] }
  | { type: 'custom_tool_call'; id?: string; call_id: string; name: string; input: string }
  | { type: 'custom_tool_call_output'; call_id: string; output: string }
  | { type: 'reasoning'; id?: string; summary: { type: 'summary_text'; text: string }[]; content?: { type: 'reasoning_text'; text: string }[]; encrypted_content?: string | null };

/** Content parts of a message item. */
export type ResponseContent =
  | { type: 'input_text'; text: string }
  | { type: 'output_text'; text: string }
  | { type: 'input_image'; image_url: string; detail?: 'auto' | 'low' | 'high' };

/**
 * Content items of an array-valued `function_call_output.output` (MCP results with images, as
 * the reference sends them).
 */
export type FunctionOutputContent = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail?: 'auto' | 'low' | 'high' };

/** A JSON-argument function tool. */
export type FunctionToolSpec = { type: 'function'; name: string; description: string; parameters: Record<string, unknown>; strict: boolean };

/**
 * A tool offered to the model. `function` tools take JSON; `custom` tools take free text;
 * a `namespace` groups the function tools of one MCP server (Responses API only).
 */
export type ToolSpec =
  | FunctionToolSpec
  | { type: 'namespace'; name: string; description: string; tools: FunctionToolSpec[] }
  | { type: 'custom'; name: string; description: string; format: { type: 'grammar'; syntax: 'lark'; definition: string } | { type: 'text' } };

/** Everything one model request needs. */
export interface ModelRequest {
  model: string;
  instructions: string;
  input: ResponseItem[];
  tools: ToolSpec[];
  /** null for models without reasoning support. */
  reasoning: { effort: ReasoningEffort; summary?: ReasoningSummary } | null;
  /** The thread id: lets the provider reuse its prompt cache. */
  promptCacheKey: string;
  /** JSON Schema the final answer must follow (turn-level `outputSchema`). */
  outputSchema?: Record<string, unknown> | null;
}

/** Provider-neutral stream events (mapped from Responses or Chat Completions streams). */
export type ModelStreamEvent =
  /** An output item began; `item` is partial (text empty, arguments incomplete). */
  | { type: 'item.added'; item: ResponseItem }
  /** Text for an assistant message item. */
  | { type: 'text.delta'; itemId: string; delta: string }
  /** Reasoning summary text; `summaryIndex` numbers the summary parts. */
  | { type: 'reasoning.summary.delta'; itemId: string; delta: string; summaryIndex: number }
  /** Raw reasoning text (open-weight models). */
  | { type: 'reasoning.content.delta'; itemId: string; delta: string }
  /** An output item is complete and final. */
  | { type: 'item.done'; item: ResponseItem }
  /** The response finished; `usage` is null when the provider sent none. */
  | { type: 'completed'; responseId: string | null; usage: TokenUsage | null }
  /** A retryable failure happened and the client waits `delayMs` before attempt `attempt`. */
  | { type: 'retrying'; error: TurnError; attempt: number; delayMs: number };

/** A streaming model client bound to one provider. */
export interface ModelClient {
  /**
   * Streams one response. Throws a `ModelApiError` subclass (never a raw SDK error) when the
   * request fails for good, and an `AbortError`-class error when `signal` aborts.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent>;
}
