/**
 * Renders scripted steps as OpenAI Responses API stream events, in the order and shape OpenAI
 * sends them (`response.created` … `response.completed`, each with a `sequence_number`). Pure:
 * returns frames; writing them to a socket is the server's job.
 */
import {
  resolveUsage,
  splitIntoDeltas,
  type FaultStep,
  type OutputStep,
  type ScriptedOutput,
} from './scripted-steps.js';

/** One server-sent event: `event: <type>` plus its JSON `data` (which repeats the type). */
export interface SseFrame {
  event: string | null;
  data: Record<string, unknown>;
}

/** Per-response facts the frames mention. */
export interface ResponseContext {
  responseId: string;
  model: string;
}

type Data = Record<string, unknown>;

/** The `response` object carried by lifecycle events. */
function responseObject(ctx: ResponseContext, status: string, extra: Data = {}): Data {
  return {
    id: ctx.responseId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: ctx.model,
    output: [],
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    error: null,
    incomplete_details: null,
    usage: null,
    ...extra,
  };
}

/** The final (done) form of an output item. */
export function doneItem(out: ScriptedOutput): Data {
  switch (out.kind) {
    case 'text':
      return {
        id: out.id,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: out.text, annotations: [] }],
      };
    case 'function_call':
      return { id: out.id, type: 'function_call', status: 'completed', call_id: out.callId, name: out.name, arguments: out.arguments, ...namespaceOf(out) };
    case 'custom_tool_call':
      return { id: out.id, type: 'custom_tool_call', status: 'completed', call_id: out.callId, name: out.name, input: out.input };
    case 'reasoning':
      return {
        id: out.id,
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: out.summary }],
        ...(out.encryptedContent === null ? {} : { encrypted_content: out.encryptedContent }),
      };
  }
}

/** The partial (just added) form of an output item. */
function addedItem(out: ScriptedOutput): Data {
  switch (out.kind) {
    case 'text':
      return { id: out.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    case 'function_call':
      return { id: out.id, type: 'function_call', status: 'in_progress', call_id: out.callId, name: out.name, arguments: '', ...namespaceOf(out) };
    case 'custom_tool_call':
      return { id: out.id, type: 'custom_tool_call', status: 'in_progress', call_id: out.callId, name: out.name, input: '' };
    case 'reasoning':
      return { id: out.id, type: 'reasoning', summary: [] };
  }
}

/** The events between `output_item.added` and `output_item.done` of one item. */
function innerEvents(out: ScriptedOutput, outputIndex: number): Data[] {
  const at = { item_id: out.id, output_index: outputIndex };
  switch (out.kind) {
    case 'text': {
      const part = { ...at, content_index: 0 };
      return [
        { type: 'response.content_part.added', ...part, part: { type: 'output_text', text: '', annotations: [] } },
        ...splitIntoDeltas(out.text).map((delta) => ({ type: 'response.output_text.delta', ...part, delta, logprobs: [] })),
        { type: 'response.output_text.done', ...part, text: out.text, logprobs: [] },
        { type: 'response.content_part.done', ...part, part: { type: 'output_text', text: out.text, annotations: [] } },
      ];
    }
    case 'function_call':
      return [
        ...splitIntoDeltas(out.arguments).map((delta) => ({ type: 'response.function_call_arguments.delta', ...at, delta })),
        { type: 'response.function_call_arguments.done', ...at, arguments: out.arguments },
      ];
    case 'custom_tool_call':
      return [
        ...splitIntoDeltas(out.input).map((delta) => ({ type: 'response.custom_tool_call_input.delta', ...at, delta })),
        { type: 'response.custom_tool_call_input.done', ...at, input: out.input },
      ];
    case 'reasoning': {
      const part = { ...at, summary_index: 0 };
      return [
        { type: 'response.reasoning_summary_part.added', ...part, part: { type: 'summary_text', text: '' } },
        ...splitIntoDeltas(out.summary).map((delta) => ({ type: 'response.reasoning_summary_text.delta', ...part, delta })),
        { type: 'response.reasoning_summary_text.done', ...part, text: out.summary },
        { type: 'response.reasoning_summary_part.done', ...part, part: { type: 'summary_text', text: out.summary } },
      ];
    }
  }
}

/** Numbers the frames 0…n-1 as OpenAI does and names each SSE event after its `type`. */
function sequence(data: Data[]): SseFrame[] {
  return data.map((d, i) => ({ event: String(d['type']), data: { ...d, sequence_number: i } }));
}

/** The opening events plus every output item's lifecycle, without a terminal event. */
function bodyEvents(outputs: ScriptedOutput[], ctx: ResponseContext): Data[] {
  const events: Data[] = [
    { type: 'response.created', response: responseObject(ctx, 'in_progress') },
    { type: 'response.in_progress', response: responseObject(ctx, 'in_progress') },
  ];
  outputs.forEach((out, index) => {
    events.push({ type: 'response.output_item.added', output_index: index, item: addedItem(out) });
    events.push(...innerEvents(out, index));
    events.push({ type: 'response.output_item.done', output_index: index, item: doneItem(out) });
  });
  return events;
}

/** Every event of a successful response, ending with `response.completed`. */
export function completedResponseFrames(step: OutputStep, ctx: ResponseContext): SseFrame[] {
  const usage = resolveUsage(step.usage);
  const completed = responseObject(ctx, 'completed', {
    output: step.output.map(doneItem),
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
      total_tokens: usage.total_tokens,
    },
  });
  return sequence([...bodyEvents(step.output, ctx), { type: 'response.completed', response: completed }]);
}

/** The frames of a streamed fault (`failed`, `error-event`, `incomplete`). */
export function faultResponseFrames(
  step: Extract<FaultStep, { fault: 'failed' | 'error-event' | 'incomplete' }>,
  ctx: ResponseContext,
): SseFrame[] {
  const opening = bodyEvents([], ctx);
  switch (step.fault) {
    case 'failed':
      return sequence([
        ...opening,
        { type: 'response.failed', response: responseObject(ctx, 'failed', { error: step.error }) },
      ]);
    case 'error-event':
      return sequence([...opening, { type: 'error', code: step.error.code, message: step.error.message, param: null }]);
    case 'incomplete':
      return sequence([
        ...opening,
        { type: 'response.incomplete', response: responseObject(ctx, 'incomplete', { incomplete_details: { reason: step.reason } }) },
      ]);
  }
}

/** The `namespace` field of a namespaced function call (absent otherwise). */
function namespaceOf(out: { namespace?: string }): { namespace?: string } {
  return out.namespace === undefined ? {} : { namespace: out.namespace };
}
