/**
 * Builds the Responses API request body from a `ModelRequest`, field for field as the reference
 * (Codex CLI 0.130.0) sends it to `POST {base_url}/responses`: tool choice `auto`, no parallel tool
 * calls, `store: false`, streaming, the thread id as prompt cache key, encrypted reasoning kept
 * when reasoning is on, and strict JSON-schema output when the turn asks for it. Pure.
 */
import type { ResponseCreateParamsStreaming, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import type { ModelRequest, ResponseItem, ToolSpec } from './types.js';

/**
 * Input items as sent. Item ids are dropped: with `store: false` the provider keeps nothing, so
 * an id would point at an item it cannot find (the reference does not serialise them either).
 */
export function toWireInput(items: ResponseItem[]): ResponseInputItem[] {
  const stripped = items.map((item) => {
    if (!('id' in item)) return item;
    const { id: _id, ...rest } = item;
    return rest;
  });
  // Our items are the wire shapes, but the SDK types assistant `output_text` messages and
  // id-less reasoning items more narrowly than the API accepts them.
  return stripped as unknown as ResponseInputItem[];
}

/** Tool specs as sent (our `ToolSpec` is already the wire shape). */
export function toWireTools(tools: ToolSpec[]): Tool[] {
  return tools as Tool[];
}

/** The streaming request body for `POST /responses`. */
export function buildResponsesRequest(request: ModelRequest): ResponseCreateParamsStreaming {
  const reasoning =
    request.reasoning === null
      ? null
      : {
          effort: request.reasoning.effort,
          ...(request.reasoning.summary === undefined || request.reasoning.summary === 'none' ? {} : { summary: request.reasoning.summary }),
        };
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    instructions: request.instructions,
    input: toWireInput(request.input),
    tools: toWireTools(request.tools),
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning,
    store: false,
    stream: true,
    include: reasoning === null ? [] : ['reasoning.encrypted_content'],
    prompt_cache_key: request.promptCacheKey,
  };
  if (request.outputSchema !== undefined && request.outputSchema !== null) {
    body.text = { format: { type: 'json_schema', name: 'output', schema: request.outputSchema, strict: true } };
  }
  return body;
}
