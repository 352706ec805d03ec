/**
 * A small typed publish/subscribe stream. Producers `emit()`; consumers either `subscribe()` a
 * listener or iterate with `for await (const e of stream.iterate(signal))`, which ends when the
 * signal aborts. Listeners never break the producer: a throwing listener is reported and skipped.
 */

/** A typed event stream. */
export class EventStream<T> {
  readonly #listeners = new Set<(event: T) => void>();

  /** Delivers `event` to every current listener, in subscription order. */
  emit(event: T): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        process.emitWarning(`event listener failed: ${(error as Error).message}`);
      }
    }
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Number of listeners (for tests and leak checks). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Iterates events from now on until `signal` aborts. Buffered, so no event is lost. */
  async *iterate(signal: AbortSignal): AsyncGenerator<T> {
    const queue: T[] = [];
    let wake: (() => void) | null = null;
    const unsubscribe = this.subscribe((event) => {
      queue.push(event);
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const next = queue.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }
}
