/**
 * The tools a thread's client provided (`DynamicTool`), as a `ToolSource` for the registry:
 * offered as the reference offers them (a top-level function, or a Responses `namespace` holding
 * the namespaced ones; flat `<namespace><name>` functions on the Chat Completions wire), and each
 * call sent to the front door through `ToolContext.callClientTool` with its `dynamicToolCall`
 * item. The client's content goes back to the model as content items; a failure the client
 * reports, a timeout or a vanished client is output the model reads. It never runs anything itself.
 */
import type { DynamicTool, DynamicToolCallResponse, ThreadItem } from '@deputy/protocol';
import type { FunctionOutputContent, FunctionToolSpec, ToolSpec } from '../../model/types.js';
import type { ToolContext, ToolDefinition, ToolOutput, ToolSource } from '../types.js';

/** What the model reads when no client answered (the reference's wording). */
export const CLIENT_TOOL_CANCELLED_TEXT = 'dynamic tool call was cancelled before receiving a response';

/** What the model reads first when the client reported a failure. */
export const CLIENT_TOOL_FAILED_TEXT = 'The client reported that this tool call failed.';

/** The route key of a tool: `<namespace><name>`, as the registry receives namespaced calls. */
function routeOf(tool: Pick<DynamicTool, 'namespace' | 'name'>): string {
  return (tool.namespace ?? '') + tool.name;
}

/** The client tools of one thread. */
export class DynamicToolSource implements ToolSource {
  readonly #routes = new Map<string, DynamicTool>();

  constructor(readonly tools: readonly DynamicTool[]) {
    for (const tool of tools) this.#routes.set(routeOf(tool), tool);
  }

  specs(): ToolSpec[] {
    const specs: ToolSpec[] = [];
    const namespaces = new Map<string, Extract<ToolSpec, { type: 'namespace' }>>();
    for (const tool of this.tools) {
      const fn: FunctionToolSpec = { type: 'function', name: tool.name, description: tool.description, strict: false, parameters: tool.inputSchema };
      if (tool.namespace === null) {
        specs.push(fn);
        continue;
      }
      let ns = namespaces.get(tool.namespace);
      if (!ns) {
        ns = { type: 'namespace', name: tool.namespace, description: tool.namespaceDescription ?? `Tools in the ${tool.namespace} namespace.`, tools: [] };
        namespaces.set(tool.namespace, ns);
        specs.push(ns);
      }
      ns.tools.push(fn);
    }
    return specs;
  }

  find(name: string): ToolDefinition<unknown> | undefined {
    const tool = this.#routes.get(name);
    if (!tool) return undefined;
    return {
      name,
      spec: () => {
        throw new Error('client tools are offered through DynamicToolSource.specs');
      },
      parse: (raw: string) => raw,
      handle: (raw, ctx) => callClientTool(tool, raw as string, ctx),
    };
  }
}

/** Runs one call through the front door, with its item's lifecycle. */
async function callClientTool(tool: DynamicTool, raw: string, ctx: ToolContext): Promise<ToolOutput> {
  const startedAt = Date.now();
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : (JSON.parse(raw) as unknown);
  } catch (error) {
    return { output: `failed to parse function arguments: ${(error as Error).message}`, success: false };
  }
  const started: Extract<ThreadItem, { type: 'dynamicToolCall' }> = {
    type: 'dynamicToolCall',
    id: ctx.callId,
    tool: tool.name,
    namespace: tool.namespace,
    arguments: args,
    status: 'inProgress',
    contentItems: null,
    success: null,
    durationMs: null,
  };
  ctx.emit({ type: 'item.started', item: started, atMs: startedAt });
  const answer = ctx.callClientTool ? await ctx.callClientTool({ callId: ctx.callId, tool: tool.name, namespace: tool.namespace, arguments: args }) : 'cancelled';
  const durationMs = Date.now() - startedAt;
  if (answer === 'cancelled' || answer === 'timedOut') {
    const text = answer === 'timedOut' ? `${CLIENT_TOOL_CANCELLED_TEXT} (no answer within the timeout)` : CLIENT_TOOL_CANCELLED_TEXT;
    ctx.emit({ type: 'item.completed', item: { ...started, status: 'failed', contentItems: [], success: false, durationMs }, atMs: Date.now() });
    return { output: text, success: false };
  }
  ctx.emit({
    type: 'item.completed',
    item: { ...started, status: answer.success ? 'completed' : 'failed', contentItems: answer.contentItems, success: answer.success, durationMs },
    atMs: Date.now(),
  });
  return outputOf(answer);
}

/** The client's answer as the model reads it: content items, led by a failure note when it failed. */
export function outputOf(answer: DynamicToolCallResponse): ToolOutput {
  const items: FunctionOutputContent[] = answer.contentItems.map((item) =>
    item.type === 'inputText' ? { type: 'input_text', text: item.text } : { type: 'input_image', image_url: item.imageUrl },
  );
  if (!answer.success) items.unshift({ type: 'input_text', text: CLIENT_TOOL_FAILED_TEXT });
  // `output` is the text form for front doors; the model gets `contentItems` (images included).
  const text = items.flatMap((i) => (i.type === 'input_text' ? [i.text] : [])).join('\n');
  return { output: text, success: answer.success, contentItems: items };
}
