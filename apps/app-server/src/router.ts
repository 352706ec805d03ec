/**
 * Who receives what: the `audience` column of the protocol's notification table says it
 * (docs/app-server.md, "Notifications"). Notifications about a thread go to every initialized
 * connection (`all`: thread lifecycle, account changes) or to the thread's subscribers (turn and
 * item events); approvals and `serverRequest/resolved` go to the connections that got the
 * request. Engine events of every loaded thread come in through the manager, are projected
 * once (so every subscriber, on any transport, sees the same sequence) and delivered in order.
 * A handler can hold a thread's delivery while it answers (`hold`), so a response such as
 * `turn/start`'s always precedes the notifications its call caused. The router owns the
 * subscriptions and each loaded thread's projection view; it never calls the engine.
 */
import type { AppServer, EngineEvent } from '@deputy/protocol';
import type { ManagerEvent, ThreadManager } from '@deputy/engine';
import type { ConnectionState } from './connection-state.js';
import type { AppLogger } from './logger.js';
import type { Outbound, WireNotification } from './project/outbound.js';
import type { ThreadView } from './project/notifications.js';

/** The event projection (`project/notifications.ts`), handed over with the engine. */
export interface Projection {
  createThreadView(threadId: string): ThreadView;
  projectEvent(view: ThreadView, event: EngineEvent): Outbound[];
}

/** The server notification table: the router reads its `audience` column. */
export type NotificationTable = typeof AppServer.serverNotifications;

/** Gives the per-connection request ids of an approval once it is resolved. */
export interface ResolvedRequestSource {
  /** The connections that received the approval's request, with their ids; forgets them. */
  takeSentRequests(approvalId: string): Array<{ state: ConnectionState; id: number }>;
}

interface Hold {
  count: number;
  queue: Array<() => void>;
  isDraining: boolean;
}

/** See the module comment. */
export class Router {
  readonly #connections = new Set<ConnectionState>();
  readonly #subscribers = new Map<string, Set<ConnectionState>>();
  readonly #views = new Map<string, ThreadView>();
  readonly #holds = new Map<string, Hold>();
  #manager: ThreadManager | null = null;
  #projection: Projection | null = null;
  #requests: ResolvedRequestSource | null = null;
  #notifications: NotificationTable | null = null;
  #detach: (() => void) | null = null;

  constructor(private readonly logger: AppLogger) {}

  /**
   * Starts routing the manager's events through the projection; `requests` names the connections
   * of resolved approvals. Thread views exist from then on.
   */
  attach(manager: ThreadManager, requests: ResolvedRequestSource, projection: Projection): void {
    this.#manager = manager;
    this.#projection = projection;
    this.#requests = requests;
    this.#detach = manager.events.subscribe((event) => this.#onManagerEvent(event));
  }

  /** Routes by the audiences of `notifications` (the full tables load before anything is published). */
  routeBy(notifications: NotificationTable): void {
    this.#notifications = notifications;
  }

  /** Stops routing. */
  detach(): void {
    this.#detach?.();
    this.#detach = null;
  }

  /** Registers a new connection (it receives broadcasts once initialized). */
  addConnection(state: ConnectionState): void {
    this.#connections.add(state);
  }

  /** The registered connections that are still open. */
  openConnections(): ConnectionState[] {
    return [...this.#connections].filter((s) => !s.isClosed);
  }

  /** Forgets a closed connection and its subscriptions. */
  removeConnection(state: ConnectionState): void {
    this.#connections.delete(state);
    for (const threadId of state.subscriptions) this.#subscribers.get(threadId)?.delete(state);
    state.subscriptions.clear();
  }

  /** Subscribes a connection to a thread's turn and item events. */
  subscribe(threadId: string, state: ConnectionState): void {
    let set = this.#subscribers.get(threadId);
    if (!set) this.#subscribers.set(threadId, (set = new Set()));
    set.add(state);
    state.subscriptions.add(threadId);
  }

  /** Removes a subscription; false when the connection was not subscribed. */
  unsubscribe(threadId: string, state: ConnectionState): boolean {
    state.subscriptions.delete(threadId);
    return this.#subscribers.get(threadId)?.delete(state) ?? false;
  }

  /** The open connections subscribed to a thread, in subscription order. */
  subscribersOf(threadId: string): ConnectionState[] {
    return [...(this.#subscribers.get(threadId) ?? [])].filter((s) => !s.isClosed);
  }

  /** The projection view of a loaded thread (created on first use). */
  viewOf(threadId: string): ThreadView {
    let view = this.#views.get(threadId);
    if (!view) {
      if (!this.#projection) throw new Error('the router has no thread views before the engine is attached');
      this.#views.set(threadId, (view = this.#projection.createThreadView(threadId)));
    }
    return view;
  }

  /** A thread's wire status: `notLoaded` unless the engine has it loaded. */
  statusOf(threadId: string): AppServer.ThreadStatus {
    if (!this.#manager?.get(threadId)) return { type: 'notLoaded' };
    return this.viewOf(threadId).status;
  }

  /**
   * Holds delivery for a thread: what would be sent is queued until every holder released.
   * Returns the release function (safe to call twice).
   */
  hold(threadId: string): () => void {
    let hold = this.#holds.get(threadId);
    if (!hold) this.#holds.set(threadId, (hold = { count: 0, queue: [], isDraining: false }));
    hold.count += 1;
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.#release(threadId);
    };
  }

  #release(threadId: string): void {
    const hold = this.#holds.get(threadId);
    if (!hold) return;
    hold.count -= 1;
    if (hold.count > 0) return;
    // A delivery made by a queued callback while draining belongs to that callback: it runs at
    // once. If a callback takes a new hold, draining stops and the rest waits for that release.
    hold.isDraining = true;
    while (hold.count === 0 && hold.queue.length > 0) (hold.queue.shift() as () => void)();
    hold.isDraining = false;
    if (hold.count === 0) this.#holds.delete(threadId);
  }

  /** Runs `deliver` now, or after the thread's holds are released (in order). */
  deliver(threadId: string, deliver: () => void): void {
    const hold = this.#holds.get(threadId);
    if (hold && !(hold.isDraining && hold.count === 0)) hold.queue.push(deliver);
    else deliver();
  }

  /** Sends messages about a thread (through its hold, if any) to their audiences. */
  publish(threadId: string, messages: readonly Outbound[]): void {
    if (messages.length === 0) return;
    this.deliver(threadId, () => {
      for (const message of messages) this.#send(threadId, message);
    });
  }

  /** Sends one notification to one connection, honouring its opt-outs. */
  sendTo(state: ConnectionState, message: Outbound): void {
    if (message.kind === 'notification') notifyOne(state, message);
  }

  #send(threadId: string, message: Outbound): void {
    if (message.kind === 'requestResolved') {
      for (const { state, id } of this.#requests?.takeSentRequests(message.approvalId) ?? []) {
        state.notify('serverRequest/resolved', { threadId, requestId: id });
      }
      return;
    }
    if (!this.#notifications) throw new Error('the router has no notification table before the full tables load');
    // `connection` notifications are sent with `sendTo`, never published.
    const isBroadcast = this.#notifications[message.method].audience === 'all';
    for (const state of isBroadcast ? this.#connections : this.subscribersOf(threadId)) notifyOne(state, message);
  }

  #onManagerEvent(event: ManagerEvent): void {
    if (event.type === 'thread.event') {
      const { threadId } = event.event;
      const view = this.viewOf(threadId);
      this.publish(threadId, this.#projection?.projectEvent(view, event.event) ?? []);
    } else if (event.type === 'thread.closed') {
      this.#views.delete(event.threadId);
      for (const state of this.#subscribers.get(event.threadId) ?? []) state.subscriptions.delete(event.threadId);
      this.#subscribers.delete(event.threadId);
      this.logger.debug('thread unloaded', { threadId: event.threadId });
    } else if (event.type === 'thread.started') {
      this.viewOf(event.thread.id);
    }
  }
}

function notifyOne(state: ConnectionState, message: WireNotification): void {
  // The union of (method, params) pairs cannot be correlated by the compiler; the builder typed it.
  state.notify(message.method as 'warning', message.params as AppServer.NotificationParamsOf<'warning'>);
}
