/**
 * Rebuilds a thread's state from its rollout lines: the model history (honouring compaction and
 * rollback), the turns with their items, the name and token usage. A turn that never ended (the
 * process died mid-turn) comes back as interrupted, and a tool call left without output gets an
 * "aborted" output, so the history is valid for the next request.
 */
import type { ThreadItem, ThreadTokenUsage, TurnInfo } from '@deputy/protocol';
import type { ResponseItem } from '../model/types.js';
import type { RolloutLine, RolloutLineType } from '../persistence/rollout-line.js';
import { RolloutFormatError } from '../persistence/rollout-reader.js';
import { dropLastTurns, dropTurnItems } from './history.js';
import type { RolloutFact } from './rollout-sink.js';
import type { TurnRecord } from './thread-types.js';

/** The state recovered from a rollout. */
export interface ReplayedThread {
  history: ResponseItem[];
  historyTurnIds: (string | null)[];
  turns: TurnRecord[];
  name: string | null;
  usage: ThreadTokenUsage | null;
  /** Facts to append so the rollout reflects the repair (interrupted turns, aborted calls). */
  repairs: RolloutFact[];
  /** The last turn's cwd and model, if any turn ran. */
  lastCwd: string | null;
  lastModel: string | null;
  /** The context key the history's context messages match (null: unknown, send them again). */
  contextKey: string | null;
}

/**
 * Adds an item to a turn's items, replacing an earlier line for the same item id: a `partial`
 * agent text line is followed by its longer successors, then by the completed item; a tool item
 * written when it started (`open` holds those ids) is followed by its completed line.
 */
function upsertItem(items: ThreadItem[], item: ThreadItem, open?: Set<string>): void {
  const replaces = item.type === 'agentMessage' || (open?.delete(item.id) ?? false);
  let at = -1;
  if (replaces) for (let i = items.length - 1; i >= 0 && at === -1; i--) if (items[i]?.id === item.id) at = i;
  if (at === -1) items.push(item);
  else items[at] = item;
}

/** The item types written when they start (with status `inProgress`), so a crash leaves them in the rollout. */
const STARTED_TOOL_ITEMS = new Set<ThreadItem['type']>(['commandExecution', 'fileChange', 'mcpToolCall', 'dynamicToolCall']);

/** Whether an `item.started` is written to the rollout (the thread does, replay expects it). */
export function persistsOnStart(item: ThreadItem): boolean {
  return STARTED_TOOL_ITEMS.has(item.type);
}

/** What a tool item that was running when its process died becomes: failed, with the reason. */
function cutShort(item: ThreadItem): ThreadItem {
  switch (item.type) {
    case 'commandExecution':
    case 'fileChange':
    case 'dynamicToolCall':
      return { ...item, status: 'failed' };
    case 'mcpToolCall':
      return { ...item, status: 'failed', error: item.error ?? CUT_SHORT };
    default:
      return item;
  }
}

const CUT_SHORT = 'aborted: the process running this call stopped before it finished';

/** Replays rollout lines (after `session_meta`) into thread state. */
export function replayRollout(lines: readonly { type: string; payload: Record<string, unknown> }[], nowMs = Date.now()): ReplayedThread {
  const state: ReplayedThread = { history: [], historyTurnIds: [], turns: [], name: null, usage: null, repairs: [], lastCwd: null, lastModel: null, contextKey: null };
  // Tool items seen started (a `partial` line) and not yet completed.
  const open = new Set<string>();
  for (const line of lines) {
    const p = payloadOf(line);
    if (p === undefined) continue;
    switch (line.type) {
      case 'turn_started':
        state.turns.push({
          info: {
            id: p.turnId as string,
            status: 'inProgress',
            error: null,
            startedAtMs: p.startedAtMs as number,
            completedAtMs: null,
            lastAgentMessage: null,
            ...(typeof p.rootTurnId === 'string' ? { rootTurnId: p.rootTurnId } : {}),
          },
          items: [],
        });
        state.lastCwd = p.cwd as string;
        state.lastModel = p.model as string;
        state.contextKey = (p.contextKey as string | undefined) ?? null;
        break;
      case 'response_item':
        state.history.push(p.item as unknown as ResponseItem);
        state.historyTurnIds.push((p.turnId as string | null) ?? null);
        break;
      case 'item': {
        const turn = turnById(state.turns, p.turnId as string);
        const item = p.item as ThreadItem;
        if (!turn) break;
        if (p.partial === true && item.type !== 'agentMessage') {
          // A tool item's start: a later line for it replaces it.
          if (open.has(item.id)) upsertItem(turn.items, item, open);
          else turn.items.push(item);
          open.add(item.id);
        } else upsertItem(turn.items, item, open);
        break;
      }
      case 'token_usage':
        state.usage = p.usage as ThreadTokenUsage;
        break;
      case 'turn_ended': {
        const turn = p.turn as TurnInfo;
        const record = turnById(state.turns, turn.id);
        if (record) record.info = turn;
        break;
      }
      case 'compacted':
        state.history.length = 0;
        state.historyTurnIds.length = 0;
        state.contextKey = null;
        break;
      case 'thread_name':
        state.name = (p.name as string | null) ?? null;
        break;
      case 'rollback':
        rollback(state, p.numTurns as number);
        state.contextKey = null;
        break;
      default:
        break;
    }
  }
  repairUnfinished(state, open, nowMs);
  return state;
}

/**
 * A line's payload, or undefined when it is a lazily read line that turns out malformed: the
 * same line read eagerly would have been stepped over with a warning, so replay steps over it too.
 */
function payloadOf<P>(line: { payload: P }): P | undefined {
  try {
    return line.payload;
  } catch (error) {
    if (error instanceof RolloutFormatError) return undefined;
    throw error;
  }
}

/** The turn with this id, searched from the newest (where a rollout's items almost always go). */
function turnById(turns: readonly TurnRecord[], id: string): TurnRecord | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]?.info.id === id) return turns[i];
  return undefined;
}

/** Drops the last `numTurns` turns from the turns and the history. */
function rollback(state: Pick<ReplayedThread, 'turns' | 'history' | 'historyTurnIds'>, numTurns: number): void {
  dropTurnItems(state.history, state.historyTurnIds, dropLastTurns(state.turns, numTurns));
}

function repairUnfinished(state: ReplayedThread, open: ReadonlySet<string>, _nowMs: number): void {
  const answered = new Set<string>();
  for (const item of state.history) {
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') answered.add(item.call_id);
  }
  state.history.forEach((item, index) => {
    if ((item.type === 'function_call' || item.type === 'custom_tool_call') && !answered.has(item.call_id)) {
      const output: ResponseItem = {
        type: item.type === 'function_call' ? 'function_call_output' : 'custom_tool_call_output',
        call_id: item.call_id,
        output: CUT_SHORT,
      };
      const turnId = state.historyTurnIds[index] ?? null;
      state.repairs.push({ type: 'response_item', payload: { turnId, item: output as unknown as Record<string, unknown> } });
    }
  });
  for (const fact of state.repairs) {
    state.history.push(fact.payload.item as unknown as ResponseItem);
    state.historyTurnIds.push((fact.payload.turnId as string | null) ?? null);
  }
  for (const turn of state.turns) {
    // A tool item still running when the process died is written again as failed.
    if (open.size > 0) turn.items.forEach((item, index) => {
      if (!open.has(item.id) || !('status' in item) || item.status !== 'inProgress') return;
      const failed = cutShort(item);
      turn.items[index] = failed;
      state.repairs.push({ type: 'item', payload: { turnId: turn.info.id, item: failed as unknown as Record<string, unknown>, completedAtMs: turn.info.completedAtMs ?? turn.info.startedAtMs } });
    });
    if (turn.info.status !== 'inProgress') continue;
    const lastAgent = [...turn.items].reverse().find((i) => i.type === 'agentMessage');
    turn.info = { ...turn.info, status: 'interrupted', completedAtMs: null, lastAgentMessage: lastAgent?.type === 'agentMessage' ? lastAgent.text : null };
    state.repairs.push({ type: 'turn_ended', payload: { turn: turn.info } });
  }
}

/** What a resume needs before the history is replayed: the thread's name, usage and last settings. */
export interface RolloutHead {
  name: string | null;
  usage: ThreadTokenUsage | null;
  lastCwd: string | null;
  lastModel: string | null;
  /** As `ReplayedThread.contextKey`. */
  contextKey: string | null;
}

/**
 * Reads the small facts of a rollout (name, usage, last cwd and model, context key) from its
 * lines without replaying it; `RESUME_LINES` picks the lines it needs out of a `scanRollout`.
 */
export function scanRolloutHead(lines: readonly RolloutLine[]): RolloutHead {
  const head: RolloutHead = { name: null, usage: null, lastCwd: null, lastModel: null, contextKey: null };
  for (const line of lines) {
    if (line.type === 'turn_started') {
      head.lastCwd = line.payload.cwd;
      head.lastModel = line.payload.model;
      head.contextKey = line.payload.contextKey ?? null;
    } else if (line.type === 'compacted' || line.type === 'rollback') {
      head.contextKey = null;
    } else if (line.type === 'token_usage') {
      head.usage = line.payload.usage;
    } else if (line.type === 'thread_name') {
      head.name = line.payload.name;
    }
  }
  return head;
}

/** Item kinds kept by {@link messageTurns}. */
const MESSAGE_TYPES = new Set(['userMessage', 'agentMessage']);

/**
 * Which lines a resume needs before the thread is replayed (a `scanRollout` filter): the turn
 * boundaries, rollbacks and user and agent messages for `messageTurns`, and the name, usage,
 * last turn settings and context key for `scanRolloutHead` (which compactions reset). An item's kind is read from the start of its raw
 * JSON, so the other items (command output, diffs, …) are never parsed.
 */
export function RESUME_LINES(type: RolloutLineType, payloadPrefix: (maxBytes: number) => string): boolean {
  if (type === 'item') {
    const peeked = /^\{"turnId":"[^"]*","item":\{"type":"(\w+)"/.exec(payloadPrefix(200));
    return peeked === null || MESSAGE_TYPES.has(peeked[1] as string);
  }
  return type === 'turn_started' || type === 'turn_ended' || type === 'rollback' || type === 'compacted' || type === 'token_usage' || type === 'thread_name';
}

/**
 * The turns of a rollout with only their user and agent messages: what a resumed conversation
 * shows (`replayRollout` gives every item). Other lines are ignored, so the lines of a
 * `scanRollout` with `RESUME_LINES` give the same turns as the whole file.
 */
export function messageTurns(lines: readonly RolloutLine[], _nowMs = Date.now()): TurnRecord[] {
  const turns: TurnRecord[] = [];
  for (const line of lines) {
    if (line.type === 'item') {
      const turn = MESSAGE_TYPES.has(line.payload.item.type) ? turnById(turns, line.payload.turnId) : undefined;
      if (turn) upsertItem(turn.items, line.payload.item);
    } else if (line.type === 'turn_started') {
      const p = line.payload;
      const root = p.rootTurnId !== undefined ? { rootTurnId: p.rootTurnId } : {};
      turns.push({ info: { id: p.turnId, status: 'inProgress', error: null, startedAtMs: p.startedAtMs, completedAtMs: null, lastAgentMessage: null, ...root }, items: [] });
    } else if (line.type === 'turn_ended') {
      const record = turnById(turns, line.payload.turn.id);
      if (record) record.info = line.payload.turn;
    } else if (line.type === 'rollback') {
      turns.splice(Math.max(0, turns.length - line.payload.numTurns));
    }
  }
  for (const turn of turns) {
    if (turn.info.status !== 'inProgress') continue;
    const lastAgent = [...turn.items].reverse().find((i) => i.type === 'agentMessage');
    turn.info = { ...turn.info, status: 'interrupted', completedAtMs: null, lastAgentMessage: lastAgent?.type === 'agentMessage' ? lastAgent.text : null };
  }
  return turns;
}
