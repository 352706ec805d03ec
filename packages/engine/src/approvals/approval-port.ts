/**
 * ApprovalPort: how the engine asks a human (through a front door) for a decision. Each front
 * door implements it: the app-server with server→client requests, the MCP server with
 * elicitation, the CLI on the terminal. The engine never knows which.
 */
import type {
  ApprovalRequest,
  DynamicToolCallRequest,
  DynamicToolCallResponse,
  McpElicitationRequest,
  McpElicitationResponse,
  McpToolCallApprovalRequest,
  ReviewDecision,
  UserInputRequest,
  UserInputResponse,
} from '@deputy/protocol';

/** Where a request comes from, so the front door can route it to the right clients. */
export interface ApprovalOrigin {
  threadId: string;
  turnId: string;
  /** Unique id of this approval (also carried by the approval events). */
  approvalId: string;
}

/** Where an MCP elicitation comes from: a server may ask outside a turn (`turnId` null). */
export interface ElicitationOrigin {
  threadId: string;
  turnId: string | null;
  /** Unique id of this request. */
  approvalId: string;
}

/**
 * A denial that tells the model why, in place of the reference's "rejected by user": a front
 * door that could not ask anybody (no approver was available) says so and how to allow it.
 */
export interface ExplainedDenial {
  decision: 'denied';
  /** What the model reads as the tool's output. */
  note: string;
}

/** What a port answers: a decision, or a denial with its explanation. */
export type ApprovalAnswer = ReviewDecision | ExplainedDenial;

/** The decision of an answer. */
export function decisionOf(answer: ApprovalAnswer): ReviewDecision {
  return typeof answer === 'string' ? answer : answer.decision;
}

/** The port a front door implements. Implementations must settle when `signal` aborts. */
export interface ApprovalPort {
  requestExec(request: Extract<ApprovalRequest, { kind: 'exec' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer>;
  requestPatch(request: Extract<ApprovalRequest, { kind: 'patch' }>, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer>;
  /**
   * An MCP tool call to approve. Optional: a front door that does not implement it declines
   * every such call (the engine answers `denied` without asking).
   */
  requestMcpToolCall?(request: McpToolCallApprovalRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<ApprovalAnswer>;
  /**
   * An MCP server's elicitation for the user. Optional: a front door that does not implement it
   * makes the engine answer `decline` at once.
   */
  requestMcpElicitation?(request: McpElicitationRequest, origin: ElicitationOrigin, signal: AbortSignal): Promise<McpElicitationResponse>;
  /**
   * Runs a call of a client-provided tool on the client. Optional: without it the engine offers
   * no client tools. Resolves null when nobody is left to answer or `signal` aborts (interrupt,
   * the engine's answer timeout).
   */
  requestDynamicTool?(request: DynamicToolCallRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<DynamicToolCallResponse | null>;
  /**
   * Puts the model's questions (`request_user_input`) to the user. Optional: without it the
   * engine answers the model that no user is available. Resolves null when nobody answers or
   * `signal` aborts.
   */
  requestUserInput?(request: UserInputRequest, origin: ApprovalOrigin, signal: AbortSignal): Promise<UserInputResponse | null>;
}

/** An ApprovalPort that answers every request with one fixed decision (CLI non-TTY, tests). */
export function fixedApprovals(decision: ReviewDecision): ApprovalPort {
  return {
    requestExec: async () => decision,
    requestPatch: async () => decision,
    requestMcpToolCall: async () => decision,
  };
}
