/**
 * The `TurnScope` a thread makes for each of its turns: reads go to the thread, and changes go
 * through the `ThreadWrites` the thread hands over (the thread keeps its `History` private, so
 * these are its only writers besides the thread's own restore and rollback). Knows the thread only through `ScopeHost`, so it
 * imports no value from thread.ts.
 */
import type { ApprovalRequest, EngineEventBody, ThreadTokenUsage, UserInput } from '@deputy/protocol';
import type { ApprovalAnswer } from '../approvals/approval-port.js';
import type { ResponseItem } from '../model/types.js';
import type { TurnRecord } from './thread-types.js';
import type { ActiveTurn, TurnDeps, TurnScope } from './turn-scope.js';

/** What a turn may change in its thread (its history, its approvals), by turn id; see `TurnScope`. */
export interface ThreadWrites {
  record(item: ResponseItem, turnId: string): void;
  recordContext(items: readonly ResponseItem[], contextKey: string, turnId: string): void;
  replaceHistory(summary: string, items: readonly ResponseItem[], contextKey: string, turnId: string): void;
  requestApproval(turnId: string, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** What a turn's scope reads of its thread. */
export interface ScopeHost {
  readonly id: string;
  readonly deps: TurnDeps;
  readonly history: readonly ResponseItem[];
  readonly contextKey: string | null;
  readonly usage: ThreadTokenUsage | null;
  readonly usageIsStale: boolean;
  readonly turns: readonly TurnRecord[];
  emit(turnId: string | null, body: EngineEventBody): unknown;
}

/** The scope of one turn of a thread: its reads go to the thread, its writes through `ThreadWrites`. */
export class ThreadTurnScope implements TurnScope {
  readonly threadId: string;
  readonly deps: TurnDeps;
  readonly #thread: ScopeHost;
  readonly #writes: ThreadWrites;

  constructor(
    thread: ScopeHost,
    readonly turn: ActiveTurn,
    writes: ThreadWrites,
  ) {
    this.#thread = thread;
    this.#writes = writes;
    this.threadId = thread.id;
    this.deps = thread.deps;
  }

  get history(): readonly ResponseItem[] {
    return this.#thread.history;
  }
  get contextKey(): string | null {
    return this.#thread.contextKey;
  }
  get usage(): ThreadTokenUsage | null {
    return this.#thread.usage;
  }
  get usageIsStale(): boolean {
    return this.#thread.usageIsStale;
  }

  userInputs(): UserInput[][] {
    const record = this.#thread.turns.find((t) => t.info.id === this.turn.id);
    return record?.items.flatMap((i) => (i.type === 'userMessage' ? [i.content] : [])) ?? [];
  }

  emit(body: EngineEventBody): void {
    this.#thread.emit(this.turn.id, body);
  }
  record(item: ResponseItem): void {
    this.#writes.record(item, this.turn.id);
  }
  recordContext(items: readonly ResponseItem[], contextKey: string): void {
    this.#writes.recordContext(items, contextKey, this.turn.id);
  }
  replaceHistory(summary: string, items: readonly ResponseItem[], contextKey: string): void {
    this.#writes.replaceHistory(summary, items, contextKey, this.turn.id);
  }
  requestApproval(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return this.#writes.requestApproval(this.turn.id, request, this.turn.controller.signal);
  }
}
