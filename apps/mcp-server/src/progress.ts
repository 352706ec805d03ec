/**
 * Standard `notifications/progress` for a running turn, so hosts that reset their request timeout
 * on progress never give up on a long turn: the first notification goes out at once, then one at
 * least every `intervalMs` while the turn runs, with `progress` strictly increasing and `message`
 * a short line about the latest event ("running: pnpm test"). Owns the timer, not the sending.
 */
import { displayCommand } from '@deputy/engine/facts';
import type { EngineEvent } from '@deputy/protocol';

/** Sends one progress notification; failures are the sender's business. */
export type ProgressSend = (progress: number, message: string) => void;

/** Heartbeat of one request. Call `stop()` when the request ends. */
export class ProgressReporter {
  #progress = 0;
  #message: string;
  #lastSentMs = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly send: ProgressSend,
    private readonly intervalMs: number,
    initialMessage: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#message = initialMessage;
  }

  /** Sends the first notification and starts the heartbeat. */
  start(): void {
    if (this.#timer) return;
    this.#emit();
    // Check often enough that no gap exceeds the interval, whatever the timer jitter.
    const tick = Math.max(5, Math.floor(this.intervalMs / 2));
    this.#timer = setInterval(() => {
      if (this.now() - this.#lastSentMs >= this.intervalMs - tick) this.#emit();
    }, tick);
    this.#timer.unref();
  }

  /** Records the latest event; a notable one is sent at once when the last send is over a second old. */
  note(event: EngineEvent): void {
    const message = progressMessage(event);
    if (message === null) return;
    this.#message = message;
    if (this.#timer && this.now() - this.#lastSentMs >= Math.min(1000, this.intervalMs)) this.#emit();
  }

  /** Stops the heartbeat (idempotent). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #emit(): void {
    this.#lastSentMs = this.now();
    this.#progress += 1;
    this.send(this.#progress, this.#message);
  }
}

/** A short human line for an event, or null when the event is not worth a line. */
export function progressMessage(event: EngineEvent): string | null {
  switch (event.type) {
    case 'turn.started':
      return `turn started (${event.model})`;
    case 'item.started':
      if (event.item.type === 'commandExecution') return `running: ${clip(event.item.command)}`;
      if (event.item.type === 'fileChange') return `editing ${event.item.changes.length} file(s)`;
      if (event.item.type === 'agentMessage') return 'writing the answer';
      if (event.item.type === 'reasoning') return 'thinking';
      if (event.item.type === 'mcpToolCall') return `calling ${event.item.server}.${event.item.tool}`;
      return null;
    case 'item.completed':
      if (event.item.type === 'commandExecution') return `finished: ${clip(event.item.command)} (exit ${event.item.exitCode ?? '?'})`;
      if (event.item.type === 'agentMessage') return `answer: ${clip(event.item.text)}`;
      if (event.item.type === 'mcpToolCall') return `finished: ${event.item.server}.${event.item.tool} (${event.item.status})`;
      return null;
    case 'approval.requested':
      return event.request.kind === 'exec' ? `waiting for approval: ${clip(displayCommand(event.request.command))}` : 'waiting for approval of a patch';
    case 'approval.resolved':
      return `approval: ${event.decision}`;
    case 'plan.updated':
      return 'plan updated';
    case 'error':
      return event.willRetry ? `retrying: ${clip(event.error.message)}` : `error: ${clip(event.error.message)}`;
    case 'turn.completed':
      return `turn ${event.turn.status}`;
    default:
      return null;
  }
}

function clip(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
