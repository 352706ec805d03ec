/**
 * ThreadManager: the engine's front object. It creates, resumes, forks, reads, lists, archives
 * and names threads; it owns the loaded threads, the rollout files and the SQLite index, and
 * builds each thread's collaborators (model client, tools, approval port). Front doors call it
 * and subscribe to its lifecycle events; it knows nothing about any wire.
 */
import { promises as fsp } from 'node:fs';
import { v7 as uuidv7 } from 'uuid';
import type { EngineEvent } from '@deputy/protocol';
import type { ApprovalPort } from '../approvals/approval-port.js';
import { InvalidInputError, McpRequiredServersError, ThreadNotFoundError } from '../errors.js';
import { EventStream } from '../events/event-stream.js';
import { rolloutLine, type RolloutLine } from '../persistence/rollout-line.js';
import { readRollout, readRolloutSync, scanRollout } from '../persistence/rollout-reader.js';
import { findRolloutPath, moveFromArchive, moveToArchive, RolloutWriter } from '../persistence/rollout-store.js';
import { ThreadIndex, type ThreadListParams } from '../persistence/thread-index.js';
import { ThreadStateStore } from '../persistence/thread-state-store.js';
import { previewOf } from '../persistence/rollout-summary.js';
import type { EngineRuntime } from './runtime.js';
import { messageTurns, replayRollout, RESUME_LINES, scanRolloutHead } from './replay.js';
import type { RolloutSink } from './rollout-sink.js';
import { applyTurnOverrides, sandboxModeOf, sandboxPolicyFromMode, type ThreadSettings, type TurnOverrides } from './settings.js';
import { runElicitation } from '../mcp/elicitation.js';
import { Thread } from './thread.js';
import type { StartThreadOptions, ThreadMeta, TurnRecord } from './thread-types.js';

export type { StartThreadOptions } from './thread-types.js';

/** Lifecycle events of the manager (thread-level, for broadcasts). */
export type ManagerEvent =
  | { type: 'thread.started'; thread: Thread }
  | { type: 'thread.archived'; threadId: string }
  | { type: 'thread.unarchived'; threadId: string }
  | { type: 'thread.named'; threadId: string; name: string | null }
  | { type: 'thread.closed'; threadId: string }
  /** Every event of every loaded thread, for front doors that route by thread. */
  | { type: 'thread.event'; event: EngineEvent };

/** A thread as listed. Times are Unix milliseconds. */
export interface ThreadSummary {
  id: string;
  createdAtMs: number;
  updatedAtMs: number;
  cwd: string;
  model: string;
  modelProvider: string;
  source: string;
  preview: string;
  name: string | null;
  archived: boolean;
  path: string;
  forkedFromId: string | null;
  /** In memory only (never listed, never written). */
  ephemeral?: boolean;
}

/** A thread read in full. */
export interface ThreadSnapshot {
  summary: ThreadSummary;
  turns: TurnRecord[];
  settings: ThreadSettings;
}

/** Options of `fork`. */
export interface ForkOptions extends StartThreadOptions {
  /** Keep turns up to and including this one; default: all turns. */
  upToTurnId?: string;
}

/** Creates and tracks threads. */
export class ThreadManager {
  readonly events = new EventStream<ManagerEvent>();
  readonly #loaded = new Map<string, Thread>();
  readonly #loading = new Map<string, Promise<Thread>>();

  private constructor(
    readonly runtime: EngineRuntime,
    readonly index: ThreadIndex,
  ) {}

  #state: ThreadStateStore | null = null;

  /** Goals and queued submissions (not in the rollouts); the file is opened on first use. */
  get state(): ThreadStateStore {
    return (this.#state ??= ThreadStateStore.open(this.runtime.home));
  }

  /** Opens the store (rebuilding or reconciling the index as needed). */
  static async open(runtime: EngineRuntime): Promise<ThreadManager> {
    const index = await ThreadIndex.open(runtime.home);
    await index.reconcile(runtime.home);
    return new ThreadManager(runtime, index);
  }

  /** The approval port threads use unless one is given. */
  get approvals(): ApprovalPort {
    return this.runtime.approvals;
  }

  /** Starts a new thread; it is listed, readable and resumable at once. */
  async start(options: StartThreadOptions = {}): Promise<Thread> {
    const settings = this.runtime.defaultSettings(options);
    const meta: ThreadMeta = {
      id: uuidv7(),
      createdAtMs: Date.now(),
      modelProvider: this.runtime.providerId,
      source: options.source ?? this.runtime.source,
      forkedFromId: null,
      cliVersion: this.runtime.version,
      ...(options.ephemeral === true ? { ephemeral: true } : {}),
      dynamicTools: options.dynamicTools ?? [],
    };
    const thread = meta.ephemeral === true ? this.#attach(meta, settings, null) : this.#create(meta, settings, []);
    await this.#waitRequiredMcp(thread);
    this.events.emit({ type: 'thread.started', thread });
    return thread;
  }

  /**
   * Waits for the thread's `required = true` MCP servers; when one fails, the thread is unloaded
   * and the start fails with the reference's wording (servers and their errors).
   */
  async #waitRequiredMcp(thread: Thread): Promise<void> {
    const failure = await thread.deps.mcp?.waitRequired();
    if (!failure) return;
    await this.unload(thread.id);
    throw new McpRequiredServersError(`Fatal error: Failed to initialize session: ${failure}`);
  }

  /** Returns the loaded thread, or loads it from its rollout. Overrides apply to later turns. */
  async resume(threadId: string, overrides: TurnOverrides = {}): Promise<Thread> {
    const loaded = this.#loaded.get(threadId);
    if (loaded) {
      // Only the given overrides change; instructions and the rest stay the thread's own.
      if (Object.keys(overrides).length > 0) loaded.settings = applyTurnOverrides(loaded.settings, overrides);
      return loaded;
    }
    let pending = this.#loading.get(threadId);
    if (!pending) {
      pending = this.#load(threadId, overrides).finally(() => this.#loading.delete(threadId));
      this.#loading.set(threadId, pending);
    }
    return pending;
  }

  /** Copies a thread (up to a turn) into a new thread. */
  async fork(threadId: string, options: ForkOptions = {}): Promise<Thread> {
    const path = await this.#pathOf(threadId);
    const { meta, lines } = await readRollout(path);
    let kept = lines.filter((l) => l.type !== 'session_meta');
    if (options.upToTurnId) {
      const turnIds = kept.filter((l) => l.type === 'turn_started').map((l) => (l.payload as { turnId: string }).turnId);
      const at = turnIds.indexOf(options.upToTurnId);
      if (at < 0) throw new InvalidInputError(`turn ${options.upToTurnId} not found in thread ${threadId}`);
      const next = turnIds[at + 1];
      if (next) kept = kept.slice(0, kept.findIndex((l) => l.type === 'turn_started' && (l.payload as { turnId: string }).turnId === next));
    }
    const settings = this.runtime.defaultSettings({ cwd: meta.cwd, model: meta.model, ...options });
    const newMeta: ThreadMeta = {
      id: uuidv7(),
      createdAtMs: Date.now(),
      // A fork is a new thread: it runs on the current provider, whichever the source used.
      modelProvider: this.runtime.providerId,
      source: options.source ?? this.runtime.source,
      forkedFromId: threadId,
      cliVersion: this.runtime.version,
      dynamicTools: options.dynamicTools ?? meta.dynamicTools ?? [],
    };
    const thread = this.#create(newMeta, settings, kept);
    await this.#waitRequiredMcp(thread);
    this.events.emit({ type: 'thread.started', thread });
    return thread;
  }

  /** Reads a thread (loaded or not) with its turns and items. */
  async read(threadId: string): Promise<ThreadSnapshot> {
    const loaded = this.#loaded.get(threadId);
    if (loaded) return { summary: this.summaryOf(loaded), turns: loaded.turns, settings: loaded.settings };
    const path = await this.#pathOf(threadId);
    const { meta, lines } = await readRollout(path);
    const replayed = replayRollout(lines);
    const row = this.index.get(threadId);
    const settings = this.runtime.defaultSettings({ cwd: replayed.lastCwd ?? meta.cwd, model: replayed.lastModel ?? meta.model, approvalPolicy: meta.approvalPolicy });
    return {
      summary: {
        id: meta.id,
        createdAtMs: meta.createdAtMs,
        updatedAtMs: row?.updatedAtMs ?? meta.createdAtMs,
        cwd: meta.cwd,
        model: meta.model,
        modelProvider: meta.modelProvider,
        source: meta.source,
        preview: row?.preview ?? '',
        name: replayed.name,
        archived: row?.archived ?? false,
        path,
        forkedFromId: meta.forkedFromId,
      },
      turns: replayed.turns,
      settings,
    };
  }

  /** Lists threads, newest first, with keyset pagination. */
  list(params: ThreadListParams): { threads: ThreadSummary[]; nextCursor: string | null } {
    const page = this.index.list(params);
    return { threads: page.rows.map((row) => ({ ...row })), nextCursor: page.nextCursor };
  }

  /** `list`, with a text search (`params.search`) run off the main thread (`ThreadIndex.listAsync`). */
  async listAsync(params: ThreadListParams): Promise<{ threads: ThreadSummary[]; nextCursor: string | null }> {
    const page = await this.index.listAsync(params);
    return { threads: page.rows, nextCursor: page.nextCursor };
  }

  /** Sets (or clears) a thread's name. */
  async setName(threadId: string, name: string | null): Promise<void> {
    const thread = await this.resume(threadId);
    thread.name = name;
    thread.deps.rollout.append({ type: 'thread_name', payload: { name } });
    this.index.setName(threadId, name);
    this.events.emit({ type: 'thread.named', threadId, name });
  }

  /** Drops the last `numTurns` turns of an idle thread. */
  async rollback(threadId: string, numTurns: number): Promise<Thread> {
    const thread = await this.resume(threadId);
    if (thread.activeTurnId) throw new InvalidInputError('cannot roll back while a turn is running');
    if (!Number.isInteger(numTurns) || numTurns < 1) throw new InvalidInputError('numTurns must be a positive integer');
    thread.rollback(numTurns);
    return thread;
  }

  /** Archives a thread: it is unloaded, its rollout moves to the archive, the index follows. */
  async archive(threadId: string): Promise<void> {
    const path = await this.#pathOf(threadId);
    await this.unload(threadId);
    await moveToArchive(this.runtime.home, path, this.index);
    this.events.emit({ type: 'thread.archived', threadId });
  }

  /** Brings an archived thread back (unloading it first, so nothing keeps its archived path). */
  async unarchive(threadId: string): Promise<ThreadSummary> {
    const path = await this.#pathOf(threadId);
    await this.unload(threadId);
    await moveFromArchive(this.runtime.home, path, this.index);
    this.events.emit({ type: 'thread.unarchived', threadId });
    return (await this.read(threadId)).summary;
  }

  /**
   * Deletes a thread for good: it is unloaded, its rollout file (live or archived) is removed and
   * its index row goes. An ephemeral thread is only unloaded.
   */
  async delete(threadId: string): Promise<void> {
    const loaded = this.#loaded.get(threadId);
    if (loaded?.meta.ephemeral === true) {
      await this.unload(threadId);
      return;
    }
    const path = await this.#pathOf(threadId);
    await this.unload(threadId);
    await fsp.rm(path, { force: true });
    this.index.remove(threadId);
    this.state.forget(threadId);
  }

  /** A loaded thread, if any. */
  get(threadId: string): Thread | undefined {
    return this.#loaded.get(threadId);
  }

  /** All loaded threads. */
  loaded(): Thread[] {
    return [...this.#loaded.values()];
  }

  /** Closes a loaded thread (interrupting its turn) and forgets it. */
  async unload(threadId: string): Promise<void> {
    const thread = this.#loaded.get(threadId);
    if (!thread) return;
    this.#loaded.delete(threadId);
    await thread.close();
    this.events.emit({ type: 'thread.closed', threadId });
  }

  /** Closes every thread and the index. */
  async close(): Promise<void> {
    await Promise.all([...this.#loaded.keys()].map((id) => this.unload(id)));
    this.index.close();
    this.#state?.close();
  }

  async #pathOf(threadId: string): Promise<string> {
    const loaded = this.#loaded.get(threadId);
    if (loaded?.path) return loaded.path;
    const path = await findRolloutPath(this.runtime.home, threadId, this.index);
    if (!path) throw new ThreadNotFoundError(threadId);
    return path;
  }

  async #load(threadId: string, overrides: TurnOverrides): Promise<Thread> {
    const path = await this.#pathOf(threadId);
    // A resume parses only the lines it shows (turn boundaries, messages, name, usage); the whole
    // rollout, as far as it was scanned here, is read and replayed on first use.
    const scan = await scanRollout(path, RESUME_LINES);
    const { meta } = scan;
    const head = scanRolloutHead(scan.lines);
    const settings = this.runtime.defaultSettings({
      cwd: head.lastCwd ?? meta.cwd,
      model: head.lastModel ?? meta.model,
      approvalPolicy: meta.approvalPolicy,
      sandboxPolicy: sandboxPolicyFromMode(meta.sandboxMode, this.runtime.config.sandboxWorkspaceWrite),
      baseInstructions: meta.baseInstructions,
      developerInstructions: meta.developerInstructions,
      ...overrides,
    });
    const writer = RolloutWriter.openForAppend(path);
    const thread = this.#attach(
      {
        id: meta.id,
        createdAtMs: meta.createdAtMs,
        modelProvider: meta.modelProvider,
        source: meta.source,
        forkedFromId: meta.forkedFromId,
        cliVersion: meta.cliVersion,
        dynamicTools: meta.dynamicTools ?? [],
      },
      settings,
      writer,
    );
    const row = this.index.get(threadId);
    thread.preview = row?.preview ?? '';
    thread.updatedAtMs = row?.updatedAtMs ?? meta.createdAtMs;
    // The history and turns are replayed on first use: resuming a large thread only reads it.
    thread.deferRestore(
      head,
      () => replayRollout(readRolloutSync(path, { bytes: scan.bytes }).lines),
      () => messageTurns(scan.lines),
    );
    return thread;
  }

  #create(meta: ThreadMeta, settings: ThreadSettings, copied: RolloutLine[]): Thread {
    const writer = RolloutWriter.create(this.runtime.home, {
      id: meta.id,
      createdAtMs: meta.createdAtMs,
      cwd: settings.cwd,
      model: settings.model,
      modelProvider: meta.modelProvider,
      source: meta.source,
      forkedFromId: meta.forkedFromId,
      cliVersion: meta.cliVersion,
      approvalPolicy: settings.approvalPolicy,
      sandboxMode: sandboxModeOf(settings.sandboxPolicy),
      reasoningEffort: settings.reasoningEffort,
      baseInstructions: settings.baseInstructions,
      developerInstructions: settings.developerInstructions,
      ...(meta.dynamicTools?.length ? { dynamicTools: meta.dynamicTools } : {}),
    });
    for (const line of copied) writer.append(line);
    const thread = this.#attach(meta, settings, writer);
    if (copied.length > 0) thread.restore(replayRollout(copied));
    const firstUser = thread.turns.flatMap((t) => t.items).find((i) => i.type === 'userMessage');
    thread.preview = firstUser ? previewOf(firstUser) : '';
    this.index.upsert(this.summaryOf(thread));
    return thread;
  }

  /** Builds and registers a thread; without a writer it lives in memory only. */
  #attach(meta: ThreadMeta, settings: ThreadSettings, writer: RolloutWriter | null): Thread {
    const sink: RolloutSink = writer
      ? { path: writer.path, append: (fact) => writer.append(rolloutLine(fact.type as never, fact.payload as never)) }
      : { path: null, append: () => undefined };
    const writableRoots = settings.sandboxPolicy.type === 'workspace-write' ? settings.sandboxPolicy.writableRoots : [];
    const services = this.runtime.createThreadServices({ cwd: settings.cwd, writableRoots, dynamicTools: meta.dynamicTools ?? [], threadId: meta.id });
    const thread: Thread = new Thread(meta, settings, {
      // Bound now: a config change later leaves this thread on its provider and catalogue facts.
      ...this.runtime.threadModel(),
      approvals: this.runtime.approvals,
      rollout: sink,
      tools: services.tools,
      childEnv: () => services.services.childEnv(),
      execSessions: services.services.sessions,
      onTurnStart: (s) => services.prewarmShell(s.cwd, s.sandboxPolicy),
      mcp: services.mcp,
      extensions: this.runtime.threadExtensions(writer?.path ?? null),
      clientToolTimeoutMs: this.runtime.config.dynamicToolTimeoutMs,
      onActivity: (t) => (writer ? this.index.touchSoon(t.id, t.updatedAtMs, t.preview || undefined) : undefined),
      onClose: async () => {
        writer?.close();
        await services.close();
      },
    });
    // MCP servers start with the thread, in the background; their status changes are thread events.
    services.mcp.onStatus = (s) => thread.emit(null, { type: 'mcp.serverStatus', server: s.name, status: s.status === 'disabled' ? 'cancelled' : s.status, error: s.error });
    // A server's elicitation goes to this thread's port, correlated with the running turn if any.
    services.mcp.onElicitation = (server, params, signal) => {
      const turn = thread.activeTurn;
      const settings = turn?.settings ?? thread.settings;
      return runElicitation(server, params, signal, {
        port: thread.deps.approvals,
        origin: { threadId: thread.id, turnId: turn?.id ?? null, approvalId: uuidv7() },
        policy: settings.approvalPolicy,
        sandbox: settings.sandboxPolicy,
        turnSignal: turn?.controller.signal ?? null,
        timeoutMs: this.runtime.config.mcpElicitationTimeoutMs,
      });
    };
    services.mcp.start();
    thread.events.subscribe((event) => this.events.emit({ type: 'thread.event', event }));
    this.#loaded.set(meta.id, thread);
    return thread;
  }

  /** The summary of a loaded thread (as `list` would show it). */
  summaryOf(thread: Thread): ThreadSummary {
    return {
      id: thread.id,
      createdAtMs: thread.meta.createdAtMs,
      updatedAtMs: thread.updatedAtMs,
      cwd: thread.settings.cwd,
      model: thread.settings.model,
      modelProvider: thread.meta.modelProvider,
      source: thread.meta.source,
      preview: thread.preview,
      name: thread.name,
      archived: this.index.isArchived(thread.id) ?? false,
      path: thread.path ?? '',
      forkedFromId: thread.meta.forkedFromId,
      ...(thread.meta.ephemeral === true ? { ephemeral: true } : {}),
    };
  }
}

