/**
 * The MCP tools a thread's model sees, as a `ToolSource` for the registry: one Responses
 * namespace per ready server (flat `<namespace><name>` functions on the Chat Completions wire),
 * named by `naming.ts`, with shaped input schemas and the tool filters applied; and the call
 * path: argument parsing, approval (`approval.ts`), `tools/call` under the server's timeout with
 * the `_meta` of the reference, the `mcpToolCall` item's lifecycle and the model's output
 * (`output.ts`). Routing always uses the raw tool name.
 */
import type { ThreadItem } from '@deputy/protocol';
import { codexPermissionProfile, codexSandboxPolicy } from '../exec/sandbox-grants.js';
import type { FunctionToolSpec, ToolSpec } from '../model/types.js';
import type { ToolContext, ToolDefinition, ToolOutput, ToolSource } from '../tools/types.js';
import { decideMcpApproval, NEVER_DECLINE_TEXT } from './approval.js';
import type { McpManager } from './manager.js';
import { nameTools, type NamedTool } from './naming.js';
import { formatCallResult, textBody, wallTimePrefix } from './output.js';
import { resourceTools } from './resource-tools.js';
import { shapeInputSchema } from './schema-shape.js';

/** Options of the source. */
export interface McpToolSourceOptions {
  /** `mcp_readable_long_names`: see `nameTools`. */
  readableLongNames?: boolean;
}

/** The MCP tools of one thread. */
export class McpToolSource implements ToolSource {
  readonly #routes = new Map<string, NamedTool>();
  /** (server, raw tool) pairs approved "for session". */
  readonly #sessionApproved = new Set<string>();
  readonly #resourceTools: ToolDefinition<unknown>[];

  constructor(
    readonly manager: McpManager,
    readonly options: McpToolSourceOptions = {},
  ) {
    this.#resourceTools = resourceTools(manager);
  }

  prepare(signal: AbortSignal): Promise<void> {
    return this.manager.prepare(signal);
  }

  specs(wire: 'responses' | 'chat'): ToolSpec[] {
    const named = this.#name();
    const byNamespace = new Map<string, { server: string; tools: FunctionToolSpec[] }>();
    for (const t of named) {
      const raw = this.manager.tool(t.server, t.tool);
      if (!raw) continue;
      const entry = byNamespace.get(t.namespace) ?? { server: t.server, tools: [] };
      entry.tools.push({ type: 'function', name: t.name, description: raw.description ?? '', strict: false, parameters: shapeInputSchema(raw.inputSchema) });
      byNamespace.set(t.namespace, entry);
    }
    const namespaces = [...byNamespace.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const specs: ToolSpec[] = [];
    for (const [namespace, { server, tools }] of namespaces) {
      tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (wire === 'chat') specs.push(...tools.map((t) => ({ ...t, name: namespace + t.name })));
      else specs.push({ type: 'namespace', name: namespace, description: this.manager.instructions(server) ?? `Tools in the ${namespace} namespace.`, tools });
    }
    if (this.manager.hasServers) specs.push(...this.#resourceTools.map((t) => t.spec(wire)));
    return specs;
  }

  find(name: string): ToolDefinition<unknown> | undefined {
    if (this.manager.hasServers) {
      const resource = this.#resourceTools.find((t) => t.name === name);
      if (resource) return resource;
    }
    if (!this.#routes.has(name)) this.#name();
    const route = this.#routes.get(name);
    if (!route || !this.manager.tool(route.server, route.tool)) return undefined;
    return {
      name,
      // As the reference: a server that allows it, or a tool annotated read-only.
      supportsParallel: this.manager.config(route.server)?.supportsParallelToolCalls === true || this.manager.tool(route.server, route.tool)?.annotations?.readOnlyHint === true,
      spec: () => {
        throw new Error('MCP tools are offered through McpToolSource.specs');
      },
      parse: (raw: string) => raw,
      handle: (raw, ctx) => this.#call(route, raw as string, ctx),
    };
  }

  /** Names the tools of every ready server and refreshes the route map. */
  #name(): NamedTool[] {
    const refs = this.manager.statuses().flatMap((s) => s.tools.map((t) => ({ server: s.name, tool: t.name })));
    const named = nameTools(refs, { readableLongNames: this.options.readableLongNames === true });
    this.#routes.clear();
    for (const t of named) this.#routes.set(t.namespace + t.name, t);
    return named;
  }

  async #call(route: NamedTool, raw: string, ctx: ToolContext): Promise<ToolOutput> {
    const startedAt = Date.now();
    const { server, tool } = route;
    let args: unknown;
    try {
      args = raw.trim() === '' ? undefined : (JSON.parse(raw) as unknown);
    } catch (error) {
      const text = `err: ${(error as Error).message}`;
      const item = baseItem(ctx.callId, server, tool, raw);
      ctx.emit({ type: 'item.started', item, atMs: startedAt });
      ctx.emit({ type: 'item.completed', item: { ...item, status: 'failed', error: text, durationMs: 0 }, atMs: Date.now() });
      return { output: wallTimePrefix(Date.now() - startedAt) + textBody(text), success: false };
    }
    const started = baseItem(ctx.callId, server, tool, args ?? null);
    ctx.emit({ type: 'item.started', item: started, atMs: startedAt });
    const fail = (message: string, durationMs: number | null): ToolOutput => {
      ctx.emit({ type: 'item.completed', item: { ...started, status: 'failed', error: message, durationMs }, atMs: Date.now() });
      return { output: wallTimePrefix(Date.now() - startedAt) + textBody(message), success: false };
    };

    const declined = await this.#approve(server, tool, args, ctx);
    if (declined) return fail(declined, 0);

    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return fail(callError(server, tool, `MCP tool arguments must be a JSON object, got ${JSON.stringify(args)}`), 0);
    }
    const callStart = Date.now();
    const progress = progressForwarder(ctx);
    try {
      const hints = this.manager.tool(server, tool)?.annotations;
      const result = await this.manager.callTool(server, tool, args as Record<string, unknown> | undefined, this.#meta(server, ctx), {
        signal: ctx.signal,
        isReadOnly: hints?.readOnlyHint === true,
        // A progress callback makes the SDK send a per-connection integer `progressToken`.
        onProgress: progress.push,
      });
      progress.flush();
      const durationMs = Date.now() - callStart;
      const isError = result.isError === true;
      const itemResult = { content: result.content ?? [], structuredContent: result.structuredContent ?? null, _meta: result._meta ?? null };
      ctx.emit({ type: 'item.completed', item: { ...started, status: isError ? 'failed' : 'completed', result: itemResult, error: null, durationMs }, atMs: Date.now() });
      const formatted = formatCallResult(result, Date.now() - startedAt, {
        hasOutputSchema: this.manager.tool(server, tool)?.outputSchema !== undefined,
        supportsImages: ctx.modelSupportsImages ?? true,
      });
      return { output: formatted.output, success: !isError, ...(formatted.contentItems ? { contentItems: formatted.contentItems } : {}) };
    } catch (error) {
      progress.flush();
      if (ctx.signal.aborted) throw error;
      return fail(callError(server, tool, error instanceof Error ? error.message : String(error)), Date.now() - callStart);
    }
  }

  /** Runs the approval step; returns the decline text, or null when the call may run. */
  async #approve(server: string, tool: string, args: unknown, ctx: ToolContext): Promise<string | null> {
    const config = this.manager.config(server);
    const raw = this.manager.tool(server, tool);
    const mode = config?.toolApprovalModes[tool] ?? config?.defaultToolsApprovalMode ?? 'auto';
    const key = `${server}\u0000${tool}`;
    const decision = decideMcpApproval({
      policy: ctx.approvalPolicy,
      sandbox: ctx.sandbox,
      mode,
      hints: raw?.annotations,
      isSessionApproved: this.#sessionApproved.has(key),
    });
    if (decision === 'run') return null;
    if (decision === 'decline') return NEVER_DECLINE_TEXT;
    const answer = ctx.requestMcpApproval
      ? await ctx.requestMcpApproval({
          kind: 'mcpToolCall',
          callId: ctx.callId,
          server,
          tool,
          arguments: args ?? {},
          message: `Allow the ${server} MCP server to run tool "${tool}"?`,
          toolTitle: raw?.title ?? null,
          toolDescription: raw?.description ?? null,
          canRemember: mode !== 'prompt',
        }, this.manager.options.approvalTimeoutMs ?? 0)
      : 'denied';
    if (typeof answer === 'object') return answer.note;
    if (answer === 'approved') return null;
    if (answer === 'approved_and_remember') {
      if (mode === 'prompt') return null;
      // "Always": remembered now, and written to the config layer that defines the server.
      this.#sessionApproved.add(key);
      await this.manager.options.persistApproval?.(server, tool).catch(() => undefined);
      return null;
    }
    if (answer === 'approved_for_session') {
      if (mode !== 'prompt') this.#sessionApproved.add(key);
      return null;
    }
    return answer === 'abort' ? 'user cancelled MCP tool call' : 'user rejected MCP tool call';
  }

  /** The `_meta` of a model-driven call. */
  #meta(server: string, ctx: ToolContext): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      'x-codex-turn-metadata': {
        session_id: ctx.threadId,
        thread_id: ctx.threadId,
        turn_id: ctx.turnId,
        sandbox: ctx.sandbox.type === 'danger-full-access' ? 'none' : 'seccomp',
        turn_started_at_unix_ms: ctx.turnStartedAtMs ?? Date.now(),
        model: ctx.model ?? '',
      },
      threadId: ctx.threadId,
    };
    const experimental = this.manager.capabilities(server).experimental as Record<string, unknown> | undefined;
    if (experimental?.['codex/sandbox-state-meta'] !== undefined) {
      meta['codex/sandbox-state-meta'] = {
        permissionProfile: codexPermissionProfile(ctx.sandbox),
        sandboxPolicy: codexSandboxPolicy(ctx.sandbox),
        codexLinuxSandboxExe: null,
        sandboxCwd: ctx.cwd,
        useLegacyLandlock: false,
      };
    }
    return meta;
  }
}

function baseItem(id: string, server: string, tool: string, args: unknown): Extract<ThreadItem, { type: 'mcpToolCall' }> {
  return { type: 'mcpToolCall', id, server, tool, status: 'inProgress', arguments: args, result: null, error: null, durationMs: null };
}

/** The reference's error text for a failed call (first paragraph; never a backtrace). */
function callError(server: string, tool: string, cause: string): string {
  return `tool call error: tool call failed for \`${server}/${tool}\`\n\nCaused by:\n    ${cause}`;
}

/** At most this many progress events per second per call; the last one is always delivered. */
export const MCP_PROGRESS_PER_SECOND = 10;

/**
 * Turns a call's `notifications/progress` into `mcp.toolCallProgress` events, throttled: one
 * at once, then at most one per 100 ms (the latest wins); `flush` delivers a held one (called
 * before the item completes).
 */
export function progressForwarder(ctx: Pick<ToolContext, 'emit' | 'callId'>, now: () => number = Date.now): {
  push(p: { progress: number; total?: number; message?: string }): void;
  flush(): void;
} {
  const gap = 1000 / MCP_PROGRESS_PER_SECOND;
  let last = -Infinity;
  let held: { progress: number; total?: number; message?: string } | null = null;
  let timer: NodeJS.Timeout | null = null;
  const send = (p: { progress: number; total?: number; message?: string }): void => {
    last = now();
    ctx.emit({ type: 'mcp.toolCallProgress', itemId: ctx.callId, progress: p.progress, total: p.total ?? null, message: p.message ?? null });
  };
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (held) send(held);
    held = null;
  };
  return {
    push(p) {
      const wait = last + gap - now();
      if (wait <= 0 && !held) return send(p);
      held = p;
      timer ??= setTimeout(flush, Math.max(0, wait));
    },
    flush,
  };
}
