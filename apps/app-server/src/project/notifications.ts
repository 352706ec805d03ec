/**
 * The app-server's one projection from `EngineEvent`s to wire notifications (docs/app-server.md
 * "Notifications"). A table maps each event type to a pure function of (thread view, event, now)
 * returning the messages to send, in order; the view is the small per-thread state the wire needs
 * that a single event does not carry: the thread status with its `waitingOnApproval` flag, the
 * items that were started but not completed (closed before `turn/completed` when a turn ends
 * early), streamed agent text, and the reasoning summary part in progress. Deciding who receives
 * each message is the router's job, not this module's.
 */
import type { AppServer, EngineEvent } from '@deputy/protocol';
import { closeOpenItem, pendingCommandItem, projectItem } from './items.js';
import { notification, type Outbound } from './outbound.js';
import { projectHookRun } from './hooks.js';
import { projectTurnError, projectTurnInfo } from './threads.js';

export { notification, type Outbound, type WireNotification } from './outbound.js';

/** An item shown as started and not yet completed. */
interface OpenItem {
  item: AppServer.ThreadItem;
  /** Agent text streamed so far. */
  text: string;
  /** The user cancelled at this item's approval. */
  isDeclined: boolean;
}

/** Per-thread state of the projection. */
export interface ThreadView {
  readonly threadId: string;
  /** The thread's status as last announced (`notLoaded` is the router's business). */
  status: AppServer.ThreadStatus;
  /** Pending approval id → the item it is about. */
  readonly pendingApprovals: Map<string, string>;
  /** Ids of the pending questions to the user (`item/tool/requestUserInput`). */
  readonly pendingQuestions: Set<string>;
  /** Items started and not completed, in start order. */
  readonly open: Map<string, OpenItem>;
  /** Start time of each item of the running turn (approval requests repeat it). */
  readonly startedAtMs: Map<string, number>;
  /** Reasoning item id → the last summary part announced. */
  readonly summaryPart: Map<string, number>;
  /** The status to go back to when a wait outside a turn ends (`beginFrontDoorWait`). */
  statusBeforeWait: AppServer.ThreadStatus | null;
}

/** A fresh view: the thread is loaded and idle. */
export function createThreadView(threadId: string): ThreadView {
  return {
    threadId,
    status: { type: 'idle' },
    pendingApprovals: new Map(),
    pendingQuestions: new Set(),
    open: new Map(),
    startedAtMs: new Map(),
    summaryPart: new Map(),
    statusBeforeWait: null,
  };
}

function setStatus(view: ThreadView, status: AppServer.ThreadStatus): Outbound {
  view.status = status;
  return notification('thread/status/changed', { threadId: view.threadId, status });
}

function activeStatus(view: ThreadView): AppServer.ThreadStatus {
  const flags: AppServer.ThreadActiveFlag[] = [];
  if (view.pendingApprovals.size > 0) flags.push('waitingOnApproval');
  if (view.pendingQuestions.size > 0) flags.push('waitingOnUserInput');
  return { type: 'active', activeFlags: flags };
}

/** `mcpServer/startupStatus/updated` of one of the thread's servers (with `threadId`, Deputy's addition). */
export function startupStatusUpdated(threadId: string, name: string, status: AppServer.McpServerStartupState, error: string | null): Outbound {
  return notification('mcpServer/startupStatus/updated', { name, status, error, threadId });
}

/**
 * The start-up statuses of a thread that was just loaded, sent after its `thread/started` (or the
 * resume response): `starting` for every enabled server, then the state of those already past it.
 * The engine starts the servers while it creates the thread, before anyone is subscribed.
 */
export function startupStatusReplay(threadId: string, statuses: ReadonlyArray<{ name: string; status: string; error: string | null }>): Outbound[] {
  const enabled = statuses.filter((s) => s.status !== 'disabled');
  const settled = enabled.filter((s): s is typeof s & { status: AppServer.McpServerStartupState } => s.status === 'ready' || s.status === 'failed' || s.status === 'cancelled');
  return [
    ...enabled.map((s) => startupStatusUpdated(threadId, s.name, 'starting', null)),
    ...settled.map((s) => startupStatusUpdated(threadId, s.name, s.status, s.error)),
  ];
}

/** The progress text: the server's message, else `<progress>/<total>` (or `<progress>` without a total). */
function progressMessage(event: Extract<EngineEvent, { type: 'mcp.toolCallProgress' }>): string {
  if (event.message !== null && event.message !== '') return event.message;
  return event.total === null ? String(event.progress) : `${event.progress}/${event.total}`;
}

/**
 * A request the front door sends on its own (an MCP tool-call approval or elicitation: the engine
 * emits no approval event for them) starts waiting: the thread shows `waitingOnApproval`. Outside
 * a turn the thread is shown active while it waits, and goes back to its status after.
 */
export function beginFrontDoorWait(view: ThreadView, approvalId: string, itemId: string): Outbound[] {
  if (view.pendingApprovals.size === 0 && view.status.type !== 'active') view.statusBeforeWait = view.status;
  view.pendingApprovals.set(approvalId, itemId);
  return [setStatus(view, activeStatus(view))];
}

/** The end of a wait begun with `beginFrontDoorWait`: `serverRequest/resolved`, then the status. */
export function endFrontDoorWait(view: ThreadView, approvalId: string): Outbound[] {
  const out: Outbound[] = [{ kind: 'requestResolved', approvalId }];
  // A turn that started or ended meanwhile already announced the status.
  if (!view.pendingApprovals.delete(approvalId)) return out;
  const before = view.statusBeforeWait;
  if (view.pendingApprovals.size === 0 && before !== null) {
    view.statusBeforeWait = null;
    return [...out, setStatus(view, before)];
  }
  return [...out, setStatus(view, activeStatus(view))];
}

type Handler<T extends EngineEvent['type']> = (view: ThreadView, event: Extract<EngineEvent, { type: T }>, turnId: string, nowMs: number) => Outbound[];

function startItem(view: ThreadView, item: AppServer.ThreadItem, turnId: string, atMs: number): Outbound {
  view.open.set(item.id, { item, text: '', isDeclined: false });
  view.startedAtMs.set(item.id, atMs);
  return notification('item/started', { item, threadId: view.threadId, turnId, startedAtMs: atMs });
}

const PLAN_STATUS = { pending: 'pending', in_progress: 'inProgress', completed: 'completed' } as const;

/** A question to the user is pending (a turn runs): the thread shows `waitingOnUserInput`. */
export function beginQuestionWait(view: ThreadView, requestId: string): Outbound[] {
  view.pendingQuestions.add(requestId);
  return [setStatus(view, activeStatus(view))];
}

/** The end of a question: `serverRequest/resolved`, then the status (unless the turn ended meanwhile). */
export function endQuestionWait(view: ThreadView, requestId: string): Outbound[] {
  const out: Outbound[] = [{ kind: 'requestResolved', approvalId: requestId }];
  if (!view.pendingQuestions.delete(requestId)) return out;
  return [...out, setStatus(view, activeStatus(view))];
}

const HANDLERS: { [T in EngineEvent['type']]: Handler<T> } = {
  'turn.started': (view, event) => {
    view.open.clear();
    view.startedAtMs.clear();
    view.summaryPart.clear();
    view.pendingApprovals.clear();
    view.pendingQuestions.clear();
    view.statusBeforeWait = null;
    return [setStatus(view, activeStatus(view)), notification('turn/started', { threadId: view.threadId, turn: projectTurnInfo(event.turn) })];
  },
  'item.started': (view, event, turnId) => {
    // A command's item may already be on screen: it is shown as soon as its approval is asked.
    if (view.open.has(event.item.id)) return [];
    return [startItem(view, projectItem(event.item), turnId, event.atMs)];
  },
  'item.delta': (view, event, turnId) => {
    const base = { threadId: view.threadId, turnId, itemId: event.itemId, delta: event.delta };
    switch (event.kind) {
      case 'agentMessage': {
        const open = view.open.get(event.itemId);
        if (open) open.text += event.delta;
        return [notification('item/agentMessage/delta', base)];
      }
      case 'commandOutput':
        return [notification('item/commandExecution/outputDelta', base)];
      case 'reasoningContent':
        return [notification('item/reasoning/textDelta', { ...base, contentIndex: 0 })];
      case 'reasoningSummary': {
        const index = event.index ?? 0;
        const out: Outbound[] = [];
        if (index > (view.summaryPart.get(event.itemId) ?? 0)) {
          out.push(notification('item/reasoning/summaryPartAdded', { threadId: view.threadId, turnId, itemId: event.itemId, summaryIndex: index }));
        }
        view.summaryPart.set(event.itemId, index);
        out.push(notification('item/reasoning/summaryTextDelta', { ...base, summaryIndex: index }));
        return out;
      }
    }
  },
  'item.completed': (view, event, turnId) => {
    const item = projectItem(event.item);
    const out: Outbound[] = [];
    if (!view.open.has(item.id)) out.push(startItem(view, item, turnId, event.atMs));
    view.open.delete(item.id);
    out.push(notification('item/completed', { item, threadId: view.threadId, turnId, completedAtMs: event.atMs }));
    return out;
  },
  'approval.requested': (view, event, turnId, nowMs) => {
    const { request } = event;
    view.pendingApprovals.set(event.approvalId, request.callId);
    const out = [setStatus(view, activeStatus(view))];
    if (request.kind === 'exec' && !view.open.has(request.callId)) {
      out.push(startItem(view, pendingCommandItem(request.callId, request.command, request.cwd), turnId, nowMs));
    }
    return out;
  },
  'approval.resolved': (view, event) => {
    const itemId = view.pendingApprovals.get(event.approvalId);
    view.pendingApprovals.delete(event.approvalId);
    const open = itemId === undefined ? undefined : view.open.get(itemId);
    if (open && event.decision === 'abort') open.isDeclined = true;
    return [{ kind: 'requestResolved', approvalId: event.approvalId }, setStatus(view, activeStatus(view))];
  },
  'plan.updated': (view, event, turnId) => [
    notification('turn/plan/updated', {
      threadId: view.threadId,
      turnId,
      explanation: event.explanation,
      plan: event.plan.map((s) => ({ step: s.step, status: PLAN_STATUS[s.status] })),
    }),
  ],
  'diff.updated': (view, event, turnId) => [notification('turn/diff/updated', { threadId: view.threadId, turnId, diff: event.diff })],
  'tokenUsage.updated': (view, event, turnId) => [
    notification('thread/tokenUsage/updated', { threadId: view.threadId, turnId, tokenUsage: event.usage }),
  ],
  warning: (view, event) => [notification('warning', { threadId: view.threadId, message: event.message })],
  error: (view, event, turnId) => {
    const error = notification('error', { error: projectTurnError(event.error), willRetry: event.willRetry, threadId: view.threadId, turnId });
    return event.willRetry ? [error] : [setStatus(view, { type: 'systemError' }), error];
  },
  'model.item': () => [],
  'mcp.serverStatus': (view, event) => [startupStatusUpdated(view.threadId, event.server, event.status, event.error)],
  'mcp.toolCallProgress': (view, event, turnId) => [
    notification('item/mcpToolCall/progress', { threadId: view.threadId, turnId, itemId: event.itemId, message: progressMessage(event) }),
  ],
  'hook.started': (view, event, turnId) => [notification('hook/started', { threadId: view.threadId, turnId, run: projectHookRun(event.run) })],
  'hook.completed': (view, event, turnId) => [notification('hook/completed', { threadId: view.threadId, turnId, run: projectHookRun(event.run) })],
  'turn.completed': (view, event, turnId, nowMs) => {
    // Every item that was shown as started gets its item/completed before turn/completed.
    const out: Outbound[] = [...view.open.values()].map((open) =>
      notification('item/completed', { item: closeOpenItem(open.item, open.text, open.isDeclined), threadId: view.threadId, turnId, completedAtMs: nowMs }),
    );
    view.open.clear();
    view.pendingApprovals.clear();
    view.pendingQuestions.clear();
    view.statusBeforeWait = null;
    if (event.turn.status === 'failed') {
      if (view.status.type !== 'systemError') out.push(setStatus(view, { type: 'systemError' }));
    } else {
      out.push(setStatus(view, { type: 'idle' }));
    }
    out.push(notification('turn/completed', { threadId: view.threadId, turn: projectTurnInfo(event.turn) }));
    return out;
  },
};

/**
 * Projects one engine event of the view's thread; events outside a turn produce nothing, except
 * MCP server status changes (a thread's servers start with it, before any turn).
 */
export function projectEvent(view: ThreadView, event: EngineEvent, nowMs: number = Date.now()): Outbound[] {
  if (event.type === 'mcp.serverStatus') return HANDLERS['mcp.serverStatus'](view, event, event.turnId ?? '', nowMs);
  if (event.turnId === null) return [];
  const handler = HANDLERS[event.type] as Handler<EngineEvent['type']>;
  return handler(view, event, event.turnId, nowMs);
}
