/**
 * The tool registry of a turn: which tools the model is offered and how a call by name is
 * dispatched. Unknown names and bad arguments become output for the model, never a crash.
 */
import type { ToolSpec } from '../model/types.js';
import { FatalToolError, ToolError, type ToolContext, type ToolDefinition, type ToolOutput, type ToolSource } from './types.js';

/** A set of tools addressed by name. */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition<unknown>>();
  readonly #sources: ToolSource[] = [];

  constructor(tools: ToolDefinition<never>[] = []) {
    for (const tool of tools) this.add(tool);
  }

  /** Adds (or replaces) a tool. */
  add<T>(tool: ToolDefinition<T>): void {
    this.#tools.set(tool.name, tool as unknown as ToolDefinition<unknown>);
  }

  /** Adds a source of tools that come and go (MCP servers); its specs follow the built-in ones. */
  addSource(source: ToolSource): void {
    this.#sources.push(source);
  }

  /** Whether a tool of that name exists. */
  has(name: string): boolean {
    return this.#tools.has(name) || this.#sources.some((s) => s.find(name) !== undefined);
  }

  /** The specs offered to the model for a wire, in a collaboration mode (tools limited to other modes are left out). */
  specs(wire: 'responses' | 'chat', mode: 'plan' | 'default' = 'default'): ToolSpec[] {
    const offered = [...this.#tools.values()].filter((tool) => !tool.modes || tool.modes.includes(mode));
    return [...offered.map((tool) => tool.spec(wire)), ...this.#sources.flatMap((s) => s.specs(wire))];
  }

  /** Lets the sources get ready before a model request (waits at most their grace). */
  async prepare(signal: AbortSignal): Promise<void> {
    await Promise.all(this.#sources.map((s) => s.prepare?.(signal)));
  }

  /** Whether calls of this tool may run alongside each other (MCP servers that allow it). */
  supportsParallel(name: string): boolean {
    if (this.#tools.has(name)) return this.#tools.get(name)?.supportsParallel === true;
    return this.#sources.map((s) => s.find(name)).find((t) => t !== undefined)?.supportsParallel === true;
  }

  /**
   * Runs one call. ToolErrors and unknown tools become failed output for the model; a
   * FatalToolError or an abort propagates and ends the turn.
   */
  async dispatch(name: string, raw: string, ctx: ToolContext): Promise<ToolOutput> {
    const tool = this.#tools.get(name) ?? this.#sources.map((s) => s.find(name)).find((t) => t !== undefined);
    if (!tool) return { output: `unsupported call: ${name}`, success: false };
    try {
      const args = tool.parse(raw);
      return await tool.handle(args, ctx);
    } catch (error) {
      if (error instanceof ToolError) return { output: error.respondToModel, success: false };
      if (error instanceof FatalToolError || ctx.signal.aborted) throw error;
      return { output: `tool ${name} failed: ${(error as Error).message}`, success: false };
    }
  }
}
