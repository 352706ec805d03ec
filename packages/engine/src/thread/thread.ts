/**
 * Thread: one persisted conversation. It owns the model history (a `History` only it changes),
 * the turns and items shown to users, token usage, the event stream and the single active turn.
 * Every event is stamped with ids and a monotonic seq, and its fact is appended to the rollout
 * before the event is published. A turn sees the thread through the `TurnScope` the thread makes
 * for it; the turn loop itself lives in turn-runner.ts.
 */
import { v7 as uuidv7 } from 'uuid';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../mcp/config.js';
import type { McpServerStatus } from '../mcp/manager.js';
import type { ApprovalRequest, EngineEvent, EngineEventBody, ThreadTokenUsage, TurnInfo, UserInput } from '@deputy/protocol';
import { decisionOf, type ApprovalAnswer } from '../approvals/approval-port.js';
import { NoActiveTurnError, TurnInProgressError, TurnMismatchError, TurnNotSteerableError, InvalidInputError } from '../errors.js';
import { EventStream } from '../events/event-stream.js';
import type { ResponseItem } from '../model/types.js';
import { previewOf } from '../persistence/rollout-summary.js';
import { dropLastTurns, History } from './history.js';
import { raceAbort } from './race-abort.js';
import type { ReplayedThread, RolloutHead } from './replay.js';
import { persistsOnStart } from './replay.js';
import { resolveReviewRequest, type ReviewTarget } from './review.js';
import { applyTurnOverrides, contextKeyOf, type ThreadSettings, type TurnOverrides } from './settings.js';
import { ThreadTurnScope, type ThreadWrites } from './thread-scope.js';
import type { PendingApproval, ThreadDeps, ThreadMeta, TurnHandle, TurnRecord } from './thread-types.js';
import { runTurn } from './turn-runner.js';
import type { ActiveTurn, ReviewRequest, TurnKind } from './turn-scope.js';
import { joinUserShell, type UserShellHandle } from './user-shell.js';

/** Shortest gap between two writes of one item's streamed agent text (see `#partials`). */
const PARTIAL_TEXT_INTERVAL_MS = 250;
/** Least time between two index updates for the items of one turn (turn ends always update). */
const ACTIVITY_INTERVAL_MS = 1_000;

export type { ModelInfo, PendingApproval, ThreadDeps, ThreadMeta, TurnHandle, TurnRecord } from './thread-types.js';
export type { ActiveTurn } from './turn-scope.js';

/** One conversation. */
export class Thread {
  readonly events = new EventStream<EngineEvent>();
  readonly #history = new History();
  readonly #turns: TurnRecord[] = [];
  /** Replays a resumed thread's rollout on first use (a big thread resumes without parsing it all). */
  #deferredLoad: (() => ReplayedThread) | null = null;
  #deferredMessages: (() => TurnRecord[]) | null = null;
  name: string | null = null;
  preview = '';
  usage: ThreadTokenUsage | null = null;
  /** True after a compaction until the next request reports fresh usage. */
  usageIsStale = false;
  updatedAtMs: number;
  readonly pendingApprovals = new Map<string, PendingApproval>();
  #seq = 0;
  #active: ThreadTurnScope | null = null;
  #closed = false;
  /** Whether a regular turn ran since the thread was loaded (`SessionStart` hooks run before the first). */
  #hasSessionStarted = false;
  /** The changes a turn may make (history, approvals), handed to each turn's scope and nothing else. */
  readonly #writes: ThreadWrites = {
    record: (item, turnId) => this.#record(item, turnId),
    recordContext: (items, contextKey, turnId) => {
      this.#materialize();
      this.#history.markContext(contextKey);
      for (const item of items) this.#record(item, turnId);
    },
    replaceHistory: (summary, items, contextKey, turnId) => {
      this.#materialize();
      this.deps.rollout.append({ type: 'compacted', payload: { turnId, summary } });
      this.#history.clear();
      this.usageIsStale = true;
      this.#history.markContext(contextKey);
      for (const item of items) this.#record(item, turnId);
    },
    requestApproval: (turnId, request, signal) => this.#requestApproval(turnId, request, signal),
  };

  #settings: ThreadSettings;

  constructor(
    readonly meta: ThreadMeta,
    settings: ThreadSettings,
    readonly deps: ThreadDeps,
  ) {
    this.#settings = settings;
    this.updatedAtMs = meta.createdAtMs;
  }

  /** The settings the thread's next turn runs with (a running turn keeps its own copy). */
  get settings(): ThreadSettings {
    return this.#settings;
  }

  /**
   * Replaces the thread's settings (thread/settings/update, a resume's overrides, a turn's
   * overrides as the turn starts). Every background terminal that the new sandbox does not cover
   * is ended at once (`ExecSessionManager.endUncovered`): a narrowing reaches running processes,
   * not only later commands.
   */
  set settings(next: ThreadSettings) {
    this.#settings = next;
    void this.deps.execSessions?.endUncovered({ policy: next.sandboxPolicy, cwd: next.cwd }).catch(() => undefined);
  }

  get id(): string {
    return this.meta.id;
  }

  /** The model history (Responses items), in order. Only the thread's turns change it. */
  get history(): readonly ResponseItem[] {
    this.#materialize();
    return this.#history.items;
  }

  /** The turn each history item belongs to (null for items before any turn), parallel to `history`. */
  get historyTurnIds(): readonly (string | null)[] {
    this.#materialize();
    return this.#history.turnIds;
  }

  /** Settings key of the context last given to the model (`contextKeyOf`); a change re-sends the context. */
  get contextKey(): string | null {
    return this.#history.contextKey;
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
   * Takes the state a replay of the thread's rollout rebuilt (a fork), and appends the repairs
   * the replay made (interrupted turns, aborted calls) to the rollout.
   */
  restore(replayed: ReplayedThread): void {
    this.#fill(replayed, replayed.contextKey);
    this.name = replayed.name;
    this.usage = replayed.usage;
  }

  /**
   * Restores a resumed thread from its rollout's head now (name, usage, context key) and
   * defers the replay of its history and turns until they are first needed: `load` runs at most
   * once. `messageView` gives the message-only turns meanwhile (see `messageTurns`).
   */
  deferRestore(head: Pick<RolloutHead, 'name' | 'usage' | 'contextKey'>, load: () => ReplayedThread, messageView: () => TurnRecord[]): void {
    this.name = head.name;
    this.usage = head.usage;
    // The items follow on first use; the head already knows which context they hold.
    this.#history.restore([], [], head.contextKey);
    this.#deferredLoad = load;
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
    // The head's context key stands: it was read from the same lines.
    this.#fill(load(), this.#history.contextKey);
  }

  #fill(replayed: ReplayedThread, contextKey: string | null): void {
    this.#history.restore(replayed.history, replayed.historyTurnIds, contextKey);
    // One push per element: spreading a long thread's turns would overflow the call stack.
    for (const turn of replayed.turns) this.#turns.push(turn);
    for (const fact of replayed.repairs) this.deps.rollout.append(fact);
  }

  /** Drops the last `numTurns` turns and their history (the rollout records a `rollback` line). */
  rollback(numTurns: number): void {
    this.#materialize();
    this.deps.rollout.append({ type: 'rollback', payload: { numTurns } });
    this.#history.rollback(dropLastTurns(this.#turns, numTurns));
  }

  /** Absolute rollout path (null for an in-memory thread). */
  get path(): string | null {
    return this.deps.rollout.path;
  }

  /** The running turn's id, or null. */
  get activeTurnId(): string | null {
    return this.#active?.turn.id ?? null;
  }

  /** The running turn's state. */
  get activeTurn(): ActiveTurn | null {
    return this.#active?.turn ?? null;
  }

  /**
   * Changes the model settings of the running turn `turnId` for its later model requests (a
   * request already sent is unchanged), not the thread's next turns. False when `turnId` is not
   * the running turn.
   */
  updateRunningTurn(turnId: string, changes: Pick<Partial<ThreadSettings>, 'model' | 'reasoningEffort' | 'reasoningSummary'>): boolean {
    const turn = this.#active?.turn;
    if (!turn || turn.id !== turnId) return false;
    turn.settings = { ...turn.settings, ...changes };
    return true;
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
    if (this.#active) throw new TurnInProgressError(this.id, this.#active.turn.id);
    // Review's git runs sandboxed, with the paths commands never see hidden from it too.
    return this.beginReview(await resolveReviewRequest(target, this.settings.cwd, { hiddenPaths: this.deps.extensions?.hiddenPaths }));
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
    if (this.#active) return joinUserShell(this.#active, script);
    const { turnId, done } = this.#begin('userShell', [{ type: 'text', text: script }], {});
    return { turnId, isJoined: false, done: done.then(() => undefined) };
  }

  #begin(kind: TurnKind, input: UserInput[], overrides: TurnOverrides, review?: ReviewRequest): TurnHandle {
    if (this.#closed) throw new InvalidInputError(`thread ${this.id} is closed; resume it to start a turn`);
    if (this.#active) throw new TurnInProgressError(this.id, this.#active.turn.id);
    if (kind === 'regular' && input.length === 0) throw new InvalidInputError('input must not be empty');
    this.settings = applyTurnOverrides(this.settings, overrides);
    const id = uuidv7();
    const turn: ActiveTurn = {
      id,
      rootTurnId: overrides.rootTurnId ?? id,
      clientUserMessageId: overrides.clientUserMessageId ?? null,
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
      ...(kind === 'regular' && !this.#hasSessionStarted ? { sessionStart: this.history.length > 0 ? ('resume' as const) : ('startup' as const) } : {}),
    };
    if (kind === 'regular') this.#hasSessionStarted = true;
    if (kind === 'regular') this.deps.onTurnStart?.(this.settings);
    const scope = new ThreadTurnScope(this, turn, this.#writes);
    this.#active = scope;
    const done = runTurn(scope, input).finally(() => {
      if (this.#active === scope) this.#active = null;
    });
    return { turnId: turn.id, done };
  }

  /** Queues input for the running turn; it joins at the next model request. */
  steer(input: UserInput[], expectedTurnId?: string, clientId: string | null = null): string {
    const turn = this.#active?.turn;
    if (!turn) throw new NoActiveTurnError();
    if (expectedTurnId !== undefined && expectedTurnId !== turn.id) throw new TurnMismatchError(expectedTurnId, turn.id);
    // A user shell turn takes steer input; it is recorded when the command ends (as in Codex).
    if (turn.kind === 'compact' || turn.kind === 'review') throw new TurnNotSteerableError(turn.kind);
    if (input.length === 0) throw new InvalidInputError('input must not be empty');
    turn.steerQueue.push({ input, clientId });
    return turn.id;
  }

  /**
   * Interrupts the running turn (model stream, commands, pending approvals). Returns the turn's
   * final info once it has ended, or null when no turn was running.
   */
  async interrupt(expectedTurnId?: string): Promise<TurnInfo | null> {
    const turn = this.#active?.turn;
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
    if (event.type === 'turn.completed' && this.#active?.turn.id === event.turn.id) this.#active = null;
    this.events.emit(event);
    return event;
  }

  /** Appends an item to the model history (and the rollout), and publishes it raw. */
  #record(item: ResponseItem, turnId: string | null): void {
    this.#materialize();
    this.#history.append(item, turnId);
    this.deps.rollout.append({ type: 'response_item', payload: { turnId, item: item as unknown as Record<string, unknown> } });
    this.emit(turnId, { type: 'model.item', item: item as unknown as Record<string, unknown> });
  }

  /** Asks the approval port, emitting approval events; settles as `abort` when the turn aborts. */
  async #requestApproval(turnId: string, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const approvalId = uuidv7();
    this.pendingApprovals.set(approvalId, { approvalId, turnId, request });
    this.emit(turnId, { type: 'approval.requested', approvalId, request });
    const origin = { threadId: this.id, turnId, approvalId };
    let answer: ApprovalAnswer;
    try {
      const asked =
        request.kind === 'exec'
          ? this.deps.approvals.requestExec(request, origin, signal)
          : this.deps.approvals.requestPatch(request, origin, signal);
      answer = await raceAbort(asked, signal);
    } catch {
      answer = signal.aborted ? 'abort' : 'denied';
    } finally {
      this.pendingApprovals.delete(approvalId);
    }
    this.emit(turnId, { type: 'approval.resolved', approvalId, decision: decisionOf(answer) });
    return answer;
  }

  /** Closes the thread: interrupts a running turn and releases its processes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.interrupt();
    await this.deps.onClose?.();
  }

  /** The live status of every configured MCP server of this thread, sorted by name. */
  mcpServerStatuses(): McpServerStatus[] {
    return this.deps.mcp?.statuses() ?? [];
  }

  /**
   * Applies a reloaded `mcp_servers` set to this thread: only servers whose config changed
   * restart; removed ones stop; new ones start.
   */
  reloadMcpServers(servers: McpServerConfig[]): Promise<void> {
    return this.deps.mcp?.reload(servers) ?? Promise.resolve();
  }

  /** Restarts one of this thread's MCP servers now (after an OAuth login). */
  restartMcpServer(server: string): Promise<void> {
    return this.deps.mcp?.restart(server) ?? Promise.resolve();
  }

  /** A configured MCP server's config (undefined when this thread has no such server). */
  mcpServerConfig(server: string): McpServerConfig | undefined {
    return this.deps.mcp?.config(server);
  }

  /** The capabilities a ready MCP server declared (`{}` otherwise). */
  mcpServerCapabilities(server: string): Record<string, unknown> {
    return this.deps.mcp?.capabilities(server) ?? {};
  }

  /** A direct `tools/call` on a ready server's live connection: no approval, no item (`mcpServer/tool/call`); `onProgress` gets its progress notifications. */
  callMcpTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    meta: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (progress: { progress: number; total?: number; message?: string }) => void,
  ): Promise<CallToolResult> {
    if (!this.deps.mcp) return Promise.reject(new Error(`unknown MCP server '${server}'`));
    return this.deps.mcp.callTool(server, tool, args, meta, onProgress ? { signal, onProgress } : { signal });
  }

  /** A resource request (`resources/list`, `resources/templates/list`, `resources/read`) to a ready server. */
  mcpRequest(server: string, method: 'resources/list' | 'resources/templates/list' | 'resources/read', params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (!this.deps.mcp) return Promise.reject(new Error(`unknown MCP server '${server}'`));
    return this.deps.mcp.request(server, method, params, signal);
  }

  /**
   * Agent text streamed but not yet completed, by item id. It is written as a `partial` item line
   * at most every {@link PARTIAL_TEXT_INTERVAL_MS} per item (and once more when its turn ends
   * without completing it), so a crash mid-answer loses at most that much of what was said.
   */
  #indexedAtMs = 0;
  readonly #partials = new Map<string, { turnId: string; text: string; writtenAtMs: number; written: number }>();

  #persistPartial(itemId: string, force: boolean): void {
    const partial = this.#partials.get(itemId);
    if (!partial || partial.text.length === partial.written) return;
    const now = Date.now();
    if (!force && now - partial.writtenAtMs < PARTIAL_TEXT_INTERVAL_MS) return;
    partial.writtenAtMs = now;
    partial.written = partial.text.length;
    const item = { type: 'agentMessage', id: itemId, text: partial.text, phase: null } as const;
    this.deps.rollout.append({ type: 'item', payload: { turnId: partial.turnId, item, completedAtMs: now, partial: true } });
  }

  #persist(event: EngineEvent): void {
    const rollout = this.deps.rollout;
    switch (event.type) {
      case 'item.started':
        if (event.item.type === 'agentMessage' && event.turnId !== null) this.#partials.set(event.item.id, { turnId: event.turnId, text: '', writtenAtMs: Date.now(), written: 0 });
        // A running tool is on disk, so a crash leaves it in the turn (replayed as failed).
        else if (event.turnId !== null && persistsOnStart(event.item)) rollout.append({ type: 'item', payload: { turnId: event.turnId, item: event.item, completedAtMs: event.atMs, partial: true } });
        break;
      case 'item.delta': {
        const partial = event.kind === 'agentMessage' ? this.#partials.get(event.itemId) : undefined;
        if (partial) {
          partial.text += event.delta;
          this.#persistPartial(event.itemId, false);
        }
        break;
      }
      case 'turn.started':
        rollout.append({
          type: 'turn_started',
          payload: {
            turnId: event.turn.id,
            startedAtMs: event.turn.startedAtMs,
            model: event.model,
            cwd: this.settings.cwd,
            contextKey: contextKeyOf(this.settings),
            ...(event.turn.rootTurnId != null ? { rootTurnId: event.turn.rootTurnId } : {}),
          },
        });
        this.turns.push({ info: event.turn, items: [] });
        break;
      case 'item.completed': {
        this.#partials.delete(event.item.id);
        rollout.append({ type: 'item', payload: { turnId: event.turnId, item: event.item, completedAtMs: event.atMs } });
        this.turns.find((t) => t.info.id === event.turnId)?.items.push(event.item);
        const firstPreview = !this.preview && event.item.type === 'userMessage';
        if (firstPreview) this.preview = previewOf(event.item);
        // Items of a long turn update the index at most once per interval; turn ends always do.
        this.#touch(firstPreview);
        break;
      }
      case 'tokenUsage.updated':
        rollout.append({ type: 'token_usage', payload: { turnId: event.turnId, usage: event.usage } });
        this.usage = event.usage;
        this.usageIsStale = false;
        break;
      case 'turn.completed': {
        // Text of this turn that never completed (an interrupt mid-answer) is kept, then dropped.
        for (const [itemId, partial] of this.#partials) {
          if (partial.turnId !== event.turn.id) continue;
          this.#persistPartial(itemId, true);
          this.#partials.delete(itemId);
          const items = this.turns.find((t) => t.info.id === event.turn.id)?.items;
          if (partial.text.length > 0 && items && !items.some((i) => i.id === itemId)) items.push({ type: 'agentMessage', id: itemId, text: partial.text, phase: null });
        }
        rollout.append({ type: 'turn_ended', payload: { turn: event.turn } });
        const record = this.turns.find((t) => t.info.id === event.turn.id);
        if (record) record.info = event.turn;
        this.#touch(true);
        break;
      }
      default:
        break;
    }
  }

  /**
   * Records activity: `updatedAtMs` always moves; the index (`onActivity`, a synchronous SQLite
   * write) hears of it when `force`d or at most once per `ACTIVITY_INTERVAL_MS`, so a turn that
   * streams thousands of items does not pay one index write per item.
   */
  #touch(force: boolean): void {
    this.updatedAtMs = Date.now();
    if (!force && this.updatedAtMs - this.#indexedAtMs < ACTIVITY_INTERVAL_MS) return;
    this.#indexedAtMs = this.updatedAtMs;
    this.deps.onActivity(this);
  }
}
