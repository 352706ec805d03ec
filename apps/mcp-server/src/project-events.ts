/**
 * The MCP server's one projection: engine events → Codex `codex/event` payloads (`{ id, msg }`,
 * the catalogue in docs/mcp-server.md, "Events and progress": task_started,
 * item_started/item_completed, agent_message_content_delta, agent_message,
 * exec_command_begin/output_delta/end, patch_apply_begin/end, the approval requests, turn_diff,
 * plan_update, token_count, warning, error, task_complete, turn_aborted, …). Pure and
 * table-driven: the caller adds `_meta` and sends; nothing here does I/O or keeps state. Facts
 * about the engine's values (the script of an argv, the sides of a diff, the sandbox's grants,
 * whole seconds) come from `@deputy/engine/facts`; this module only renames and re-cases them.
 */
import { codexPermissionProfile, codexSandboxPolicy, diffSideText, scriptOf, wholeSeconds } from '@deputy/engine/facts';
import type { ApprovalPolicy, EngineEvent, FileUpdate, SandboxPolicy, ThreadItem, TokenUsage } from '@deputy/protocol';

/** A Codex event message: a `type` plus snake_case fields. Clients ignore what they do not know. */
export type CodexMsg = { type: string } & Record<string, unknown>;

/** The payload of one `codex/event` notification, before `_meta` is added. */
export interface CodexEvent {
  /** The Codex submission id: the turn's id on the wire ("" for session-setup events). */
  id: string;
  msg: CodexMsg;
}

/** What the projection needs besides the event. */
export interface ProjectionContext {
  /** The turn's id on the wire; null means the engine's own turn id. */
  submissionId: string | null;
  /** The current time (ms), for fields the engine event does not carry. */
  nowMs: number;
  /** The thread's approval policy (decides `auto_approved` on patches). */
  approvalPolicy: ApprovalPolicy;
}

/** Facts for the `session_configured` event that opens a `codex` call's stream. */
export interface SessionInfo {
  threadId: string;
  model: string;
  modelProviderId: string;
  approvalPolicy: ApprovalPolicy;
  sandboxPolicy: SandboxPolicy;
  cwd: string;
  rolloutPath: string | null;
  reasoningEffort: string | null;
}

/**
 * The events a `codex` call starts with (submission id ""), as the reference sends them:
 * `session_configured`, then the MCP start-up report (see McpStartupTracker; without configured
 * servers just an empty `mcp_startup_complete`).
 */
export function projectSessionStart(info: SessionInfo, startup: CodexMsg[] = [EMPTY_STARTUP]): CodexEvent[] {
  const configured: CodexMsg = {
    type: 'session_configured',
    session_id: info.threadId,
    thread_id: info.threadId,
    model: info.model,
    model_provider_id: info.modelProviderId,
    approval_policy: info.approvalPolicy,
    approvals_reviewer: 'user',
    sandbox_policy: codexSandboxPolicy(info.sandboxPolicy),
    permission_profile: codexPermissionProfile(info.sandboxPolicy),
    cwd: info.cwd,
    ...(info.reasoningEffort ? { reasoning_effort: info.reasoningEffort } : {}),
    rollout_path: info.rolloutPath,
  };
  return [{ id: '', msg: configured }, ...startup.map((msg) => ({ id: '', msg }))];
}

const EMPTY_STARTUP: CodexMsg = { type: 'mcp_startup_complete', ready: [], failed: [], cancelled: [] };

/** A configured MCP server's start-up status, as the engine reports it. */
export interface McpStartupStatus {
  server: string;
  status: 'starting' | 'ready' | 'failed' | 'cancelled';
  error: string | null;
}

/**
 * Codex's MCP start-up report for one `codex` call: one `mcp_startup_update`
 * (`{server, status: {state, error?}}`) per status change, then one `mcp_startup_complete`
 * (`{ready[], failed[{server, error}], cancelled[]}`) once every configured server has left
 * `starting`. Fed the statuses known when the call starts, then the thread's
 * `mcp.serverStatus` events; silent after the complete event.
 */
export class McpStartupTracker {
  readonly #statuses = new Map<string, McpStartupStatus>();
  #complete = false;

  /** The opening messages for the servers' current statuses (an empty report without servers). */
  open(current: readonly McpStartupStatus[]): CodexMsg[] {
    if (current.length === 0) {
      this.#complete = true;
      return [EMPTY_STARTUP];
    }
    const out: CodexMsg[] = [];
    for (const status of current) {
      this.#statuses.set(status.server, status);
      out.push(startupUpdate(status));
    }
    return [...out, ...this.#maybeComplete()];
  }

  /** The messages for one `mcp.serverStatus` event (none once the report is complete). */
  update(status: McpStartupStatus): CodexMsg[] {
    const known = this.#statuses.get(status.server);
    // Servers that were not starting with the thread (disabled ones, later reloads) are not part of it.
    if (this.#complete || !known) return [];
    if (known && known.status === status.status && known.error === status.error) return [];
    this.#statuses.set(status.server, status);
    return [startupUpdate(status), ...this.#maybeComplete()];
  }

  #maybeComplete(): CodexMsg[] {
    const all = [...this.#statuses.values()];
    if (all.some((s) => s.status === 'starting')) return [];
    this.#complete = true;
    return [
      {
        type: 'mcp_startup_complete',
        ready: all.filter((s) => s.status === 'ready').map((s) => s.server),
        failed: all.filter((s) => s.status === 'failed').map((s) => ({ server: s.server, error: s.error ?? 'failed to start' })),
        cancelled: all.filter((s) => s.status === 'cancelled').map((s) => s.server),
      },
    ];
  }
}

function startupUpdate(status: McpStartupStatus): CodexMsg {
  const state = status.status === 'failed' ? { state: 'failed', error: status.error ?? 'failed to start' } : { state: status.status };
  return { type: 'mcp_startup_update', server: status.server, status: state };
}

/**
 * Codex's `Result<CallToolResult, String>` of an `mcp_tool_call_end`: `{Ok: {content,
 * structuredContent?, isError?, _meta?}}` when the server answered (an `isError` result too),
 * else `{Err: <message>}`.
 */
function mcpCallResult(item: Extract<ThreadItem, { type: 'mcpToolCall' }>): Record<string, unknown> {
  const result = item.result as { content?: unknown; structuredContent?: unknown; _meta?: unknown } | null | undefined;
  if (result && typeof result === 'object' && Array.isArray(result.content)) {
    return {
      Ok: {
        content: result.content,
        ...(result.structuredContent != null ? { structuredContent: result.structuredContent } : {}),
        ...(item.status === 'failed' ? { isError: true } : {}),
        ...(result._meta != null ? { _meta: result._meta } : {}),
      },
    };
  }
  return { Err: item.error ?? (item.status === 'declined' ? 'user rejected MCP tool call' : 'tool call failed') };
}

/** Projects one engine event to zero or more Codex events. */
export function projectEvent(event: EngineEvent, ctx: ProjectionContext): CodexEvent[] {
  const turnId = ctx.submissionId ?? event.turnId ?? '';
  const msgs = projectMsgs(event, turnId, ctx);
  return msgs.map((msg) => ({ id: turnId, msg }));
}

function projectMsgs(event: EngineEvent, turnId: string, ctx: ProjectionContext): CodexMsg[] {
  switch (event.type) {
    case 'turn.started':
      return [{ type: 'task_started', turn_id: turnId, started_at: wholeSeconds(event.turn.startedAtMs), model_context_window: event.modelContextWindow, collaboration_mode_kind: 'default' }];
    case 'turn.completed':
      return projectTurnEnd(event.turn, turnId);
    case 'item.started':
      return projectItem('started', event.item, event.threadId, turnId, event.atMs, ctx);
    case 'item.completed':
      return projectItem('completed', event.item, event.threadId, turnId, event.atMs, ctx);
    case 'item.delta':
      return projectDelta(event, turnId);
    case 'approval.requested':
      return [projectApprovalRequest(event.request, turnId, ctx.nowMs)];
    case 'approval.resolved':
      return [];
    case 'plan.updated':
      return [{ type: 'plan_update', explanation: event.explanation, plan: event.plan }];
    case 'diff.updated':
      return [{ type: 'turn_diff', unified_diff: event.diff }];
    case 'tokenUsage.updated':
      return [
        {
          type: 'token_count',
          info: { total_token_usage: usage(event.usage.total), last_token_usage: usage(event.usage.last), model_context_window: event.usage.modelContextWindow },
          rate_limits: null,
        },
      ];
    case 'warning':
      return [{ type: 'warning', message: event.message }];
    case 'error':
      return event.willRetry
        ? [{ type: 'stream_error', message: event.error.message, codex_error_info: errorInfo(event.error.code), additional_details: null }]
        : [{ type: 'error', message: event.error.message, codex_error_info: errorInfo(event.error.code) }];
    case 'model.item':
      return [{ type: 'raw_response_item', item: event.item }];
    case 'mcp.serverStatus':
      // Thread-level: only a `codex` call's start-up tracker reports them (McpStartupTracker).
      return [];
    case 'mcp.toolCallProgress':
      // Codex has no codex/event for MCP call progress; the progress heartbeat notes it.
      return [];
    case 'hook.started':
    case 'hook.completed':
      // Hook runs are shown by the app-server (hook/started, hook/completed); the MCP front door reports none.
      return [];
  }
}

function projectTurnEnd(turn: Extract<EngineEvent, { type: 'turn.completed' }>['turn'], turnId: string): CodexMsg[] {
  const completedAtMs = turn.completedAtMs ?? turn.startedAtMs;
  const duration = Math.max(0, completedAtMs - turn.startedAtMs);
  if (turn.status === 'completed') {
    return [{ type: 'task_complete', turn_id: turnId, last_agent_message: turn.lastAgentMessage, completed_at: wholeSeconds(completedAtMs), duration_ms: duration, time_to_first_token_ms: null }];
  }
  if (turn.status === 'interrupted') {
    return [{ type: 'turn_aborted', turn_id: turnId, reason: 'interrupted', completed_at: wholeSeconds(completedAtMs), duration_ms: duration }];
  }
  // A failed turn already produced its `error` event; the reference sends nothing more.
  return [];
}

type Phase = 'started' | 'completed';

function projectItem(phase: Phase, item: ThreadItem, threadId: string, turnId: string, atMs: number, ctx: ProjectionContext): CodexMsg[] {
  const envelope = (codexItem: Record<string, unknown>): CodexMsg =>
    phase === 'started'
      ? { type: 'item_started', thread_id: threadId, turn_id: turnId, item: codexItem, started_at_ms: atMs }
      : { type: 'item_completed', thread_id: threadId, turn_id: turnId, item: codexItem, completed_at_ms: atMs };
  switch (item.type) {
    case 'userMessage': {
      const content = item.content.map(codexUserInput);
      const out = [envelope({ type: 'UserMessage', id: item.id, content })];
      if (phase === 'completed') out.push(userMessageMsg(item.content));
      return out;
    }
    case 'agentMessage': {
      const out = [envelope({ type: 'AgentMessage', id: item.id, content: [{ type: 'Text', text: item.text }] })];
      if (phase === 'completed') out.push({ type: 'agent_message', message: item.text, phase: item.phase, memory_citation: null });
      return out;
    }
    case 'reasoning': {
      const out = [envelope({ type: 'Reasoning', id: item.id, summary_text: item.summary, raw_content: item.content })];
      if (phase === 'completed') for (const text of item.summary) out.push({ type: 'agent_reasoning', text });
      return out;
    }
    case 'commandExecution':
      return [phase === 'started' ? execBegin(item, turnId, atMs) : execEnd(item, turnId, atMs)];
    case 'fileChange': {
      const changes = codexChanges(item.changes);
      if (phase === 'started') {
        const autoApproved = ctx.approvalPolicy === 'never';
        return [envelope({ type: 'FileChange', id: item.id, changes, auto_approved: autoApproved }), { type: 'patch_apply_begin', call_id: item.id, turn_id: turnId, auto_approved: autoApproved, changes }];
      }
      const success = item.status === 'completed';
      const status = item.status === 'declined' ? 'declined' : success ? 'completed' : 'failed';
      return [
        envelope({ type: 'FileChange', id: item.id, changes, status, stdout: '', stderr: '' }),
        { type: 'patch_apply_end', call_id: item.id, turn_id: turnId, stdout: '', stderr: '', success, changes, status },
      ];
    }
    case 'imageView':
      return phase === 'completed' ? [{ type: 'view_image_tool_call', call_id: item.id, path: item.path }] : [];
    case 'contextCompaction':
      return phase === 'completed' ? [envelope({ type: 'ContextCompaction', id: item.id }), { type: 'context_compacted' }] : [envelope({ type: 'ContextCompaction', id: item.id })];
    // The MCP server never starts a review nor offers client tools, so these items do not reach it.
    case 'dynamicToolCall':
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return [];
    // A Stop hook's prompt reaches the model as a user message; the MCP host is not shown it.
    case 'hookPrompt':
      return [];
    case 'mcpToolCall': {
      const invocation = { server: item.server, tool: item.tool, arguments: item.arguments ?? null };
      if (phase === 'started') return [{ type: 'mcp_tool_call_begin', call_id: item.id, invocation }];
      return [{ type: 'mcp_tool_call_end', call_id: item.id, invocation, duration: duration(item.durationMs ?? 0), result: mcpCallResult(item) }];
    }
  }
}

function projectDelta(event: Extract<EngineEvent, { type: 'item.delta' }>, turnId: string): CodexMsg[] {
  switch (event.kind) {
    case 'agentMessage':
      return [{ type: 'agent_message_content_delta', thread_id: event.threadId, turn_id: turnId, item_id: event.itemId, delta: event.delta }];
    case 'reasoningSummary':
      return [{ type: 'reasoning_content_delta', thread_id: event.threadId, turn_id: turnId, item_id: event.itemId, delta: event.delta, summary_index: event.index ?? 0 }];
    case 'reasoningContent':
      return [{ type: 'reasoning_raw_content_delta', thread_id: event.threadId, turn_id: turnId, item_id: event.itemId, delta: event.delta, content_index: 0 }];
    case 'commandOutput':
      return [{ type: 'exec_command_output_delta', call_id: event.itemId, stream: event.stream ?? 'stdout', chunk: Buffer.from(event.delta, 'utf8').toString('base64') }];
  }
}

function projectApprovalRequest(request: Extract<EngineEvent, { type: 'approval.requested' }>['request'], turnId: string, nowMs: number): CodexMsg {
  if (request.kind === 'exec') {
    const amendment = request.proposedPrefixRule ?? [];
    return {
      type: 'exec_approval_request',
      call_id: request.callId,
      turn_id: turnId,
      started_at_ms: nowMs,
      command: request.command,
      cwd: request.cwd,
      ...(request.reason ? { reason: request.reason } : {}),
      proposed_execpolicy_amendment: amendment,
      available_decisions: ['approved', ...(amendment.length > 0 ? [{ approved_execpolicy_amendment: { proposed_execpolicy_amendment: amendment } }] : []), 'abort'],
      parsed_cmd: parsedCommand(request.command),
    };
  }
  return {
    type: 'apply_patch_approval_request',
    call_id: request.callId,
    turn_id: turnId,
    started_at_ms: nowMs,
    changes: codexChanges(request.changes),
    ...(request.reason ? { reason: request.reason } : {}),
    ...(request.grantRoot ? { grant_root: request.grantRoot } : {}),
  };
}

function execBegin(item: Extract<ThreadItem, { type: 'commandExecution' }>, turnId: string, atMs: number): CodexMsg {
  return {
    type: 'exec_command_begin',
    call_id: item.id,
    process_id: item.processId,
    turn_id: turnId,
    started_at_ms: atMs,
    command: item.argv,
    cwd: item.cwd,
    parsed_cmd: parsedCommand(item.argv),
    source: 'unified_exec_startup',
  };
}

function execEnd(item: Extract<ThreadItem, { type: 'commandExecution' }>, turnId: string, atMs: number): CodexMsg {
  const output = item.aggregatedOutput ?? '';
  return {
    type: 'exec_command_end',
    call_id: item.id,
    process_id: item.processId,
    turn_id: turnId,
    completed_at_ms: atMs,
    command: item.argv,
    cwd: item.cwd,
    parsed_cmd: parsedCommand(item.argv),
    source: 'unified_exec_startup',
    stdout: output,
    stderr: '',
    aggregated_output: output,
    exit_code: item.exitCode ?? -1,
    duration: duration(item.durationMs ?? 0),
    formatted_output: output,
    status: item.status === 'declined' ? 'declined' : item.status === 'completed' ? 'completed' : 'failed',
  };
}

/** Codex's `parsed_cmd` for a command: the script it runs (the engine's `scriptOf`), unclassified. */
export function parsedCommand(argv: readonly string[]): { type: 'unknown'; cmd: string }[] {
  return [{ type: 'unknown', cmd: scriptOf(argv) }];
}

/** Codex's map of path → change: `add`/`delete` carry the content, `update` the unified diff. */
export function codexChanges(changes: FileUpdate[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const change of changes) {
    if (change.kind.type === 'add') out[change.path] = { type: 'add', content: diffSideText(change.diff, 'new') };
    else if (change.kind.type === 'delete') out[change.path] = { type: 'delete', content: diffSideText(change.diff, 'old') };
    else out[change.path] = { type: 'update', unified_diff: change.diff, move_path: change.kind.move_path };
  }
  return out;
}

function userMessageMsg(content: Extract<ThreadItem, { type: 'userMessage' }>['content']): CodexMsg {
  const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const elements = content.flatMap((part) => (part.type === 'text' ? (part.text_elements ?? []) : []));
  return {
    type: 'user_message',
    message: text,
    images: content.flatMap((part) => (part.type === 'image' ? [part.url] : [])),
    local_images: content.flatMap((part) => (part.type === 'localImage' ? [part.path] : [])),
    text_elements: elements.map((e) => ({ byte_range: e.byteRange, placeholder: e.placeholder ?? null })),
  };
}

function codexUserInput(part: Extract<ThreadItem, { type: 'userMessage' }>['content'][number]): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text, text_elements: (part.text_elements ?? []).map((e) => ({ byte_range: e.byteRange, placeholder: e.placeholder ?? null })) };
  if (part.type === 'image') return { type: 'image', image_url: part.url };
  if (part.type === 'skill') return { type: 'skill', name: part.name, path: part.path };
  return { type: 'local_image', path: part.path };
}

function usage(u: TokenUsage): Record<string, number> {
  return {
    input_tokens: u.inputTokens,
    cached_input_tokens: u.cachedInputTokens,
    output_tokens: u.outputTokens,
    reasoning_output_tokens: u.reasoningOutputTokens,
    total_tokens: u.totalTokens,
  };
}

/** Codex's `codex_error_info` for an engine error code (snake_case). */
function errorInfo(code: string): string {
  return code.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function duration(ms: number): { secs: number; nanos: number } {
  return { secs: wholeSeconds(ms), nanos: (ms % 1000) * 1_000_000 };
}
