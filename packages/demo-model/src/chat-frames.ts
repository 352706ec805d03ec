/**
 * Renders scripted steps as Chat Completions stream chunks (`data: {chunk}` frames, then
 * `data: [DONE]`): text as `delta.content`, tool calls as `delta.tool_calls` pieces keyed by
 * index, reasoning as `delta.reasoning_content` (the field OpenAI-compatible servers use).
 * Custom tool calls become function calls whose arguments are `{"input": …}`, which is how the
 * chat wire offers custom tools. Pure: the server writes the frames.
 */
import {
  resolveUsage,
  splitIntoDeltas,
  type FaultStep,
  type OutputStep,
  type ScriptedOutput,
} from './scripted-steps.js';

/** One chat stream frame: a JSON chunk, or the literal `[DONE]` terminator. */
export type ChatFrame = Record<string, unknown> | '[DONE]';

/** Per-response facts the chunks mention. */
export interface ChatContext {
  completionId: string;
  model: string;
  /** The request asked for `stream_options.include_usage`. */
  includeUsage: boolean;
}

type Delta = Record<string, unknown>;

/** Wraps one delta (or finish reason) in the chunk envelope. */
function chunk(ctx: ChatContext, delta: Delta, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: ctx.completionId,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

/** The deltas of one output; `toolIndex` is its position among the response's tool calls. */
function outputDeltas(out: ScriptedOutput, toolIndex: number): Delta[] {
  switch (out.kind) {
    case 'text':
      return splitIntoDeltas(out.text).map((content) => ({ content }));
    case 'reasoning':
      return splitIntoDeltas(out.summary).map((piece) => ({ reasoning_content: piece }));
    case 'function_call':
    case 'custom_tool_call': {
      const args = out.kind === 'function_call' ? out.arguments : JSON.stringify({ input: out.input });
      const head = { tool_calls: [{ index: toolIndex, id: out.callId, type: 'function', function: { name: (out.kind === 'function_call' ? (out.namespace ?? '') : '') + out.name, arguments: '' } }] };
      const pieces = splitIntoDeltas(args).map((piece) => ({ tool_calls: [{ index: toolIndex, function: { arguments: piece } }] }));
      return [head, ...pieces];
    }
  }
}

/** The chunks before the finish chunk: the role chunk and every output's deltas. */
function bodyChunks(outputs: ScriptedOutput[], ctx: ChatContext): Record<string, unknown>[] {
  const chunks = [chunk(ctx, { role: 'assistant', content: '' })];
  let toolIndex = 0;
  for (const out of outputs) {
    const isTool = out.kind === 'function_call' || out.kind === 'custom_tool_call';
    chunks.push(...outputDeltas(out, toolIndex).map((d) => chunk(ctx, d)));
    if (isTool) toolIndex += 1;
  }
  return chunks;
}

/** The usage chunk OpenAI sends last when `include_usage` was requested. */
function usageChunk(step: OutputStep, ctx: ChatContext): Record<string, unknown> {
  const u = resolveUsage(step.usage);
  return {
    id: ctx.completionId,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
    choices: [],
    usage: {
      prompt_tokens: u.input_tokens,
      completion_tokens: u.output_tokens,
      total_tokens: u.total_tokens,
      prompt_tokens_details: { cached_tokens: u.cached_tokens },
      completion_tokens_details: { reasoning_tokens: u.reasoning_tokens },
    },
  };
}

/** Every frame of a successful chat completion stream. */
export function completedChatFrames(step: OutputStep, ctx: ChatContext): ChatFrame[] {
  const hasTools = step.output.some((o) => o.kind === 'function_call' || o.kind === 'custom_tool_call');
  const frames: ChatFrame[] = [...bodyChunks(step.output, ctx), chunk(ctx, {}, hasTools ? 'tool_calls' : 'stop')];
  if (ctx.includeUsage) frames.push(usageChunk(step, ctx));
  frames.push('[DONE]');
  return frames;
}

/** The frames of a streamed fault on the chat wire. */
export function faultChatFrames(
  step: Extract<FaultStep, { fault: 'failed' | 'error-event' | 'incomplete' }>,
  ctx: ChatContext,
): ChatFrame[] {
  const opening = bodyChunks([], ctx);
  if (step.fault === 'incomplete') {
    const reason = step.reason === 'content_filter' ? 'content_filter' : 'length';
    return [...opening, chunk(ctx, { content: 'partial' }), chunk(ctx, {}, reason), '[DONE]'];
  }
  // OpenAI-compatible servers report a mid-stream failure as a data frame holding `error`.
  return [...opening, { error: { code: step.error.code, message: step.error.message, type: 'server_error', param: null } }];
}
