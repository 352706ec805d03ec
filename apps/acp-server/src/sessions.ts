/**
 * Sessions of the ACP front door: one Deputy thread per ACP session (`sessionId` = thread id),
 * its mode, and the turn running in it. A prompt starts one turn and streams its events as
 * `session/update` notifications, all sent before the prompt's response; `session/cancel`
 * interrupts the turn, which then answers `cancelled`. Nothing of a turn is sent after its
 * response: the subscription ends and the send chain drains first.
 */
import { realpathSync } from 'node:fs';
import * as acp from '@agentclientprotocol/sdk';
import type { ResolvedConfig, Thread, TurnHandle, TurnOverrides } from '@deputy/engine';
import type { EngineEvent, ReasoningEffort, TurnInfo, UserInput } from '@deputy/protocol';
import type { Logger } from './log.js';
import type { ModelChoice } from './models.js';
import { eventUpdates, outputContent, type ClientView, type LiveState } from './projection.js';

/** An approval preset shown as an ACP mode (docs/acp.md, "Modes"). */
export interface ModePreset {
  id: string;
  name: string;
  description: string;
  approvalPolicy: ResolvedConfig['approvalPolicy'];
  sandboxMode: ResolvedConfig['sandboxMode'];
}

/** Codex's built-in approval presets. */
export const PRESETS: readonly ModePreset[] = [
  { id: 'read-only', name: 'Read Only', description: 'Reads files; asks before any change or network access', approvalPolicy: 'on-request', sandboxMode: 'read-only' },
  { id: 'auto', name: 'Default', description: 'Edits and runs commands in the workspace; asks before leaving it', approvalPolicy: 'on-request', sandboxMode: 'workspace-write' },
  { id: 'full-access', name: 'Full Access', description: 'Edits anywhere and uses the network without asking', approvalPolicy: 'never', sandboxMode: 'danger-full-access' },
];

/** The modes offered for a configuration: the presets, plus `custom` when the config matches none. */
export function modesFor(config: Pick<ResolvedConfig, 'approvalPolicy' | 'sandboxMode'>): { presets: ModePreset[]; initial: string } {
  const match = PRESETS.find((p) => p.approvalPolicy === config.approvalPolicy && p.sandboxMode === config.sandboxMode);
  if (match) return { presets: [...PRESETS], initial: match.id };
  const custom: ModePreset = {
    id: 'custom',
    name: `From config (${config.approvalPolicy}, ${config.sandboxMode})`,
    description: 'The approval policy and sandbox of config.toml',
    approvalPolicy: config.approvalPolicy,
    sandboxMode: config.sandboxMode,
  };
  return { presets: [...PRESETS, custom], initial: 'custom' };
}

/** Sends one `session/update`. */
export type UpdateSender = (params: acp.SessionNotification) => Promise<void>;

interface RunningTurn {
  turnId: string | null;
  cancelRequested: boolean;
  done: Promise<unknown>;
  /** Sends an update in order with the turn's others; resolves once it is written. */
  send(update: acp.SessionUpdate): Promise<void>;
}

/** What sessions share: the current config, the model choices, the sandbox of a mode. */
export interface SessionEnv {
  config(): ResolvedConfig;
  /** The models to offer, configured one first. */
  models(): ModelChoice[];
  /** The efforts `model` accepts, lowest first, and its default. */
  efforts(model: string): { efforts: ReasoningEffort[]; defaultEffort: ReasoningEffort | null };
  /** The sandbox a mode runs with, the additional directories writable under workspace-write. */
  sandboxPolicy(preset: ModePreset, additionalDirectories: readonly string[]): TurnOverrides['sandboxPolicy'];
}

/** One ACP session. */
export class AcpSession {
  #running: RunningTurn | null = null;
  modeId: string;
  readonly presets: ModePreset[];
  /** Extra writable roots of the session (`additionalDirectories`), absolute. */
  additionalDirectories: string[] = [];
  /** Model and effort chosen for the next turn (they become the thread's when it starts). */
  #next: { model?: string; reasoningEffort?: ReasoningEffort | null } = {};
  /** The config options the client was last told, as JSON (to push a change once). */
  advertised = '';

  constructor(
    readonly thread: Thread,
    private readonly env: SessionEnv,
    private readonly log: Logger,
  ) {
    const modes = modesFor(env.config());
    this.presets = modes.presets;
    this.modeId = modes.initial;
  }

  get id(): string {
    return this.thread.id;
  }

  /** The model of the next turn. */
  get model(): string {
    return this.#next.model ?? this.thread.settings.model;
  }

  /** The reasoning effort of the next turn (null: the model's default). */
  get reasoningEffort(): ReasoningEffort | null {
    return this.#next.reasoningEffort !== undefined ? this.#next.reasoningEffort : this.thread.settings.reasoningEffort;
  }

  /** The session's roots: its cwd and additional directories, symlinks resolved. */
  roots(): string[] {
    return [this.thread.settings.cwd, ...this.additionalDirectories].map((root) => {
      try {
        return realpathSync(root);
      } catch {
        return root;
      }
    });
  }

  /** The `modes` field of session responses. */
  modeState(): acp.SessionModeState {
    return { currentModeId: this.modeId, availableModes: this.presets.map((p) => ({ id: p.id, name: p.name, description: p.description })) };
  }

  /**
   * The `configOptions` field: the mode (kept in sync with `modes`), the model (the catalogue
   * plus the session's model), and the reasoning effort when the model has two or more.
   */
  configOptions(): acp.SessionConfigOption[] {
    const model = this.model;
    const models = this.env.models();
    if (!models.some((m) => m.id === model)) models.unshift({ id: model, name: model });
    const options: acp.SessionConfigOption[] = [
      {
        id: 'mode',
        name: 'Approval preset',
        category: 'mode',
        type: 'select',
        currentValue: this.modeId,
        options: this.presets.map((p) => ({ value: p.id, name: p.name, description: p.description })),
      },
      { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: model, options: models.map((m) => ({ value: m.id, name: m.name })) },
    ];
    const { efforts, defaultEffort } = this.env.efforts(model);
    if (efforts.length >= 2) {
      const current = this.reasoningEffort;
      options.push({
        id: 'reasoning_effort',
        name: 'Reasoning effort',
        category: 'thought_level',
        type: 'select',
        currentValue: current !== null && efforts.includes(current) ? current : (defaultEffort ?? efforts[0] ?? 'medium'),
        options: efforts.map((e) => ({ value: e, name: e })),
      });
    }
    return options;
  }

  /** Selects a mode; it applies from the next turn. Throws invalid params for an unknown id. */
  setMode(modeId: string): void {
    if (!this.presets.some((p) => p.id === modeId)) throw acp.RequestError.invalidParams({ modeId }, `unknown mode \`${modeId}\`; expected one of ${this.presets.map((p) => p.id).join(', ')}`);
    this.modeId = modeId;
  }

  /**
   * Sets a config option for the next turn; throws invalid params for an unknown option or value.
   * A model without the current effort falls back to its default effort.
   */
  setOption(configId: string, value: string): void {
    const option = this.configOptions().find((o) => o.id === configId);
    if (!option || option.type !== 'select') throw acp.RequestError.invalidParams({ configId }, `unknown config option \`${configId}\`; expected one of ${this.configOptions().map((o) => o.id).join(', ')}`);
    const values = option.options.flatMap((o) => ('value' in o ? [o.value] : o.options.map((g) => g.value)));
    if (!values.includes(value)) throw acp.RequestError.invalidParams({ configId, value }, `\`${value}\` is not a value of \`${configId}\`; expected one of ${values.join(', ')}`);
    if (configId === 'mode') this.setMode(value);
    else if (configId === 'model') {
      this.#next.model = value;
      const { efforts, defaultEffort } = this.env.efforts(value);
      const effort = this.reasoningEffort;
      if (effort !== null && !efforts.includes(effort)) this.#next.reasoningEffort = defaultEffort;
    } else this.#next.reasoningEffort = value as ReasoningEffort;
  }

  /** The overrides the next turn starts with. */
  #overrides(): TurnOverrides {
    const preset = this.presets.find((p) => p.id === this.modeId);
    return {
      ...(preset ? { approvalPolicy: preset.approvalPolicy, sandboxPolicy: this.env.sandboxPolicy(preset, this.additionalDirectories) } : {}),
      ...this.#next,
    };
  }

  /** The title and last activity of the session, as `session_info_update`. */
  infoUpdate(): acp.SessionUpdate {
    return { sessionUpdate: 'session_info_update', title: sessionTitle(this.thread.name ?? this.thread.preview), updatedAt: new Date(this.thread.updatedAtMs).toISOString() };
  }

  get isRunning(): boolean {
    return this.#running !== null;
  }

  /** Interrupts the running turn, if any; its prompt then answers `cancelled`. */
  cancel(): void {
    const running = this.#running;
    if (!running) return;
    running.cancelRequested = true;
    void this.thread.interrupt(running.turnId ?? undefined).catch((error: unknown) => this.log.debug(`interrupt: ${String(error)}`));
  }

  /** Runs one turn, streaming its updates; resolves with the prompt response. */
  prompt(input: UserInput[], send: UpdateSender, live: ClientView): Promise<acp.PromptResponse> {
    return this.run(() => {
      const handle = this.thread.startTurn(input, this.#overrides());
      this.#next = {};
      return handle;
    }, send, live);
  }

  /**
   * Runs the turn `start` begins (a prompt, a compaction, a review) under the session's rules:
   * one at a time, every update before the response, `cancelled` after a cancel.
   */
  async run(start: () => TurnHandle | Promise<TurnHandle>, send: UpdateSender, options: ClientView): Promise<acp.PromptResponse> {
    const previous = this.#running;
    if (previous) {
      if (!previous.cancelRequested) throw acp.RequestError.invalidRequest({ sessionId: this.id }, 'a turn is already running in this session');
      await previous.done.catch(() => undefined);
      if (this.#running) throw acp.RequestError.invalidRequest({ sessionId: this.id }, 'a turn is already running in this session');
    }
    let finish: () => void = () => undefined;
    let chain = Promise.resolve();
    const enqueue = (update: acp.SessionUpdate): Promise<void> =>
      (chain = chain.then(() => send({ sessionId: this.id, update })).catch((error: unknown) => this.log.debug(`update not sent: ${String(error)}`)));
    const running: RunningTurn = { turnId: null, cancelRequested: false, done: new Promise<void>((resolve) => (finish = resolve)), send: enqueue };
    this.#running = running;
    const live: LiveState = { ...options, streamed: new Set(), compactions: new Set() };
    const early: EngineEvent[] = [];
    const output = new OutputCoalescer((update) => void enqueue(update));
    const deliver = (event: EngineEvent) => {
      if (event.type === 'item.delta' && event.kind === 'commandOutput') output.add(event.itemId, event.delta);
      if (event.type === 'item.completed') output.drop(event.item.id);
      for (const update of eventUpdates(event, live)) void enqueue(update);
    };
    const off = this.thread.events.subscribe((event) => {
      if (running.turnId === null) early.push(event);
      else if (event.turnId === running.turnId) deliver(event);
    });
    try {
      let info: TurnInfo;
      try {
        const handle = await start();
        running.turnId = handle.turnId;
        for (const event of early.splice(0)) if (event.turnId === handle.turnId) deliver(event);
        if (running.cancelRequested) void this.thread.interrupt(handle.turnId).catch(() => undefined);
        info = await handle.done;
      } finally {
        off();
        output.close();
        // A compaction the turn left open ends with it; then the session's new title and activity.
        for (const compactionId of live.compactions) void enqueue({ sessionUpdate: 'compaction_update', compactionId, status: running.cancelRequested ? 'cancelled' : 'failed' });
        void enqueue(this.infoUpdate());
        await chain;
      }
      return responseFor(info, running.cancelRequested, this.id);
    } finally {
      this.#running = null;
      finish();
    }
  }

  /**
   * Shows a tool call before its permission request, after the turn's earlier updates. False
   * when no turn runs (the request is then not asked).
   */
  async announce(update: acp.SessionUpdate): Promise<boolean> {
    const running = this.#running;
    if (!running) return false;
    await running.send(update);
    return true;
  }

  /** Waits for the running turn (after a cancel) to end. */
  async settled(): Promise<void> {
    await this.#running?.done;
  }
}

/** Live command output: at most one `tool_call_update` per command every 200 ms, with the output so far. */
class OutputCoalescer {
  readonly #output = new Map<string, string>();
  readonly #timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly emit: (update: acp.SessionUpdate) => void) {}

  add(itemId: string, delta: string): void {
    this.#output.set(itemId, (this.#output.get(itemId) ?? '') + delta);
    if (this.#timers.has(itemId)) return;
    this.#timers.set(
      itemId,
      setTimeout(() => {
        this.#timers.delete(itemId);
        const text = this.#output.get(itemId);
        if (text !== undefined) this.emit({ sessionUpdate: 'tool_call_update', toolCallId: itemId, content: outputContent(text) });
      }, 200),
    );
  }

  /** The command ended: its final update carries the whole output. */
  drop(itemId: string): void {
    clearTimeout(this.#timers.get(itemId));
    this.#timers.delete(itemId);
    this.#output.delete(itemId);
  }

  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#output.clear();
  }
}

/** The prompt response (or error) for a finished turn (docs/acp.md, "Stop reasons and errors"). */
export function responseFor(info: TurnInfo, cancelRequested: boolean, threadId: string): acp.PromptResponse {
  const meta = { deputy: { threadId, turnId: info.id } };
  if (cancelRequested || info.status === 'interrupted') return { stopReason: 'cancelled', _meta: meta };
  if (info.status === 'completed') return { stopReason: 'end_turn', _meta: meta };
  const error = info.error;
  if (error?.code === 'unauthorized') throw acp.RequestError.authRequired({ code: error.code, httpStatus: error.httpStatus, threadId, turnId: info.id }, error.message);
  if (error?.code === 'contextWindowExceeded') return { stopReason: 'max_tokens', _meta: meta };
  const message = error?.message ?? 'the turn failed';
  throw new acp.RequestError(-32603, message, { code: error?.code ?? 'other', httpStatus: error?.httpStatus ?? null, threadId, turnId: info.id });
}

/** A session title: the thread name or its first prompt, on one line, at most 120 characters. */
export function sessionTitle(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
