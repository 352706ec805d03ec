/**
 * McpApp: the state one server process shares across connections and protocol eras — the
 * lazily loaded engine, the approval router, and the calls still running (a 2026-era call
 * outlives the request round that started it). Also drives a call through its request rounds:
 * a turn's result, its cancellation, or an input-required round for an approval. MCP wiring
 * lives in server.ts; tool argument handling lives in tools/.
 */
import type { CallToolResult, InputRequiredResult, Tool } from '@modelcontextprotocol/server';
import type { ApprovalRouter } from './elicitation-approvals.js';
import { EngineHost } from './engine-host.js';
import type { Logger } from './log.js';
import { DEFAULT_SETTINGS } from './settings-defaults.js';
import type { McpServerSettings } from './settings.js';
import type { RequestBinding, TurnCall } from './turn-call.js';

/** What the app needs from the command line and environment. */
export interface AppOptions {
  overrides: string[];
  profile: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** How clients reach the server: over HTTP a `codex` call must name its `cwd` (or `mcp_server.default_cwd` is set). */
  transport?: 'stdio' | 'http';
  log: Logger;
}

/** State of one paused input-required round, minted into `requestState`. */
export interface RoundState {
  call: string;
  approval: string;
}

/** A `tools/call` request as the tools see it. */
export interface ToolRequest {
  binding: RequestBinding;
  /** The verified `requestState` of a 2026-era retry, if any. */
  roundState: RoundState | undefined;
  /** The client's answers of a 2026-era retry. */
  inputResponses: Record<string, unknown> | undefined;
  /** Seals round state for an input-required result. */
  mintState(state: RoundState): Promise<string>;
  /** Builds the input-required result that asks the client for an approval. */
  askApproval(message: string, requestState: string): InputRequiredResult;
}

/** What a tool handler returns. */
export type ToolResult = CallToolResult | InputRequiredResult;

/** One tool: its `tools/list` entry and its handler (`args` is undefined when the call had none). */
export interface ToolEntry {
  definition: Tool;
  handle(args: Record<string, unknown> | undefined, request: ToolRequest): Promise<ToolResult>;
}

/**
 * A result's content: the text, then (when there is structured content) the structured content
 * serialized as a second text block, as the MCP spec advises, so a host whose model sees only
 * text content still gets the `threadId` to continue with `codex-reply`.
 */
export function resultContent(text: string, structuredContent?: Record<string, unknown>): CallToolResult['content'] {
  return structuredContent ? [{ type: 'text', text }, { type: 'text', text: JSON.stringify(structuredContent) }] : [{ type: 'text', text }];
}

/** An `isError` result with one text block (and structured content, also as text, when given). */
export function errorResult(text: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return { content: resultContent(text, structuredContent), ...(structuredContent ? { structuredContent } : {}), isError: true };
}

/** The process-wide state. */
export class McpApp {
  /**
   * The approval machinery (router, decision parsing, event projection), imported with the
   * engine by `host()`: nothing of it is needed before `initialize` is answered.
   */
  #approvalsModule: typeof import('./elicitation-approvals.js') | null = null;
  #approvals: ApprovalRouter | null = null;
  readonly #calls = new Map<string, TurnCall>();
  #host: Promise<EngineHost> | null = null;
  #settings: McpServerSettings = DEFAULT_SETTINGS;
  #closed = false;

  constructor(readonly options: AppOptions) {}

  get log(): Logger {
    return this.options.log;
  }

  /**
   * The approval router shared by every call. Made by `host()`, which every tool awaits before
   * it starts a turn; asking earlier is a programming error.
   */
  get approvals(): ApprovalRouter {
    if (!this.#approvals) throw new Error('McpApp.approvals used before host()');
    return this.#approvals;
  }

  /** The engine, loaded on first use. Rejects with the config error when the config is invalid. */
  host(): Promise<EngineHost> {
    if (!this.#host) {
      this.#host = import('./elicitation-approvals.js').then((module) => {
        this.#approvalsModule = module;
        this.#approvals ??= new module.ApprovalRouter();
        return EngineHost.open({ ...this.options, approvals: this.#approvals });
      });
      // A failed load is retried on the next request (the user may have fixed config.toml).
      this.#host.then(
        (host) => (this.#settings = host.settings),
        () => (this.#host = null),
      );
    }
    return this.#host;
  }

  /** The settings, or the defaults when the configuration cannot be loaded. */
  async settings(): Promise<McpServerSettings> {
    try {
      return (await this.host()).settings;
    } catch {
      return DEFAULT_SETTINGS;
    }
  }

  /** Registers a started call and drives its first round. */
  async run(call: TurnCall, request: ToolRequest): Promise<ToolResult> {
    this.#calls.set(call.id, call);
    return this.#drive(call, request);
  }

  /** Continues a paused call with the client's answer (2026-era retry). */
  async resume(request: ToolRequest): Promise<ToolResult> {
    const state = request.roundState as RoundState;
    const call = this.#calls.get(state.call);
    // A registered call means host() resolved, so the approvals module is loaded.
    if (!call || !this.#approvalsModule) return errorResult('This approval is no longer pending: its turn ended or the approval timed out.');
    const decision = this.#approvalsModule.roundDecision(request.inputResponses?.approval);
    call.attach(request.binding);
    call.resolveApproval(state.approval, decision);
    return this.#drive(call, request);
  }

  /** The running call of a thread, if any. */
  callOf(threadId: string): TurnCall | undefined {
    return [...this.#calls.values()].find((call) => call.thread.id === threadId && !call.isDone);
  }

  /** Called by every call when its turn ends. */
  onCallFinished(call: TurnCall): void {
    if (!call.isUnclaimed) return;
    // Nobody is attached: keep the result for a late retry until its state would have expired.
    setTimeout(() => this.#calls.delete(call.id), this.#settings.approval_timeout_seconds * 1000).unref();
  }

  /** Closes the engine (interrupting running turns). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const call of this.#calls.values()) call.abandon();
    const host = await this.#host?.catch(() => null);
    await host?.close();
  }

  async #drive(call: TurnCall, request: ToolRequest): Promise<ToolResult> {
    const outcome = await call.next();
    if (outcome.kind === 'approval') {
      return request.askApproval(outcome.message, await request.mintState({ call: call.id, approval: outcome.approvalId }));
    }
    this.#calls.delete(call.id);
    // A cancelled request gets no response: the SDK drops whatever is returned for it.
    if (outcome.kind === 'cancelled') return errorResult('Turn interrupted');
    return outcome.result;
  }
}
