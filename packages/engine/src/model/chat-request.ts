/**
 * Builds a Chat Completions request from a `ModelRequest` for `wire_api = "chat"` providers.
 * History stays Responses items everywhere else; this is the one place they become chat
 * messages: instructions and developer text become system messages, tool calls join the
 * assistant message before them, tool outputs become `tool` messages, and reasoning items are
 * dropped (chat has no slot for them). Custom tools are offered as function tools taking
 * `{ input: string }`. Pure.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ModelRequest, ResponseContent, ResponseItem, ToolSpec } from './types.js';

/** The JSON schema of a custom tool offered on the chat wire. */
const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The complete free-form input of the tool.' } },
  required: ['input'],
  additionalProperties: false,
};

/** The text of content parts. */
function plainText(content: ResponseContent[]): string {
  return content.map((part) => ('text' in part ? part.text : '')).join('');
}

/** User content: a string when it is only text, else text and image parts. */
function userContent(content: ResponseContent[]): string | ChatCompletionContentPart[] {
  if (content.every((part) => part.type !== 'input_image')) return plainText(content);
  return content.map((part): ChatCompletionContentPart =>
    part.type === 'input_image'
      ? { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } }
      : { type: 'text', text: part.text },
  );
}

/** Appends a tool call to the assistant message that ends `messages`, or starts one. */
function pushToolCall(messages: ChatCompletionMessageParam[], call: ChatCompletionMessageFunctionToolCall): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.tool_calls = [...(last.tool_calls ?? []), call];
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** Converts one history item, appending to `messages`. */
function appendItem(messages: ChatCompletionMessageParam[], item: ResponseItem): void {
  switch (item.type) {
    case 'message':
      if (item.role === 'user') messages.push({ role: 'user', content: userContent(item.content) });
      else if (item.role === 'assistant') messages.push({ role: 'assistant', content: plainText(item.content) });
      // Many OpenAI-compatible servers reject the `developer` role; `system` means the same there.
      else messages.push({ role: 'system', content: plainText(item.content) });
      return;
    case 'function_call':
      pushToolCall(messages, { id: item.call_id, type: 'function', function: { name: (item.namespace ?? '') + item.name, arguments: item.arguments } });
      return;
    case 'custom_tool_call':
      pushToolCall(messages, { id: item.call_id, type: 'function', function: { name: item.name, arguments: JSON.stringify({ input: item.input }) } });
      return;
    case 'function_call_output':
    case 'custom_tool_call_output':
      if (typeof item.output === 'string') {
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
        return;
      }
      // Chat tool messages carry text only: the text parts go there, the images follow as a user message.
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output.flatMap((p) => (p.type === 'input_text' ? [p.text] : [])).join('\n') });
      if (item.output.some((p) => p.type === 'input_image')) messages.push({ role: 'user', content: userContent(item.output.filter((p) => p.type === 'input_image')) });
      return;
    case 'reasoning':
      return;
  }
}

/** Instructions plus history as chat messages. */
export function toChatMessages(instructions: string, items: ResponseItem[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = instructions === '' ? [] : [{ role: 'system', content: instructions }];
  for (const item of items) appendItem(messages, item);
  return messages;
}

/** Tool specs as chat function tools. */
export function toChatTools(tools: ToolSpec[]): ChatCompletionTool[] {
  // A namespace (MCP tools) becomes flat functions named `<namespace><name>`.
  const flat = tools.flatMap((tool) => (tool.type === 'namespace' ? tool.tools.map((t) => ({ ...t, name: tool.name + t.name })) : [tool]));
  return flat.map((tool): ChatCompletionTool => {
    if (tool.type === 'function') {
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters, ...(tool.strict ? { strict: true } : {}) },
      };
    }
    // Without the Responses grammar constraint, the model only knows the format if we say it.
    const grammar = tool.format.type === 'grammar' ? `\n\nThe input must match this ${tool.format.syntax} grammar:\n${tool.format.definition}` : '';
    return { type: 'function', function: { name: tool.name, description: `${tool.description}${grammar}`, parameters: CUSTOM_TOOL_PARAMETERS } };
  });
}

/** The streaming request body for `POST /chat/completions`. */
export function buildChatRequest(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.instructions, request.input),
    stream: true,
    stream_options: { include_usage: true },
  };
  // Providers reject `tool_choice` / `parallel_tool_calls` when no tools are offered.
  if (request.tools.length > 0) {
    body.tools = toChatTools(request.tools);
    body.tool_choice = 'auto';
    body.parallel_tool_calls = false;
  }
  if (request.reasoning !== null) body.reasoning_effort = request.reasoning.effort;
  if (request.outputSchema !== undefined && request.outputSchema !== null) {
    body.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: request.outputSchema, strict: true } };
  }
  return body;
}
