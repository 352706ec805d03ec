/**
 * Thread: one persisted conversation. It owns the history sent to the model, the turns and items
 * shown to users, token usage, the event stream and the single active turn. Every event is
 * stamped with ids and a monotonic seq, and its fact is appended to the rollout before the event
 * is published. The turn loop itself lives in turn-runner.ts.
 */
import { v7 as uuidv7 } from 'uuid';
import type {
  ApprovalRequest,
  EngineEvent,
  EngineEventBody,
  ReviewDecision,
  ThreadItem,
  ThreadTokenUsage,
  TurnInfo,
  UserInput,
} from '@deputy/protocol';
import type { ApprovalPort } from '../approvals/approval-port.js';
import { NoActiveTurnError, TurnInProgressError, TurnMismatchError, TurnNotSteerableError, InvalidInputError } from '../errors.js';
import { EventStream } from '../events/event-stream.js';
import type { ModelClient, ResponseItem } from '../model/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { previewOf } from '../persistence/rollout-summary.js';
import type { RolloutSink } from './rollout-sink.js';
import { applyTurnOverrides, contextKeyOf, type ThreadSettings, type TurnOverrides } from './settings.js';
import { resolveReviewRequest, type ReviewRequest, type ReviewTarget } from './review.js';
import { runTurn } from './turn-runner.js';
import { joinUserShell, type UserShellHandle } from './user-shell.js';

/** What the model runs on, as the catalogue describes it. */
export interface ModelInfo {
  contextWindow: number | null;
  supportsReasoning: boolean;
  supportsReasoningSummaries: boolean;
  known: boolean;
}

/** Collaborators a thread needs; the ThreadManager provides them. */
export interface ThreadDeps {
  modelClient: ModelClient;
  wire: 'responses' | 'chat';
  describeModel(model: string): ModelInfo;
  approvals: ApprovalPort;
  rollout: RolloutSink;
  tools: ToolRegistry;
  projectDocMaxBytes: number;
  autoCompactTokenLimit: number | null;
  /** Called after each persisted change that the index cares about. */
  onActivity(thread: Thread): void;
  /** Called when the thread is closed (kills background processes). */
  onClose?(): void;
  /** The environment child processes get (shell_environment_policy); default: the default policy. */
  childEnv?(): Record<string, string>;
}

/** Static facts about a thread. */
export interface ThreadMeta {
  id: string;
  createdAtMs: number;
  modelProvider: string;
  source: string;
  forkedFromId: string | null;
  cliVersion: string;
}

/** A turn as the thread keeps it: its info and its completed items. */
export interface TurnRecord {
  info: TurnInfo;
  items: ThreadItem[];
}

/** A pending approval, for status views. */
export interface PendingApproval {
  approvalId: string;
  turnId: string;
  request: ApprovalRequest;
}

/** A running turn's handle. */
export interface TurnHandle {
  turnId: string;
  /** Resolves with the final turn info (completed, interrupted or failed); never rejects. */
  done: Promise<TurnInfo>;
}

/** The mutable state of the active turn, shared with the turn runner. */
export interface ActiveTurn {
  id: string;
  /**
   * `compact`: a turn that only compacts the history (`Thread.startCompaction`); it takes no steer
   * input. `userShell`: a turn that only runs a user shell command (`Thread.runUserShellCommand`).
   * `review`: a code review (`Thread.startReview`, see review.ts); it takes no steer input either.
   */
  kind: 'regular' | 'compact' | 'userShell' | 'review';
  /** What a `review` turn reviews (its prompt and the text shown to users). */
  review?: ReviewRequest;
  settings: ThreadSettings;
  outputSchema: Record<string, unknown> | null;
  controller: AbortController;
  steerQueue: UserInput[][];
  startedAtMs: number;
  /** Per-turn scratch space for tools (e.g. the aggregate diff tracker). */
  toolState: Map<string, unknown>;
  /** User shell commands that joined this turn and still run; the turn completes after them. */
  userShells: Set<Promise<void>>;
  /** Model items waiting for the turn's next model request (user shell records). */
  pendingHistory: ResponseItem[];
}

/** One conversation. */
export class Thread {
  readonly events = new EventStream<EngineEvent>();
  readonly #history: ResponseItem[] = [];
  readonly #historyTurnIds: (string | null)[] = [];
  readonly #turns: TurnRecord[] = [];
  /** Replays a resumed thread's rollout on first use (a big thread resumes without parsing it all). */
  #deferredLoad: (() => void) | null = null;
  #deferredMessages: (() => TurnRecord[]) | null = null;
  name: string | null = null;
  preview = '';
  usage: ThreadTokenUsage | null = null;
  /** True after a compaction until the next request reports fresh usage. */
  usageIsStale = false;
  updatedAtMs: number;
  /** Settings of the context last given to the model; a change re-sends the context. */
  contextKey: string | null = null;
  readonly pendingApprovals = new Map<string, PendingApproval>();
  #seq = 0;
  #active: ActiveTurn | null = null;
  #closed = false;

  constructor(
    readonly meta: ThreadMeta,
    public settings: ThreadSettings,
    readonly deps: ThreadDeps,
  ) {
    this.updatedAtMs = meta.createdAtMs;
  }

  get id(): string {
    return this.meta.id;
  }

  /** The model history (Responses items), in order. */
  get history(): ResponseItem[] {
    this.#materialize();
    return this.#history;
  }

  /** The turn each history item belongs to (null for items before any turn), parallel to `history`. */
  get historyTurnIds(): (string | null)[] {
    this.#materialize();
    return this.#historyTurnIds;
  }

  /** The turns with their completed items. */
  get turns(): TurnRecord[] {
    this.#materialize();
    return this.#turns;
  }

  /** Whether the history and turns are still waiting to be replayed from the rollout. */
  get isDeferred(): boolean {
    return this.#deferredLoad !== null;
  }

  /**
   * Defers filling the history and turns until they are first needed. `load` receives the arrays
   * to fill; it runs at most once.
   */
  deferLoad(
    load: (target: { history: ResponseItem[]; historyTurnIds: (string | null)[]; turns: TurnRecord[] }) => void,
    messageView: () => TurnRecord[],
  ): void {
    this.#deferredLoad = () => load({ history: this.#history, historyTurnIds: this.#historyTurnIds, turns: this.#turns });
    this.#deferredMessages = messageView;
  }

  /**
   * The turns with only their user and agent messages (what a resumed conversation shows). Cheap
   * on a thread that has not been replayed yet: other items are not parsed.
   */
  messageTurns(): TurnRecord[] {
    if (this.#deferredLoad && this.#deferredMessages) return this.#deferredMessages();
    return this.turns.map((t) => ({ info: t.info, items: t.items.filter((i) => i.type === 'userMessage' || i.type === 'agentMessage') }));
  }

  #materialize(): void {
    const load = this.#deferredLoad;
    if (!load) return;
    this.#deferredLoad = null;
    this.#deferredMessages = null;
    load();
  }

  /** Absolute rollout path (null for an in-memory thread). */
  get path(): string | null {
    return this.deps.rollout.path;
  }

  /** The running turn's id, or null. */
  get activeTurnId(): string | null {
    return this.#active?.id ?? null;
  }

  /** The running turn's state (for the runner). */
  get activeTurn(): ActiveTurn | null {
    return this.#active;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * Starts a turn with `input`. Throws TurnInProgressError when a turn is running (steer is the
   * way to add input then). Overrides become the thread's defaults, as in Codex.
   */
  startTurn(input: UserInput[], overrides: TurnOverrides = {}): TurnHandle {
    return this.#begin('regular', input, overrides);
  }

  /**
   * Starts a turn that only compacts the history: the model summarises it, and the summary with
   * the context messages replaces it (a `contextCompaction` item). Throws as `startTurn` does.
   */
  startCompaction(): TurnHandle {
    return this.#begin('compact', [], {});
  }

  /**
   * Starts a review turn (the TUI's `/review`): `target` becomes the reviewer's prompt (with the
   * git diff it names, read in the thread's cwd) and the turn runs as review.ts describes. Throws
   * InvalidInputError for an empty target or a git target outside a git repository, and as
   * `startTurn` does when a turn runs.
   */
  async startReview(target: ReviewTarget): Promise<TurnHandle> {
    if (this.#closed) throw new InvalidInputError(`thread ${this.id} is closed; resume it to start a turn`);
    if (this.#active) throw new TurnInProgressError(this.id, this.#active.id);
    return this.beginReview(await resolveReviewRequest(target, this.settings.cwd));
  }

  /** Starts a review turn for an already resolved request (see `resolveReviewRequest`). */
  beginReview(request: ReviewRequest): TurnHandle {
    return this.#begin('review', [], {}, request);
  }

  /**
   * Runs `command` as the user's own shell command (the TUI's `!cmd`): in the user's shell,
   * unsandboxed, shown as a `userShell` command item and recorded for the model. With a turn
   * running it joins that turn; otherwise it runs as a turn of its own. See user-shell.ts.
   */
  runUserShellCommand(command: string): UserShellHandle {
    if (this.#closed) throw new InvalidInputError(`thread ${this.id} is closed; resume it to run a command`);
    const script = command.trim();
    if (script === '') throw new InvalidInputError('command must not be empty');
    if (this.#active) return joinUserShell(this, this.#active, script);
    const { turnId, done } = this.#begin('userShell', [{ type: 'text', text: script }], {});
    return { turnId, isJoined: false, done: done.then(() => undefined) };
  }

  #begin(kind: ActiveTurn['kind'], input: UserInput[], overrides: TurnOverrides, review?: ReviewRequest): TurnHandle {
    if (this.#closed) throw new InvalidInputError(`thread ${this.id} is closed; resume it to start a turn`);
    if (this.#active) throw new TurnInProgressError(this.id, this.#active.id);
    if (kind === 'regular' && input.length === 0) throw new InvalidInputError('input must not be empty');
    this.settings = applyTurnOverrides(this.settings, overrides);
    const turn: ActiveTurn = {
      id: uuidv7(),
      kind,
      settings: this.settings,
      outputSchema: overrides.outputSchema ?? null,
      controller: new AbortController(),
      steerQueue: [],
      startedAtMs: Date.now(),
      toolState: new Map(),
      userShells: new Set(),
      pendingHistory: [],
      ...(review ? { review } : {}),
    };
    this.#active = turn;
    const done = runTurn(this, turn, input).finally(() => {
      if (this.#active === turn) this.#active = null;
    });
    return { turnId: turn.id, done };
  }

  /** Queues input for the running turn; it joins at the next model request. */
  steer(input: UserInput[], expectedTurnId?: string): string {
    const turn = this.#active;
    if (!turn) throw new NoActiveTurnError();
    if (expectedTurnId !== undefined && expectedTurnId !== turn.id) throw new TurnMismatchError(expectedTurnId, turn.id);
    // A user shell turn takes steer input; it is recorded when the command ends (as in Codex).
    if (turn.kind === 'compact' || turn.kind === 'review') throw new TurnNotSteerableError(turn.kind);
    if (input.length === 0) throw new InvalidInputError('input must not be empty');
    turn.steerQueue.push(input);
    return turn.id;
  }

  /**
   * Interrupts the running turn (model stream, commands, pending approvals). Returns the turn's
   * final info once it has ended, or null when no turn was running.
   */
  async interrupt(expectedTurnId?: string): Promise<TurnInfo | null> {
    const turn = this.#active;
    if (!turn) return null;
    if (expectedTurnId !== undefined && expectedTurnId !== turn.id) throw new TurnMismatchError(expectedTurnId, turn.id);
    const ended = new Promise<TurnInfo>((resolve) => {
      const off = this.events.subscribe((event) => {
        if (event.type === 'turn.completed' && event.turnId === turn.id) {
          off();
          resolve(event.turn);
        }
      });
    });
    turn.controller.abort(new Error('interrupted'));
    return ended;
  }

  /**
   * Stamps, persists and publishes an event. Facts are on disk before listeners see them. The
   * turn stops being active before `turn.completed` is published, so a listener may start the
   * next turn at once, and steer input can no longer join a turn that has ended.
   */
  emit(turnId: string | null, body: EngineEventBody): EngineEvent {
    const event = { ...body, threadId: this.id, turnId, seq: ++this.#seq } as EngineEvent;
    this.#persist(event);
    if (event.type === 'turn.completed' && this.#active?.id === event.turn.id) this.#active = null;
    this.events.emit(event);
    return event;
  }

  /** Appends an item to the model history (and the rollout), and publishes it raw. */
  recordHistory(item: ResponseItem, turnId: string | null): void {
    this.history.push(item);
    this.historyTurnIds.push(turnId);
    this.deps.rollout.append({ type: 'response_item', payload: { turnId, item: item as unknown as Record<string, unknown> } });
    this.emit(turnId, { type: 'model.item', item: item as unknown as Record<string, unknown> });
  }

  /** Asks the approval port, emitting approval events; settles as `abort` when the turn aborts. */
  async requestApproval(turnId: string, request: ApprovalRequest, signal: AbortSignal): Promise<ReviewDecision> {
    const approvalId = uuidv7();
    this.pendingApprovals.set(approvalId, { approvalId, turnId, request });
    this.emit(turnId, { type: 'approval.requested', approvalId, request });
    const origin = { threadId: this.id, turnId, approvalId };
    let decision: ReviewDecision;
    try {
      const asked =
        request.kind === 'exec'
          ? this.deps.approvals.requestExec(request, origin, signal)
          : this.deps.approvals.requestPatch(request, origin, signal);
      decision = await raceAbort(asked, signal);
    } catch {
      decision = signal.aborted ? 'abort' : 'denied';
    } finally {
      this.pendingApprovals.delete(approvalId);
    }
    this.emit(turnId, { type: 'approval.resolved', approvalId, decision });
    return decision;
  }

  /** Closes the thread: interrupts a running turn and releases its processes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.interrupt();
    this.deps.onClose?.();
  }

  #persist(event: EngineEvent): void {
    const rollout = this.deps.rollout;
    switch (event.type) {
      case 'turn.started':
        rollout.append({
          type: 'turn_started',
          payload: { turnId: event.turn.id, startedAtMs: event.turn.startedAtMs, model: event.model, cwd: this.settings.cwd, contextKey: contextKeyOf(this.settings) },
        });
        this.turns.push({ info: event.turn, items: [] });
        break;
      case 'item.completed': {
        rollout.append({ type: 'item', payload: { turnId: event.turnId, item: event.item, completedAtMs: event.atMs } });
        this.turns.find((t) => t.info.id === event.turnId)?.items.push(event.item);
        if (!this.preview && event.item.type === 'userMessage') this.preview = previewOf(event.item);
        this.#touch();
        break;
      }
      case 'tokenUsage.updated':
        rollout.append({ type: 'token_usage', payload: { turnId: event.turnId, usage: event.usage } });
        this.usage = event.usage;
        this.usageIsStale = false;
        break;
      case 'turn.completed': {
        rollout.append({ type: 'turn_ended', payload: { turn: event.turn } });
        const record = this.turns.find((t) => t.info.id === event.turn.id);
        if (record) record.info = event.turn;
        this.#touch();
        break;
      }
      default:
        break;
    }
  }

  #touch(): void {
    this.updatedAtMs = Date.now();
    this.deps.onActivity(this);
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
