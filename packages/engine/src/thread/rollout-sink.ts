/**
 * The narrow interface a thread writes its facts through. The JSONL rollout writer implements
 * it; tests may use an in-memory sink. `append` must have the line on disk when it returns, so
 * a fact is persisted before its event is published.
 */

/** One fact to persist: a rollout line type and its payload. */
export interface RolloutFact {
  type: string;
  payload: Record<string, unknown>;
}

/** Where a thread's facts go. */
export interface RolloutSink {
  readonly path: string | null;
  append(fact: RolloutFact): void;
}
