/**
 * What the scripted model server records about each request, and wire-neutral readers over it:
 * the last user text, the tool calls and tool outputs in the conversation, the offered tool
 * names. Each reader understands both wires (Responses `input` items and Chat `messages`), so a
 * script written once answers either. Pure functions over recorded data.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The parsed JSON body of a model request (unknown fields kept as they came). */
export interface RequestBody {
  model?: unknown;
  input?: unknown;
  messages?: unknown;
  tools?: unknown;
  [key: string]: unknown;
}

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** The URL path without the query, e.g. `/v1/responses`. */
  path: string;
  /** Query parameters (last value wins). */
  query: Record<string, string>;
  /** Lower-cased header names, as Node reports them. */
  headers: IncomingHttpHeaders;
  /** The JSON body; `{}` for requests without one. */
  body: RequestBody;
  /** Which wire the request used. */
  wire: 'responses' | 'chat' | 'models' | 'other';
}

/** A tool call found in the conversation (either wire). */
export interface ConversationToolCall {
  type: 'function_call' | 'custom_tool_call';
  call_id: string;
  name: string;
  /** JSON arguments (function calls) or free-text input (custom tool calls). */
  arguments: string;
}

/** A tool output found in the conversation (either wire). */
export interface ConversationToolOutput {
  type: 'function_call_output' | 'custom_tool_call_output';
  call_id: string;
  output: string;
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): Obj[] {
  return Array.isArray(value) ? value.filter(isObj) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Flattens message content (a string, or parts with `text`) to plain text. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => str(part['text']))
    .join('');
}

/** The Responses `input` items of a request (empty for chat requests). */
export function inputItems(req: RecordedRequest): Obj[] {
  return asArray(req.body.input);
}

/** The chat `messages` of a request (empty for Responses requests). */
function chatMessages(req: RecordedRequest): Obj[] {
  return asArray(req.body.messages);
}

/** The text of the last user message, or null when there is none. */
export function lastUserText(req: RecordedRequest): string | null {
  const users = [
    ...inputItems(req).filter((i) => (i['type'] === 'message' || i['type'] === undefined) && i['role'] === 'user'),
    ...chatMessages(req).filter((m) => m['role'] === 'user'),
  ];
  const last = users.at(-1);
  return last === undefined ? null : contentText(last['content']);
}

/** The tool calls the model made earlier in the conversation, in order. */
export function functionCalls(req: RecordedRequest): ConversationToolCall[] {
  const fromItems = inputItems(req)
    .filter((i) => i['type'] === 'function_call' || i['type'] === 'custom_tool_call')
    .map((i): ConversationToolCall => ({
      type: i['type'] === 'custom_tool_call' ? 'custom_tool_call' : 'function_call',
      call_id: str(i['call_id']),
      name: str(i['name']),
      arguments: i['type'] === 'custom_tool_call' ? str(i['input']) : str(i['arguments']),
    }));
  const fromChat = chatMessages(req).flatMap((m) =>
    asArray(m['tool_calls']).map((c): ConversationToolCall => {
      const fn = isObj(c['function']) ? c['function'] : {};
      return { type: 'function_call', call_id: str(c['id']), name: str(fn['name']), arguments: str(fn['arguments']) };
    }),
  );
  return [...fromItems, ...fromChat];
}

/** The `function_call_output` / `custom_tool_call_output` items (chat: `tool` messages), in order. */
export function functionOutputs(req: RecordedRequest): ConversationToolOutput[] {
  const fromItems = inputItems(req)
    .filter((i) => i['type'] === 'function_call_output' || i['type'] === 'custom_tool_call_output')
    .map((i): ConversationToolOutput => ({
      type: i['type'] === 'custom_tool_call_output' ? 'custom_tool_call_output' : 'function_call_output',
      call_id: str(i['call_id']),
      output: contentText(i['output']),
    }));
  const fromChat = chatMessages(req)
    .filter((m) => m['role'] === 'tool')
    .map((m): ConversationToolOutput => ({
      type: 'function_call_output',
      call_id: str(m['tool_call_id']),
      output: contentText(m['content']),
    }));
  return [...fromItems, ...fromChat];
}

/** The names of the tools offered in the request (Responses and chat tool shapes). */
export function toolNames(req: RecordedRequest): string[] {
  return asArray(req.body.tools).map((t) => (isObj(t['function']) ? str(t['function']['name']) : str(t['name'])));
}

/** What the conversation ends with: a user message, a tool output (with its call), or something else. */
export type ConversationTail =
  | { kind: 'user'; text: string }
  | { kind: 'tool-output'; output: ConversationToolOutput; call: ConversationToolCall | null }
  | { kind: 'other' };

/** Classifies the last item of the conversation (either wire). */
export function conversationTail(req: RecordedRequest): ConversationTail {
  const last = inputItems(req).at(-1) ?? chatMessages(req).at(-1);
  if (last === undefined) return { kind: 'other' };
  const isUser = last['role'] === 'user' && (last['type'] === 'message' || last['type'] === undefined);
  if (isUser) return { kind: 'user', text: contentText(last['content']) };
  const isOutput = last['type'] === 'function_call_output' || last['type'] === 'custom_tool_call_output' || last['role'] === 'tool';
  if (!isOutput) return { kind: 'other' };
  const output = functionOutputs(req).at(-1);
  if (output === undefined) return { kind: 'other' };
  const call = functionCalls(req).find((c) => c.call_id === output.call_id) ?? null;
  return { kind: 'tool-output', output, call };
}
