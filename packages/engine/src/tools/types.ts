/**
 * The tool contract: how a tool is declared, what it receives when it runs, and what it returns
 * to the model. Tools never throw for ordinary failures: a failure is output for the model
 * (`ToolError`); only `FatalToolError` ends the turn.
 */
import type {
  ApprovalPolicy,
  ApprovalRequest,
  DynamicToolCallRequest,
  DynamicToolCallResponse,
  EngineEventBody,
  McpToolCallApprovalRequest,
  SandboxPolicy,
  UserInputRequest,
  UserInputResponse,
} from '@deputy/protocol';
import type { ApprovalAnswer } from '../approvals/approval-port.js';
import type { FunctionOutputContent, ToolSpec } from '../model/types.js';

/** What a tool call returns to the model. */
export interface ToolOutput {
  /** The text the model reads (`function_call_output.output`). */
  output: string;
  /** False when the call failed; the model still gets `output`. */
  success: boolean;
  /** Images (data URLs) to attach to the next model request, after this output. */
  images?: string[];
  /**
   * The output as content items (text and images) for an array-valued `function_call_output`
   * (MCP results with images); `output` stays the text form for front doors and other wires.
   */
  contentItems?: FunctionOutputContent[];
}

/** Services shared by the tools of one thread. Kept abstract so tools stay testable. */
export interface ToolServices {
  [name: string]: unknown;
}

/** Everything a running tool may use. */
export interface ToolContext {
  readonly signal: AbortSignal;
  readonly threadId: string;
  readonly turnId: string;
  readonly callId: string;
  readonly cwd: string;
  readonly sandbox: SandboxPolicy;
  readonly approvalPolicy: ApprovalPolicy;
  /** Per-turn scratch space shared by the tools of one turn (e.g. the aggregate diff). */
  readonly toolState: Map<string, unknown>;
  /** Publishes an event of this turn (the thread stamps ids and seq, and persists facts first). */
  emit(event: EngineEventBody): void;
  /** Asks the front door for a decision (through the thread's ApprovalPort), emitting the events. */
  requestApproval(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /**
   * Asks the front door about an MCP tool call; `denied` at once when the port cannot ask;
   * `abort` when `timeoutMs` (> 0) passes without an answer (the request is withdrawn).
   */
  requestMcpApproval?(request: McpToolCallApprovalRequest, timeoutMs?: number): Promise<ApprovalAnswer>;
  /**
   * Asks the front door's clients to run a client-provided tool: their answer, or a reason it
   * has none (`cancelled`: nobody answered or can answer; `timedOut`: the answer timeout passed).
   * Rejects only when the turn aborts.
   */
  callClientTool?(request: DynamicToolCallRequest): Promise<DynamicToolCallResponse | 'cancelled' | 'timedOut'>;
  /**
   * Asks the user the model's questions: the answers, `noUser` when the front door has nobody to
   * ask (`deputy exec`), `cancelled` when nobody answered. Rejects only when the turn aborts.
   */
  requestUserInput?(request: UserInputRequest): Promise<UserInputResponse | 'noUser' | 'cancelled'>;
  /** The turn's collaboration mode (absent: `default`). */
  readonly collaborationMode?: 'plan' | 'default';
  /** The turn's model slug (MCP `_meta`). */
  readonly model?: string;
  /** Whether the turn's model reads images (absent: it does); MCP image blocks become a note otherwise. */
  readonly modelSupportsImages?: boolean;
  /** When the turn started (MCP `_meta`). */
  readonly turnStartedAtMs?: number;
}

/** More tools that come and go (MCP servers): offered after the built-in ones. */
export interface ToolSource {
  /** The specs offered now, for a wire. */
  specs(wire: 'responses' | 'chat'): ToolSpec[];
  /** The tool a (namespace-qualified or flat) name routes to. */
  find(name: string): ToolDefinition<unknown> | undefined;
  /** Called before each model request of a turn (may wait a short grace). */
  prepare?(signal: AbortSignal): Promise<void>;
}

/** A declared tool. `TArgs` is the parsed argument type. */
export interface ToolDefinition<TArgs = unknown> {
  readonly name: string;
  /**
   * Calls of this tool may run alongside each other within one model response (an MCP server
   * with `supports_parallel_tool_calls = true`, an MCP tool annotated `readOnlyHint`); other
   * calls run one at a time.
   */
  readonly supportsParallel?: boolean;
  /** The collaboration modes it is offered in; absent: every mode. */
  readonly modes?: readonly ('plan' | 'default')[];
  /** The spec offered to the model for the given wire. */
  spec(wire: 'responses' | 'chat'): ToolSpec;
  /** Parses the raw call payload (JSON arguments or freeform input); throws ToolError on bad input. */
  parse(raw: string): TArgs;
  /** Runs the call. */
  handle(args: TArgs, ctx: ToolContext): Promise<ToolOutput>;
}

/** A failure the model should read and can recover from. */
export class ToolError extends Error {
  constructor(readonly respondToModel: string) {
    super(respondToModel);
    this.name = 'ToolError';
  }
}

/** A failure that ends the turn (the user aborted an approval). */
export class FatalToolError extends Error {
  constructor(
    message: string,
    readonly reason: 'aborted' | 'internal',
  ) {
    super(message);
    this.name = 'FatalToolError';
  }
}
