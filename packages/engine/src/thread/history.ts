/**
 * The model history of a thread: the Responses items sent with each request, the turn each item
 * belongs to, and the settings key of the context messages it holds. Only `Thread` holds one
 * and changes it (it persists each change first); everything else reads it. Pure memory: no
 * rollout, no events.
 */
import type { ResponseItem } from '../model/types.js';
import type { TurnRecord } from './thread-types.js';

/** A thread's model history. */
export class History {
  #items: ResponseItem[] = [];
  #turnIds: (string | null)[] = [];
  #contextKey: string | null = null;

  /** The items, in order. */
  get items(): readonly ResponseItem[] {
    return this.#items;
  }

  /** The turn each item belongs to (null for items before any turn), parallel to `items`. */
  get turnIds(): readonly (string | null)[] {
    return this.#turnIds;
  }

  /** The settings key (`contextKeyOf`) of the context messages the items hold; null when unknown. */
  get contextKey(): string | null {
    return this.#contextKey;
  }

  /** Appends one item of `turnId`. */
  append(item: ResponseItem, turnId: string | null): void {
    this.#items.push(item);
    this.#turnIds.push(turnId);
  }

  /** Notes that the context messages of `contextKey` were appended. */
  markContext(contextKey: string): void {
    this.#contextKey = contextKey;
  }

  /** Empties the history before a summary replaces it; the context must be sent again. */
  clear(): void {
    this.#items = [];
    this.#turnIds = [];
    this.#contextKey = null;
  }

  /** Takes the items (and their turns) a replay rebuilt; the arrays are owned from now on. */
  restore(items: ResponseItem[], turnIds: (string | null)[], contextKey: string | null): void {
    this.#items = items;
    this.#turnIds = turnIds;
    this.#contextKey = contextKey;
  }

  /** Drops the items of the `dropped` turns; the context messages may have gone with them. */
  rollback(dropped: ReadonlySet<string>): void {
    dropTurnItems(this.#items, this.#turnIds, dropped);
    this.#contextKey = null;
  }
}

/** Removes, in place, the items of `items` whose turn (in the parallel `turnIds`) is in `dropped`. */
export function dropTurnItems(items: ResponseItem[], turnIds: (string | null)[], dropped: ReadonlySet<string>): void {
  for (let i = items.length - 1; i >= 0; i--) {
    const turnId = turnIds[i];
    if (turnId && dropped.has(turnId)) {
      items.splice(i, 1);
      turnIds.splice(i, 1);
    }
  }
}

/** Removes, in place, the last `numTurns` turns of `turns`; returns their ids. */
export function dropLastTurns(turns: TurnRecord[], numTurns: number): Set<string> {
  return new Set(turns.splice(Math.max(0, turns.length - numTurns)).map((t) => t.info.id));
}
